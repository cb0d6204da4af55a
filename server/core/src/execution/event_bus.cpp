#include "yuzu/execution/event_bus.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

namespace yuzu::execution {

std::string_view event_type_name(ExecutionEventType type) {
    switch (type) {
        case ExecutionEventType::kDispatched:
            return "dispatched";
        case ExecutionEventType::kAgentResponded:
            return "agent_responded";
        case ExecutionEventType::kAgentFailed:
            return "agent_failed";
        case ExecutionEventType::kAgentTimedOut:
            return "agent_timed_out";
        case ExecutionEventType::kAgentOffline:
            return "agent_offline";
        case ExecutionEventType::kCompleted:
            return "completed";
    }
    return "unknown";
}

// One subscriber's bounded queue.
struct Subscription::Mailbox {
    Mailbox(std::string id, size_t cap) : execution_id(std::move(id)), capacity(cap) {}

    const std::string execution_id;  // "" = every execution
    const size_t capacity;

    mutable std::mutex mu;
    std::condition_variable cv;
    // Guarded by mu:
    std::deque<ExecutionEvent> queue;
    uint64_t dropped = 0;
    bool closed = false;

    void close() {
        {
            std::lock_guard lock(mu);
            closed = true;
        }
        cv.notify_all();
    }
};

// The bus's state, shared with its subscriptions so that a Subscription may
// outlive the bus. Lock order: Registry::mu → Mailbox::mu.
struct Subscription::Registry {
    mutable std::mutex mu;
    // Guarded by mu:
    std::vector<std::shared_ptr<Mailbox>> mailboxes;
    uint64_t next_seq = 1;
    uint64_t dropped_total = 0;
    bool shut_down = false;
};

Subscription::Subscription(std::shared_ptr<Mailbox> mailbox, std::shared_ptr<Registry> registry)
    : mailbox_(std::move(mailbox)), registry_(std::move(registry)) {}

Subscription::Subscription(Subscription&& other) noexcept
    : mailbox_(std::move(other.mailbox_)), registry_(std::move(other.registry_)) {}

Subscription& Subscription::operator=(Subscription&& other) noexcept {
    if (this != &other) {
        unsubscribe();
        mailbox_ = std::move(other.mailbox_);
        registry_ = std::move(other.registry_);
    }
    return *this;
}

Subscription::~Subscription() {
    unsubscribe();
}

void Subscription::unsubscribe() {
    if (registry_ && mailbox_) {
        std::lock_guard lock(registry_->mu);
        std::erase(registry_->mailboxes, mailbox_);
    }
    registry_.reset();
}

std::optional<ExecutionEvent> Subscription::pop(std::chrono::milliseconds timeout) {
    if (!mailbox_) return std::nullopt;
    std::unique_lock lock(mailbox_->mu);
    mailbox_->cv.wait_for(lock, timeout,
                          [&] { return !mailbox_->queue.empty() || mailbox_->closed; });
    if (mailbox_->queue.empty()) return std::nullopt;
    ExecutionEvent event = std::move(mailbox_->queue.front());
    mailbox_->queue.pop_front();
    return event;
}

uint64_t Subscription::dropped() const {
    if (!mailbox_) return 0;
    std::lock_guard lock(mailbox_->mu);
    return mailbox_->dropped;
}

size_t Subscription::queued() const {
    if (!mailbox_) return 0;
    std::lock_guard lock(mailbox_->mu);
    return mailbox_->queue.size();
}

bool Subscription::closed() const {
    if (!mailbox_) return true;
    std::lock_guard lock(mailbox_->mu);
    return mailbox_->closed;
}

ExecutionEventBus::ExecutionEventBus() : registry_(std::make_shared<Subscription::Registry>()) {}

ExecutionEventBus::~ExecutionEventBus() {
    shutdown();
}

Subscription ExecutionEventBus::subscribe(const std::string& execution_id, size_t capacity) {
    capacity = std::clamp<size_t>(capacity, 1, kMaxSubscriberCapacity);
    auto mailbox = std::make_shared<Subscription::Mailbox>(execution_id, capacity);
    std::lock_guard lock(registry_->mu);
    if (registry_->shut_down) {
        mailbox->closed = true;  // not yet shared with anyone
        return Subscription(std::move(mailbox), nullptr);
    }
    registry_->mailboxes.push_back(mailbox);
    return Subscription(std::move(mailbox), registry_);
}

uint64_t ExecutionEventBus::publish(ExecutionEvent event) {
    std::vector<std::shared_ptr<Subscription::Mailbox>> woken;
    uint64_t seq = 0;
    {
        // Appending under the registry lock keeps every queue in seq order
        // even with concurrent publishers.
        std::lock_guard lock(registry_->mu);
        if (registry_->shut_down) return 0;
        seq = registry_->next_seq++;
        event.seq = seq;
        for (const auto& mailbox : registry_->mailboxes) {
            if (!mailbox->execution_id.empty() && mailbox->execution_id != event.execution_id) {
                continue;
            }
            std::lock_guard mailbox_lock(mailbox->mu);
            if (mailbox->queue.size() >= mailbox->capacity) {
                mailbox->queue.pop_front();  // drop-oldest: the newest state matters most
                ++mailbox->dropped;
                ++registry_->dropped_total;
            }
            mailbox->queue.push_back(event);
            woken.push_back(mailbox);
        }
    }
    for (const auto& mailbox : woken) mailbox->cv.notify_one();
    return seq;
}

void ExecutionEventBus::shutdown() {
    std::vector<std::shared_ptr<Subscription::Mailbox>> mailboxes;
    {
        std::lock_guard lock(registry_->mu);
        registry_->shut_down = true;
        mailboxes.swap(registry_->mailboxes);
    }
    for (const auto& mailbox : mailboxes) mailbox->close();
}

size_t ExecutionEventBus::subscribers() const {
    std::lock_guard lock(registry_->mu);
    return registry_->mailboxes.size();
}

uint64_t ExecutionEventBus::published_total() const {
    std::lock_guard lock(registry_->mu);
    return registry_->next_seq - 1;
}

uint64_t ExecutionEventBus::dropped_total() const {
    std::lock_guard lock(registry_->mu);
    return registry_->dropped_total;
}

}  // namespace yuzu::execution
