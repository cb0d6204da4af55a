// What an agent reported for one command, and the sink the agent plane hands
// each accepted result to (the execution tracker).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::fleet {

// One result of a command (POST /agent/v1/results).
struct CommandResult {
    std::string command_id;
    std::string status;       // success | failure | refused | timeout
    std::string output_json;  // the plugin's structured output ("null" if none)
    std::string error;
    int64_t duration_ms = 0;
    int64_t received_at_ms = 0;
};

struct AgentResult {
    std::string agent_id;
    CommandResult result;
};

// Records a batch of results in one write (the agent plane's group commit)
// and says, per result and in order: Ok (recorded), NotFound (not this
// agent's command), FailedPrecondition (settled already), or another code
// (not recorded now; the agent is asked to send it again). Must not throw;
// runs on the agent plane's ingest thread.
using CommandResultSink = std::function<std::vector<Status>(const std::vector<AgentResult>&)>;

}  // namespace yuzu::fleet
