// Runs a command without a shell: posix_spawn with an argv array, a minimal
// fixed environment, stdin from /dev/null, stdout/stderr captured up to a
// cap, and the child's whole process group killed at the deadline.
// Private to yuzu_agent_plugins. Thread-safety: run_command may be called
// from several threads at once.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::agent::plugins {

struct CommandResult {
    int exit_code = -1;          // -1 when the child died by a signal
    int signal = 0;              // the signal that ended it, else 0
    bool timed_out = false;      // killed at the deadline
    bool output_capped = false;  // killed because stdout+stderr passed the cap
    std::string out;
    std::string err;
};

// argv[0] must be an absolute path (see find_executable). A spawn failure
// is an error Status; everything after the spawn is reported in the result.
Result<CommandResult> run_command(const std::vector<std::string>& argv,
                                  std::chrono::milliseconds timeout, size_t max_output_bytes);

}  // namespace yuzu::agent::plugins
