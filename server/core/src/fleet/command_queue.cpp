#include "yuzu/fleet/command_queue.hpp"

#include <algorithm>
#include <cassert>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace yuzu::fleet {
namespace {

struct Entry {
    AgentCommand command;
    bool delivered = false;
    int64_t delivered_at_ms = 0;  // Clock time of the latest delivery
};

// One agent's commands and the long-polls waiting for them. Lives in a
// node-based map, so references stay valid while other agents come and go;
// it is erased only when it holds nothing and nobody waits on it.
struct AgentQueue {
    std::deque<Entry> entries;
    std::condition_variable ready;
    int waiting = 0;
};

}  // namespace

struct CommandQueue::State {
    const Clock& clock;
    const size_t max_per_agent;
    const int64_t redeliver_after_ms;

    mutable std::mutex mu;
    // Guarded by mu:
    std::unordered_map<std::string, AgentQueue> queues;
    size_t waiters = 0;
    bool shut_down = false;
    std::condition_variable all_left;  // signalled when waiters drops to 0

    State(const Clock& c, size_t max, int64_t redeliver)
        : clock(c), max_per_agent(max), redeliver_after_ms(redeliver) {}

    bool due(const Entry& e, int64_t now_ms) const {
        return !e.delivered || now_ms - e.delivered_at_ms >= redeliver_after_ms;
    }

    // Hands out what is due and marks it delivered. Caller holds mu.
    std::vector<AgentCommand> take_due(AgentQueue& q) {
        const int64_t now_ms = clock.now_ms();
        std::vector<AgentCommand> out;
        for (Entry& e : q.entries) {
            if (!due(e, now_ms)) continue;
            e.delivered = true;
            e.delivered_at_ms = now_ms;
            out.push_back(e.command);
        }
        return out;
    }

    // How long until the earliest delivered command falls due again, or
    // nullopt when none is waiting for redelivery. Caller holds mu.
    std::optional<std::chrono::milliseconds> next_redelivery(const AgentQueue& q) const {
        const int64_t now_ms = clock.now_ms();
        std::optional<int64_t> soonest;
        for (const Entry& e : q.entries) {
            if (!e.delivered) continue;
            const int64_t left = e.delivered_at_ms + redeliver_after_ms - now_ms;
            soonest = soonest ? std::min(*soonest, left) : left;
        }
        if (!soonest) return std::nullopt;
        return std::chrono::milliseconds(std::max<int64_t>(*soonest, 1));
    }

    void erase_if_idle(const std::string& agent_id) {
        auto it = queues.find(agent_id);
        if (it != queues.end() && it->second.entries.empty() && it->second.waiting == 0) {
            queues.erase(it);
        }
    }

    bool remove(const std::string& agent_id, const std::string& command_id) {
        std::lock_guard lock(mu);
        auto it = queues.find(agent_id);
        if (it == queues.end()) return false;
        auto& entries = it->second.entries;
        auto found = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) {
            return e.command.command_id == command_id;
        });
        if (found == entries.end()) return false;
        entries.erase(found);
        erase_if_idle(agent_id);
        return true;
    }
};

CommandQueue::CommandQueue(const Clock& clock, size_t max_per_agent, int64_t redeliver_after_ms)
    : state_(std::make_unique<State>(clock, max_per_agent, redeliver_after_ms)) {
    assert(max_per_agent > 0);
    assert(redeliver_after_ms > 0);
}

CommandQueue::~CommandQueue() {
    shutdown();
    // A waiter still inside wait_for_commands() touches state_; wait it out.
    std::unique_lock lock(state_->mu);
    state_->all_left.wait(lock, [this] { return state_->waiters == 0; });
}

Status CommandQueue::enqueue(const std::string& agent_id, AgentCommand command) {
    if (agent_id.empty() || command.command_id.empty()) {
        return Status::InvalidArgument("a queued command needs an agent id and a command id");
    }
    std::lock_guard lock(state_->mu);
    if (state_->shut_down) {
        return Status::Unavailable("the command queue is shutting down; the server is stopping");
    }
    AgentQueue& q = state_->queues[agent_id];
    const bool repeated = std::any_of(q.entries.begin(), q.entries.end(), [&](const Entry& e) {
        return e.command.command_id == command.command_id;
    });
    if (repeated) {
        return Status::AlreadyExists("command '" + command.command_id +
                                     "' is already queued for agent '" + agent_id + "'");
    }
    if (q.entries.size() >= state_->max_per_agent) {
        return Status::ResourceExhausted("agent '" + agent_id + "' already has " +
                                         std::to_string(state_->max_per_agent) +
                                         " commands queued; retry when it has caught up");
    }
    command.queued_at_ms = state_->clock.now_ms();
    q.entries.push_back(Entry{std::move(command), false, 0});
    q.ready.notify_all();
    return Status::Ok();
}

std::vector<AgentCommand> CommandQueue::wait_for_commands(const std::string& agent_id,
                                                          std::chrono::milliseconds wait) {
    const auto deadline = std::chrono::steady_clock::now() + wait;
    std::unique_lock lock(state_->mu);
    if (state_->shut_down) return {};
    AgentQueue& q = state_->queues[agent_id];
    ++q.waiting;
    ++state_->waiters;
    std::vector<AgentCommand> out;
    for (;;) {
        if (state_->shut_down) break;
        out = state_->take_due(q);
        if (!out.empty()) break;
        const auto now = std::chrono::steady_clock::now();
        if (now >= deadline) break;
        // Wake for a redelivery falling due before the deadline, too.
        auto until = deadline;
        if (auto next = state_->next_redelivery(q)) until = std::min(until, now + *next);
        q.ready.wait_until(lock, until);
    }
    --q.waiting;
    --state_->waiters;
    state_->erase_if_idle(agent_id);
    if (state_->waiters == 0) state_->all_left.notify_all();
    return out;
}

bool CommandQueue::complete(const std::string& agent_id, const std::string& command_id) {
    return state_->remove(agent_id, command_id);
}

bool CommandQueue::cancel(const std::string& agent_id, const std::string& command_id) {
    return state_->remove(agent_id, command_id);
}

size_t CommandQueue::queued(const std::string& agent_id) const {
    std::lock_guard lock(state_->mu);
    auto it = state_->queues.find(agent_id);
    return it == state_->queues.end() ? 0 : it->second.entries.size();
}

size_t CommandQueue::undelivered() const {
    std::lock_guard lock(state_->mu);
    size_t count = 0;
    for (const auto& [agent, queue] : state_->queues) {
        for (const Entry& e : queue.entries) count += e.delivered ? 0 : 1;
    }
    return count;
}

size_t CommandQueue::waiters() const {
    std::lock_guard lock(state_->mu);
    return state_->waiters;
}

void CommandQueue::shutdown() {
    std::lock_guard lock(state_->mu);
    state_->shut_down = true;
    for (auto& [id, q] : state_->queues) q.ready.notify_all();
}

}  // namespace yuzu::fleet
