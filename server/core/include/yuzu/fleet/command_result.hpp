// What an agent reported for one command, and the sink the agent plane hands
// each accepted result to (the execution tracker).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

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

// Called for every result of a command that was queued for that agent
// (after CommandQueue::complete() accepted it). Must not throw and must not
// block for long: it runs on an agent-plane worker.
using CommandResultSink =
    std::function<void(const std::string& agent_id, const CommandResult& result)>;

}  // namespace yuzu::fleet
