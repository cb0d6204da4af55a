#include "agentapi/poll_parking.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "yuzu/common/thread_guard.hpp"
#include "yuzu/common/thread_priority.hpp"

namespace yuzu::agentapi {

PollParking::PollParking(fleet::CommandQueue& queue, Answer answer, size_t capacity,
                         StillConnected still_connected, std::chrono::milliseconds touch_interval,
                         int niceness)
    : queue_(queue),
      answer_(std::move(answer)),
      capacity_(capacity),
      still_connected_(std::move(still_connected)),
      touch_interval_(touch_interval),
      niceness_(niceness),
      next_touch_(std::chrono::steady_clock::now() + touch_interval) {
    thread_ = std::thread([this]() noexcept { run(); });
}

PollParking::~PollParking() {
    stop();
}

bool PollParking::park(const std::string& agent_id, std::shared_ptr<http::DeferredReply> reply,
                       std::chrono::milliseconds wait) {
    const std::shared_ptr<http::DeferredReply> handle = reply;
    std::shared_ptr<http::DeferredReply> superseded;
    uint64_t ticket = 0;
    {
        std::lock_guard lock(mu_);
        if (stopping_) return false;
        auto it = held_.find(agent_id);
        if (it == held_.end() && held_.size() >= capacity_) return false;
        ticket = next_ticket_++;
        if (it != held_.end()) {
            superseded = std::move(it->second.reply);
            it->second = Held{std::move(reply), ticket};
        } else {
            held_.emplace(agent_id, Held{std::move(reply), ticket});
        }
        deadlines_.push(Deadline{std::chrono::steady_clock::now() + wait, ticket, agent_id});
    }
    wake_.notify_one();
    // An agent that dies while its poll is held must not stay connected
    // (and online) until the wait ends.
    handle->on_client_gone([this, agent_id, ticket] { drop(agent_id, ticket); });
    // The older poll's connection is usually one its agent gave up on: it
    // gets an empty list, never a command that would be wasted on it.
    if (superseded) superseded->send_json(200, answer_(agent_id, {}));
    // A command queued after the caller found the queue empty but before
    // the poll was held here rang no bell for it: look once more.
    if (queue_.queued(agent_id) > 0) on_ready(agent_id);
    return true;
}

void PollParking::drop(const std::string& agent_id, uint64_t ticket) {
    std::lock_guard lock(mu_);
    auto it = held_.find(agent_id);
    if (it != held_.end() && it->second.ticket == ticket) held_.erase(it);
}

void PollParking::on_ready(const std::string& agent_id) {
    {
        std::lock_guard lock(mu_);
        if (stopping_ || held_.find(agent_id) == held_.end()) return;
        ready_.push_back(agent_id);
    }
    wake_.notify_one();
}

void PollParking::refuse(const std::string& agent_id, int status, const std::string& body) {
    Held held;
    {
        std::lock_guard lock(mu_);
        auto it = held_.find(agent_id);
        if (it == held_.end()) return;
        held = std::move(it->second);
        held_.erase(it);
    }
    (void)run_guarded("agent.poll_parking",
                      [&held, status, &body] { held.reply->send_json(status, body); });
}

void PollParking::stop() {
    std::unordered_map<std::string, Held> held;
    {
        std::lock_guard lock(mu_);
        if (stopping_) return;
        stopping_ = true;
        held.swap(held_);
    }
    wake_.notify_one();
    if (thread_.joinable()) thread_.join();
    for (auto& entry : held) {
        // Runs from destructors too: a throw is logged and counted, and that
        // poll's connection is closed when its reply is dropped.
        (void)run_guarded("agent.poll_parking", [this, &entry] {
            entry.second.reply->send_json(200, answer_(entry.first, {}));
        });
    }
}

size_t PollParking::held() const {
    std::lock_guard lock(mu_);
    return held_.size();
}

void PollParking::answer(const std::string& agent_id,
                         const std::shared_ptr<http::DeferredReply>& reply) {
    reply->send_json(200, answer_(agent_id, queue_.take(agent_id)));
}

void PollParking::run() noexcept {
    if (Status s = lower_thread_priority(niceness_); !s.ok()) {
        spdlog::warn("agent.poll_parking: {}", s.message());
    }
    for (bool more = true; more;) {
        // An iteration that throws is logged and counted; the loop goes on.
        if (!run_guarded("agent.poll_parking", [this, &more] { more = run_once(); })) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
}

bool PollParking::run_once() {
    std::vector<std::pair<std::string, std::shared_ptr<http::DeferredReply>>> due;
    std::vector<std::string> still;
    {
        std::unique_lock lock(mu_);
        for (;;) {
            if (stopping_) return false;
            if (!ready_.empty()) break;
            const auto now = std::chrono::steady_clock::now();
            if (!deadlines_.empty() && deadlines_.top().at <= now) break;
            if (still_connected_ && now >= next_touch_) break;
            Time until = still_connected_ ? next_touch_ : Time::max();
            if (!deadlines_.empty()) until = std::min(until, deadlines_.top().at);
            if (until == Time::max()) {
                wake_.wait(lock);
            } else {
                wake_.wait_until(lock, until);
            }
        }
        if (still_connected_ && std::chrono::steady_clock::now() >= next_touch_) {
            next_touch_ = std::chrono::steady_clock::now() + touch_interval_;
            still.reserve(held_.size());
            for (const auto& [agent_id, h] : held_) still.push_back(agent_id);
        }
        std::vector<std::string> ready;
        ready.swap(ready_);
        for (const std::string& agent_id : ready) {
            auto it = held_.find(agent_id);
            if (it == held_.end()) continue;  // answered already
            due.emplace_back(agent_id, std::move(it->second.reply));
            held_.erase(it);
        }
        const auto now = std::chrono::steady_clock::now();
        while (!deadlines_.empty() && deadlines_.top().at <= now) {
            Deadline d = deadlines_.top();
            deadlines_.pop();
            auto it = held_.find(d.agent_id);
            // A later poll of the same agent has its own deadline.
            if (it == held_.end() || it->second.ticket != d.ticket) continue;
            due.emplace_back(d.agent_id, std::move(it->second.reply));
            held_.erase(it);
        }
    }
    if (!still.empty()) still_connected_(still);
    for (const auto& [agent_id, reply] : due) answer(agent_id, reply);
    return true;
}

}  // namespace yuzu::agentapi
