// ExecutionEventBus: in-process publish/subscribe of execution events
// (dispatched, per-agent transitions, completed). The MCP progress bridge and
// the REST SSE route (GET /api/v1/events) subscribe here.
//
// Delivery is by pull, never by callback: each Subscription owns a bounded
// queue that publish() appends to and pop() waits on. When a queue is full the
// OLDEST queued event is dropped to make room (the newest state, including a
// terminal `completed`, is what a lagging reader needs most), and the drop is
// counted on the subscription and on the bus. Events carry a bus-wide,
// strictly increasing `seq`, so a reader can also see the gap.
//
// Thread-safety: publish(), subscribe() and the counters are safe from any
// thread. A Subscription is used by one reader thread; its destructor
// unsubscribes and may run after the bus is gone. No lock is held while a
// reader is woken, and no user code runs under the bus's locks.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace yuzu::execution {

enum class ExecutionEventType {
    kDispatched,      // the execution row exists; counts say who was reached
    kAgentResponded,  // an agent answered "success"
    kAgentFailed,     // an agent answered failure/refused/timeout, or could not be queued
    kAgentTimedOut,   // no answer before the execution's deadline
    kAgentOffline,    // offline at dispatch: recorded, never queued
    kCompleted,       // terminal; always the execution's last event
};

// "dispatched", "agent_responded", "agent_failed", "agent_timed_out",
// "agent_offline", "completed" (the SSE event names).
std::string_view event_type_name(ExecutionEventType type);

// Per-execution tallies, as of the event. `responded` counts agents that sent
// a result of any kind; `failure` counts every settled agent that did not
// succeed (failed, refused, timed out, offline, not queued).
struct ExecutionCounts {
    int targeted = 0;
    int responded = 0;
    int success = 0;
    int failure = 0;
    int outstanding = 0;   // still "dispatched"
    int progress_pct = 0;  // settled * 100 / targeted; 100 when nobody was targeted
};

struct ExecutionEvent {
    uint64_t seq = 0;  // bus-wide, strictly increasing, set by publish()
    ExecutionEventType type = ExecutionEventType::kDispatched;
    std::string execution_id;
    std::string agent_id;     // agent events only
    std::string agent_state;  // agent events: the agent's new state
    std::string status;       // the execution's status after the event
    std::string error;        // agent_failed / agent_timed_out: why
    ExecutionCounts counts;
    int64_t at_ms = 0;
};

inline constexpr size_t kDefaultSubscriberCapacity = 1024;
inline constexpr size_t kMaxSubscriberCapacity = 65536;

class ExecutionEventBus;

// One subscriber's queue. Move-only; unsubscribes when destroyed.
class Subscription {
  public:
    Subscription(Subscription&&) noexcept;
    Subscription& operator=(Subscription&&) noexcept;
    Subscription(const Subscription&) = delete;
    Subscription& operator=(const Subscription&) = delete;
    ~Subscription();

    // The oldest queued event, waiting up to `timeout` (real time) for one.
    // nullopt on timeout, or at once when the bus has shut down and the
    // queue is empty.
    std::optional<ExecutionEvent> pop(std::chrono::milliseconds timeout);
    // Events dropped from this queue because it was full.
    uint64_t dropped() const;
    size_t queued() const;
    // The bus shut down: nothing more will arrive (queued events still pop).
    bool closed() const;

  private:
    friend class ExecutionEventBus;
    struct Mailbox;
    struct Registry;
    Subscription(std::shared_ptr<Mailbox> mailbox, std::shared_ptr<Registry> registry);
    void unsubscribe();

    std::shared_ptr<Mailbox> mailbox_;
    std::shared_ptr<Registry> registry_;
};

class ExecutionEventBus {
  public:
    ExecutionEventBus();
    ~ExecutionEventBus();  // shuts down
    ExecutionEventBus(const ExecutionEventBus&) = delete;
    ExecutionEventBus& operator=(const ExecutionEventBus&) = delete;

    // Events of one execution, or of all when `execution_id` is empty.
    // `capacity` is clamped to 1..kMaxSubscriberCapacity. After shutdown()
    // the subscription is born closed.
    Subscription subscribe(const std::string& execution_id = "",
                           size_t capacity = kDefaultSubscriberCapacity);

    // Stamps `seq`, appends to every matching queue in seq order, wakes the
    // readers, and returns the seq. A no-op returning 0 after shutdown().
    uint64_t publish(ExecutionEvent event);

    // Closes every subscription; later subscriptions are born closed.
    void shutdown();

    size_t subscribers() const;
    uint64_t published_total() const;
    uint64_t dropped_total() const;

  private:
    std::shared_ptr<Subscription::Registry> registry_;
};

}  // namespace yuzu::execution
