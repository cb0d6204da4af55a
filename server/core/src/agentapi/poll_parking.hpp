// PollParking: agents' long-polls waiting for a command, held without a
// thread each.
//
// A poll that finds nothing queued parks its DeferredReply here. One thread
// answers it when a command is queued for that agent (the CommandQueue's
// ready listener names the agent) or when its wait is over (an empty list).
// Answers are built here and written by the listener's workers, so the
// thread never waits on a socket. At most one poll per agent is held: a
// newer poll from the same agent answers the older one at once, empty.
//
// Thread-safety: every public member may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "yuzu/fleet/command_queue.hpp"
#include "yuzu/http/deferred_reply.hpp"

namespace yuzu::agentapi {

class PollParking {
  public:
    // Builds the body of a poll's answer (never blocks on the network).
    using Answer = std::function<std::string(const std::string& agent_id,
                                             const std::vector<fleet::AgentCommand>& commands)>;

    // Told, every `touch_interval`, the agents holding a poll: an agent
    // waiting on a held poll is connected, so it must not turn offline
    // while it waits (its heartbeats may be in back-off after an outage).
    using StillConnected = std::function<void(const std::vector<std::string>& agent_ids)>;

    // `niceness` is added to the parking thread's nice value.
    PollParking(fleet::CommandQueue& queue, Answer answer, size_t capacity,
                StillConnected still_connected = {},
                std::chrono::milliseconds touch_interval = std::chrono::seconds(1),
                int niceness = 0);
    ~PollParking();
    PollParking(const PollParking&) = delete;
    PollParking& operator=(const PollParking&) = delete;

    // Holds the poll until a command is queued for the agent or `wait`
    // passes. False (nothing held) when `capacity` polls are held already or
    // after stop(): the caller answers the poll itself.
    bool park(const std::string& agent_id, std::shared_ptr<http::DeferredReply> reply,
              std::chrono::milliseconds wait);
    // The CommandQueue's ready listener: the agent has a new command.
    void on_ready(const std::string& agent_id);
    // Answers the agent's held poll, if any, with `status` and `body` at once
    // (an agent shut out: its certificate was revoked).
    void refuse(const std::string& agent_id, int status, const std::string& body);
    // Answers every held poll (empty lists), refuses later ones, joins the
    // thread. Idempotent.
    void stop();

    size_t held() const;

  private:
    using Time = std::chrono::steady_clock::time_point;
    struct Held {
        std::shared_ptr<http::DeferredReply> reply;
        uint64_t ticket = 0;
    };
    struct Deadline {
        Time at;
        uint64_t ticket;
        std::string agent_id;
        bool operator>(const Deadline& o) const { return at > o.at; }
    };

    // The client of the held poll `ticket` hung up: forget it unanswered.
    void drop(const std::string& agent_id, uint64_t ticket);
    void run() noexcept;
    // One wake-up's work; false once stopping.
    bool run_once();
    void answer(const std::string& agent_id, const std::shared_ptr<http::DeferredReply>& reply);

    fleet::CommandQueue& queue_;
    const Answer answer_;
    const size_t capacity_;
    const StillConnected still_connected_;
    const std::chrono::milliseconds touch_interval_;
    const int niceness_;
    Time next_touch_;  // run thread only

    mutable std::mutex mu_;
    std::condition_variable wake_;
    // Guarded by mu_:
    std::unordered_map<std::string, Held> held_;
    std::priority_queue<Deadline, std::vector<Deadline>, std::greater<>> deadlines_;
    std::vector<std::string> ready_;
    uint64_t next_ticket_ = 1;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace yuzu::agentapi
