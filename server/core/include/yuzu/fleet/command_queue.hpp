// CommandQueue: the commands waiting for each agent, which the agent plane
// hands out on long-poll. In memory by design: the durable record of what
// was asked and what came back is the execution store; a command lost with
// a server restart is reported by its execution as timed out.
//
// Delivery is at least once: a delivered command stays queued (and is
// handed out again after `redeliver_after_ms`) until complete() or cancel().
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::fleet {

struct AgentCommand {
    std::string command_id;  // 32 hex; unique per (execution, agent)
    std::string execution_id;
    std::string plugin;
    std::string action;
    std::string params_json = "{}";  // a JSON object
    int timeout_s = 60;
    int64_t queued_at_ms = 0;  // set by enqueue()
};

class CommandQueue {
  public:
    CommandQueue(const Clock& clock, size_t max_per_agent, int64_t redeliver_after_ms = 120'000);
    ~CommandQueue();
    CommandQueue(const CommandQueue&) = delete;
    CommandQueue& operator=(const CommandQueue&) = delete;

    // ResourceExhausted when the agent already has max_per_agent queued;
    // AlreadyExists for a repeated command_id.
    Status enqueue(const std::string& agent_id, AgentCommand command);
    // Waits up to `wait` (real time) for commands that are not yet delivered
    // (or due for redelivery), marks them delivered and returns them. Returns
    // at once when some are ready; returns empty after shutdown().
    std::vector<AgentCommand> wait_for_commands(const std::string& agent_id,
                                                std::chrono::milliseconds wait);
    // The result arrived: forget the command. False when it was not queued
    // for that agent (a duplicate or forged result).
    bool complete(const std::string& agent_id, const std::string& command_id);
    // Drops a command (execution timed out or was cancelled). False if absent.
    bool cancel(const std::string& agent_id, const std::string& command_id);
    size_t queued(const std::string& agent_id) const;
    // Commands queued for any agent and not yet handed to it (a gauge for
    // /metrics: the fleet's delivery backlog).
    size_t undelivered() const;
    // How many long-polls are waiting right now (a gauge for /metrics).
    size_t waiters() const;
    // Wakes every waiter; later waits return at once.
    void shutdown();

  private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace yuzu::fleet
