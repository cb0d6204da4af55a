#include "yuzu/execution/event_bus.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace yuzu::execution {
namespace {

using std::chrono::milliseconds;

ExecutionEvent event_for(const std::string& execution_id, ExecutionEventType type,
                         const std::string& agent_id = "") {
    ExecutionEvent e;
    e.type = type;
    e.execution_id = execution_id;
    e.agent_id = agent_id;
    e.status = "running";
    return e;
}

TEST(ExecutionEventBus, DeliversInPublishOrderWithIncreasingSeq) {
    ExecutionEventBus bus;
    Subscription sub = bus.subscribe();
    const uint64_t first = bus.publish(event_for("e1", ExecutionEventType::kDispatched));
    const uint64_t second = bus.publish(event_for("e1", ExecutionEventType::kAgentResponded, "a"));
    const uint64_t third = bus.publish(event_for("e1", ExecutionEventType::kCompleted));
    EXPECT_LT(first, second);
    EXPECT_LT(second, third);

    auto a = sub.pop(milliseconds(0));
    auto b = sub.pop(milliseconds(0));
    auto c = sub.pop(milliseconds(0));
    ASSERT_TRUE(a && b && c);
    EXPECT_EQ(a->type, ExecutionEventType::kDispatched);
    EXPECT_EQ(a->seq, first);
    EXPECT_EQ(b->agent_id, "a");
    EXPECT_EQ(b->seq, second);
    EXPECT_EQ(c->type, ExecutionEventType::kCompleted);
    EXPECT_FALSE(sub.pop(milliseconds(0)).has_value());
    EXPECT_EQ(bus.published_total(), 3u);
}

TEST(ExecutionEventBus, ExecutionFilterSeesOnlyItsExecution) {
    ExecutionEventBus bus;
    Subscription only_e2 = bus.subscribe("e2");
    Subscription all = bus.subscribe();
    bus.publish(event_for("e1", ExecutionEventType::kDispatched));
    bus.publish(event_for("e2", ExecutionEventType::kDispatched));
    bus.publish(event_for("e1", ExecutionEventType::kCompleted));

    auto got = only_e2.pop(milliseconds(0));
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->execution_id, "e2");
    EXPECT_FALSE(only_e2.pop(milliseconds(0)).has_value());
    EXPECT_EQ(all.queued(), 3u);
}

TEST(ExecutionEventBus, FullQueueDropsOldestAndCountsDrops) {
    ExecutionEventBus bus;
    Subscription small = bus.subscribe("", 3);
    Subscription roomy = bus.subscribe("", 100);
    std::vector<uint64_t> seqs;
    for (int i = 0; i < 5; ++i) {
        seqs.push_back(bus.publish(
            event_for("e", ExecutionEventType::kAgentResponded, "agent" + std::to_string(i))));
    }
    EXPECT_EQ(small.dropped(), 2u);
    EXPECT_EQ(roomy.dropped(), 0u);
    EXPECT_EQ(bus.dropped_total(), 2u);
    // The newest three survive, still in order.
    for (int i = 2; i < 5; ++i) {
        auto e = small.pop(milliseconds(0));
        ASSERT_TRUE(e.has_value());
        EXPECT_EQ(e->seq, seqs[static_cast<size_t>(i)]);
        EXPECT_EQ(e->agent_id, "agent" + std::to_string(i));
    }
    EXPECT_EQ(roomy.queued(), 5u);
}

TEST(ExecutionEventBus, CapacityIsClampedToAtLeastOne) {
    ExecutionEventBus bus;
    Subscription sub = bus.subscribe("", 0);
    bus.publish(event_for("e", ExecutionEventType::kDispatched));
    bus.publish(event_for("e", ExecutionEventType::kCompleted));
    EXPECT_EQ(sub.queued(), 1u);
    EXPECT_EQ(sub.dropped(), 1u);
    EXPECT_EQ(sub.pop(milliseconds(0))->type, ExecutionEventType::kCompleted);
}

TEST(ExecutionEventBus, PopTimesOutWhenNothingArrives) {
    ExecutionEventBus bus;
    Subscription sub = bus.subscribe();
    const auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(sub.pop(milliseconds(30)).has_value());
    EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(25));
}

TEST(ExecutionEventBus, PopWakesWhenAnotherThreadPublishes) {
    ExecutionEventBus bus;
    Subscription sub = bus.subscribe();
    std::thread publisher([&] {
        std::this_thread::sleep_for(milliseconds(20));
        bus.publish(event_for("e", ExecutionEventType::kCompleted));
    });
    auto e = sub.pop(milliseconds(5000));
    publisher.join();
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->type, ExecutionEventType::kCompleted);
}

TEST(ExecutionEventBus, ShutdownClosesSubscriptionsButQueuedEventsStillPop) {
    ExecutionEventBus bus;
    Subscription sub = bus.subscribe();
    bus.publish(event_for("e", ExecutionEventType::kDispatched));
    std::thread closer([&] {
        std::this_thread::sleep_for(milliseconds(20));
        bus.shutdown();
    });
    EXPECT_TRUE(sub.pop(milliseconds(0)).has_value());
    // Wakes at shutdown rather than waiting out the timeout.
    const auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(sub.pop(milliseconds(10'000)).has_value());
    EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(5000));
    closer.join();
    EXPECT_TRUE(sub.closed());
    EXPECT_EQ(bus.publish(event_for("e", ExecutionEventType::kCompleted)), 0u);
    Subscription late = bus.subscribe();
    EXPECT_TRUE(late.closed());
    EXPECT_FALSE(late.pop(milliseconds(0)).has_value());
    EXPECT_EQ(bus.subscribers(), 0u);
}

TEST(ExecutionEventBus, DestroyingOrReplacingASubscriptionUnsubscribes) {
    ExecutionEventBus bus;
    {
        Subscription a = bus.subscribe();
        Subscription b = bus.subscribe("x");
        EXPECT_EQ(bus.subscribers(), 2u);
        a = std::move(b);  // a's first queue goes away
        EXPECT_EQ(bus.subscribers(), 1u);
        Subscription c(std::move(a));
        EXPECT_EQ(bus.subscribers(), 1u);
        bus.publish(event_for("x", ExecutionEventType::kDispatched));
        EXPECT_EQ(c.queued(), 1u);
    }
    EXPECT_EQ(bus.subscribers(), 0u);
}

TEST(ExecutionEventBus, SubscriptionMayOutliveTheBus) {
    auto bus = std::make_unique<ExecutionEventBus>();
    Subscription sub = bus->subscribe();
    bus->publish(event_for("e", ExecutionEventType::kCompleted));
    bus.reset();
    EXPECT_TRUE(sub.closed());
    EXPECT_TRUE(sub.pop(milliseconds(0)).has_value());
    EXPECT_FALSE(sub.pop(milliseconds(0)).has_value());
}

TEST(ExecutionEventBus, ConcurrentPublishersKeepEachQueueInSeqOrder) {
    ExecutionEventBus bus;
    constexpr int kThreads = 4;
    constexpr int kPerThread = 500;
    Subscription sub = bus.subscribe("", kThreads * kPerThread);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&bus, t] {
            for (int i = 0; i < kPerThread; ++i) {
                bus.publish(
                    event_for("e" + std::to_string(t), ExecutionEventType::kAgentResponded));
            }
        });
    }
    for (auto& t : threads) t.join();
    uint64_t last = 0;
    int count = 0;
    while (auto e = sub.pop(milliseconds(0))) {
        EXPECT_GT(e->seq, last);
        last = e->seq;
        ++count;
    }
    EXPECT_EQ(count, kThreads * kPerThread);
    EXPECT_EQ(sub.dropped(), 0u);
}

TEST(ExecutionEventBus, EventTypeNamesAreTheSseNames) {
    EXPECT_EQ(event_type_name(ExecutionEventType::kDispatched), "dispatched");
    EXPECT_EQ(event_type_name(ExecutionEventType::kAgentResponded), "agent_responded");
    EXPECT_EQ(event_type_name(ExecutionEventType::kAgentFailed), "agent_failed");
    EXPECT_EQ(event_type_name(ExecutionEventType::kAgentTimedOut), "agent_timed_out");
    EXPECT_EQ(event_type_name(ExecutionEventType::kAgentOffline), "agent_offline");
    EXPECT_EQ(event_type_name(ExecutionEventType::kCompleted), "completed");
}

}  // namespace
}  // namespace yuzu::execution
