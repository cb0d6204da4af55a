#include "yuzu/fleet/command_queue.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cassert>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace yuzu::fleet {
namespace {

struct Entry {
    AgentCommand command;
    bool delivered = false;
};

}  // namespace

struct CommandQueue::State {
    const Clock& clock;
    const size_t max_per_agent;
    const int max_deliveries;

    mutable std::mutex mu;
    // Guarded by mu:
    std::unordered_map<std::string, std::deque<Entry>> queues;
    size_t undelivered = 0;
    uint64_t abandoned = 0;
    bool shut_down = false;
    ReadyListener listener;

    State(const Clock& c, size_t max, int deliveries)
        : clock(c), max_per_agent(max), max_deliveries(deliveries) {}

    bool remove(const std::string& agent_id, const std::string& command_id) {
        std::lock_guard lock(mu);
        auto it = queues.find(agent_id);
        if (it == queues.end()) return false;
        auto& entries = it->second;
        auto found = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) {
            return e.command.command_id == command_id;
        });
        if (found == entries.end()) return false;
        if (!found->delivered) --undelivered;
        entries.erase(found);
        if (entries.empty()) queues.erase(it);
        return true;
    }
};

CommandQueue::CommandQueue(const Clock& clock, size_t max_per_agent, int max_deliveries)
    : state_(std::make_unique<State>(clock, max_per_agent, max_deliveries)) {
    assert(max_per_agent > 0);
    assert(max_deliveries > 0);
}

CommandQueue::~CommandQueue() = default;

Status CommandQueue::enqueue(const std::string& agent_id, AgentCommand command) {
    if (agent_id.empty() || command.command_id.empty()) {
        return Status::InvalidArgument("a queued command needs an agent id and a command id");
    }
    ReadyListener listener;
    {
        std::lock_guard lock(state_->mu);
        if (state_->shut_down) {
            return Status::Unavailable(
                "the command queue is shutting down; the server is stopping");
        }
        auto& entries = state_->queues[agent_id];
        const bool repeated = std::any_of(entries.begin(), entries.end(), [&](const Entry& e) {
            return e.command.command_id == command.command_id;
        });
        if (repeated || entries.size() >= state_->max_per_agent) {
            if (entries.empty()) state_->queues.erase(agent_id);
            if (repeated) {
                return Status::AlreadyExists("command '" + command.command_id +
                                             "' is already queued for agent '" + agent_id + "'");
            }
            return Status::ResourceExhausted("agent '" + agent_id + "' already has " +
                                             std::to_string(state_->max_per_agent) +
                                             " commands queued; retry when it has caught up");
        }
        command.queued_at_ms = state_->clock.now_ms();
        command.deliveries = 0;
        entries.push_back(Entry{std::move(command), false});
        ++state_->undelivered;
        listener = state_->listener;
    }
    if (listener) listener(agent_id);
    return Status::Ok();
}

std::vector<AgentCommand> CommandQueue::take(const std::string& agent_id, uint64_t* abandoned) {
    std::vector<AgentCommand> out;
    std::lock_guard lock(state_->mu);
    if (state_->shut_down) return out;
    auto it = state_->queues.find(agent_id);
    if (it == state_->queues.end()) return out;
    auto& entries = it->second;
    for (auto e = entries.begin(); e != entries.end();) {
        if (e->command.deliveries >= state_->max_deliveries) {
            // Handed out that often and never answered: the answer cannot
            // get through. The execution's deadline settles it.
            spdlog::warn(
                "fleet: command {} abandoned after {} deliveries to agent {} without "
                "an answer",
                e->command.command_id, e->command.deliveries, agent_id);
            ++state_->abandoned;
            if (abandoned != nullptr) ++*abandoned;
            e = entries.erase(e);
            continue;
        }
        if (!e->delivered) --state_->undelivered;
        e->delivered = true;
        ++e->command.deliveries;
        out.push_back(e->command);
        ++e;
    }
    if (entries.empty()) state_->queues.erase(it);
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
    return it == state_->queues.end() ? 0 : it->second.size();
}

size_t CommandQueue::undelivered() const {
    std::lock_guard lock(state_->mu);
    return state_->undelivered;
}

uint64_t CommandQueue::abandoned() const {
    std::lock_guard lock(state_->mu);
    return state_->abandoned;
}

void CommandQueue::set_ready_listener(ReadyListener listener) {
    std::lock_guard lock(state_->mu);
    state_->listener = std::move(listener);
}

void CommandQueue::shutdown() {
    std::lock_guard lock(state_->mu);
    state_->shut_down = true;
}

}  // namespace yuzu::fleet
