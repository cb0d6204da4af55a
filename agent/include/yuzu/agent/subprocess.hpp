// Runs a program without a shell: argv[0] is looked up on PATH and the
// arguments are passed as they are, so nothing in them is ever interpreted.
// The child gets /dev/null on stdin, LC_ALL=C, and its own process group;
// on timeout, cancellation or output over the cap the whole group is killed.
//
// Thread-safety: run_subprocess may be called from several threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::agent {

struct SubprocessOptions {
    std::chrono::milliseconds timeout{30'000};
    size_t max_output_bytes = size_t{16} * 1024 * 1024;  // stdout cap
    size_t max_error_bytes = 4096;                       // stderr cap (kept for messages)
    const std::atomic<bool>* cancel = nullptr;           // checked every 100 ms when set
};

struct SubprocessResult {
    int exit_code = -1;             // the exit status; -1 when killed by a signal
    int term_signal = 0;            // the signal that ended it, if any
    bool timed_out = false;         // killed because the timeout passed
    bool cancelled = false;         // killed because *cancel became true
    bool output_truncated = false;  // killed because stdout went over max_output_bytes
    std::string output;             // stdout (at most max_output_bytes)
    std::string error_output;       // stderr (at most max_error_bytes)

    // Exited on its own with status 0.
    bool succeeded() const {
        return exit_code == 0 && !timed_out && !cancelled && !output_truncated;
    }
    // One line for logs and "unavailable" reasons, e.g. "timed out after 30000 ms".
    std::string describe_failure() const;
};

// NotFound when argv[0] is not an executable on PATH; Internal when the
// pipes or the spawn fail. A program that runs and fails is a Result whose
// succeeded() is false.
Result<SubprocessResult> run_subprocess(const std::vector<std::string>& argv,
                                        const SubprocessOptions& options);

}  // namespace yuzu::agent
