// CommandQueue: the commands waiting for each agent, which the agent plane
// hands out on long-poll. In memory by design: the durable record of what
// was asked and what came back is the execution store; a command lost with
// a server restart is reported by its execution as timed out.
//
// Delivery is at least once. An agent polls again only after it has
// answered everything the previous poll gave it (docs/agent-protocol.md), so
// a delivered command still queued when the same agent polls again lost its
// answer (or its delivery) on the way: take() hands it out again, and the
// agent, which remembers what it answered, resends that answer instead of
// running it twice. A command handed out `max_deliveries` times without an
// answer is abandoned (the execution then times out for that agent), so an
// answer the server can never accept cannot loop forever.
#pragma once

#include <cstdint>
#include <functional>
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
    int deliveries = 0;        // how often take() has handed it out, this time included
};

class CommandQueue {
  public:
    // Told the agent whose queue just got a command; runs on the enqueuing
    // thread, outside the queue's lock, and must not block.
    using ReadyListener = std::function<void(const std::string& agent_id)>;

    CommandQueue(const Clock& clock, size_t max_per_agent, int max_deliveries = 5);
    ~CommandQueue();
    CommandQueue(const CommandQueue&) = delete;
    CommandQueue& operator=(const CommandQueue&) = delete;

    // ResourceExhausted when the agent already has max_per_agent queued;
    // AlreadyExists for a repeated command_id; Unavailable after shutdown().
    Status enqueue(const std::string& agent_id, AgentCommand command);
    // Every command of the agent that has no answer yet (new ones, and ones
    // handed out before whose answer never came), marked delivered, oldest
    // first. Never blocks; empty after shutdown(). `abandoned`, when given,
    // is increased by the commands this call gave up on.
    std::vector<AgentCommand> take(const std::string& agent_id, uint64_t* abandoned = nullptr);
    // The result arrived: forget the command. False when it was not queued
    // for that agent (a duplicate or forged result).
    bool complete(const std::string& agent_id, const std::string& command_id);
    // Drops a command (execution timed out or was cancelled). False if absent.
    bool cancel(const std::string& agent_id, const std::string& command_id);
    size_t queued(const std::string& agent_id) const;
    // Commands queued for any agent and not yet handed to it (a gauge for
    // /metrics: the fleet's delivery backlog).
    size_t undelivered() const;
    // Commands dropped after max_deliveries hand-outs without an answer.
    uint64_t abandoned() const;
    // Set before agents poll (the agent plane's poll parking); one listener.
    void set_ready_listener(ReadyListener listener);
    // Later enqueues are refused and takes return nothing.
    void shutdown();

  private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace yuzu::fleet
