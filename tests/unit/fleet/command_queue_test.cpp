#include "yuzu/fleet/command_queue.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "yuzu/common/clock.hpp"

namespace yuzu::fleet {
namespace {

using namespace std::chrono_literals;

AgentCommand command(const std::string& id) {
    AgentCommand c;
    c.command_id = id;
    c.execution_id = "exec-" + id;
    c.plugin = "os";
    c.action = "info";
    c.params_json = R"({"verbose":true})";
    c.timeout_s = 30;
    return c;
}

// Polls `pred` for up to two seconds (real time): for state another thread
// reaches.
template <typename Pred>
bool eventually(Pred pred) {
    const auto until = std::chrono::steady_clock::now() + 2s;
    while (std::chrono::steady_clock::now() < until) {
        if (pred()) return true;
        std::this_thread::sleep_for(1ms);
    }
    return pred();
}

class CommandQueueTest : public ::testing::Test {
  protected:
    ManualClock clock_;
    CommandQueue queue_{clock_, 3, 60'000};
};

TEST_F(CommandQueueTest, ReadyCommandsAreReturnedAtOnceAndDeliveredOnce) {
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c2")).ok());
    ASSERT_TRUE(queue_.enqueue("agent-b", command("c3")).ok());

    const auto start = std::chrono::steady_clock::now();
    auto got = queue_.wait_for_commands("agent-a", 5s);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].command_id, "c1");
    EXPECT_EQ(got[1].command_id, "c2");
    EXPECT_EQ(got[0].plugin, "os");
    EXPECT_EQ(got[0].params_json, R"({"verbose":true})");
    EXPECT_EQ(got[0].queued_at_ms, clock_.now_ms());

    // Delivered but not completed: still queued, not handed out again yet.
    EXPECT_EQ(queue_.queued("agent-a"), 2u);
    EXPECT_TRUE(queue_.wait_for_commands("agent-a", 10ms).empty());
    EXPECT_EQ(queue_.wait_for_commands("agent-b", 0ms).size(), 1u);
}

TEST_F(CommandQueueTest, WaitTimesOutEmptyHanded) {
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(queue_.wait_for_commands("agent-a", 50ms).empty());
    EXPECT_GE(std::chrono::steady_clock::now() - start, 50ms);
    EXPECT_EQ(queue_.waiters(), 0u);
}

TEST_F(CommandQueueTest, EnqueueWakesAWaiter) {
    std::vector<AgentCommand> got;
    std::thread poller([&] { got = queue_.wait_for_commands("agent-a", 10s); });
    EXPECT_TRUE(eventually([&] { return queue_.waiters() == 1; }));
    // A command for someone else does not wake this agent's poll.
    EXPECT_TRUE(queue_.enqueue("agent-b", command("other")).ok());
    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(queue_.waiters(), 1u);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    poller.join();
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].command_id, "c1");
    EXPECT_EQ(queue_.waiters(), 0u);
}

TEST_F(CommandQueueTest, CompleteAndCancelForgetCommands) {
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c2")).ok());
    ASSERT_EQ(queue_.wait_for_commands("agent-a", 0ms).size(), 2u);
    EXPECT_TRUE(queue_.complete("agent-a", "c1"));
    EXPECT_FALSE(queue_.complete("agent-a", "c1"));  // a duplicate result
    EXPECT_FALSE(queue_.complete("agent-b", "c2"));  // another agent's command
    EXPECT_TRUE(queue_.cancel("agent-a", "c2"));
    EXPECT_FALSE(queue_.cancel("agent-a", "c2"));
    EXPECT_EQ(queue_.queued("agent-a"), 0u);
    clock_.advance_ms(120'000);
    EXPECT_TRUE(queue_.wait_for_commands("agent-a", 0ms).empty());
}

TEST_F(CommandQueueTest, UncompletedCommandsAreRedelivered) {
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    ASSERT_EQ(queue_.wait_for_commands("agent-a", 0ms).size(), 1u);
    clock_.advance_ms(59'999);
    EXPECT_TRUE(queue_.wait_for_commands("agent-a", 0ms).empty());
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c2")).ok());
    clock_.advance_ms(1);
    auto again = queue_.wait_for_commands("agent-a", 0ms);
    ASSERT_EQ(again.size(), 2u);
    EXPECT_EQ(again[0].command_id, "c1");
    EXPECT_EQ(again[1].command_id, "c2");
    // Redelivery restarts the timer.
    EXPECT_TRUE(queue_.wait_for_commands("agent-a", 0ms).empty());
    ASSERT_TRUE(queue_.complete("agent-a", "c1"));
    clock_.advance_ms(60'000);
    auto last = queue_.wait_for_commands("agent-a", 0ms);
    ASSERT_EQ(last.size(), 1u);
    EXPECT_EQ(last[0].command_id, "c2");
}

TEST_F(CommandQueueTest, BoundedPerAgentAndIdsAreUnique) {
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    EXPECT_EQ(queue_.enqueue("agent-a", command("c1")).code(), StatusCode::kAlreadyExists);
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c2")).ok());
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c3")).ok());
    EXPECT_EQ(queue_.enqueue("agent-a", command("c4")).code(), StatusCode::kResourceExhausted);
    // Delivered commands still count until they complete.
    ASSERT_EQ(queue_.wait_for_commands("agent-a", 0ms).size(), 3u);
    EXPECT_EQ(queue_.enqueue("agent-a", command("c4")).code(), StatusCode::kResourceExhausted);
    ASSERT_TRUE(queue_.complete("agent-a", "c2"));
    EXPECT_TRUE(queue_.enqueue("agent-a", command("c4")).ok());
    // The same id may be queued for another agent.
    EXPECT_TRUE(queue_.enqueue("agent-b", command("c1")).ok());
    EXPECT_EQ(queue_.enqueue("agent-b", command("")).code(), StatusCode::kInvalidArgument);
}

TEST_F(CommandQueueTest, ShutdownWakesWaitersAndLaterWaitsReturnAtOnce) {
    std::atomic<int> returned{0};
    std::vector<std::thread> pollers;
    for (const char* agent : {"agent-a", "agent-a", "agent-b"}) {
        pollers.emplace_back([&, agent] {
            EXPECT_TRUE(queue_.wait_for_commands(agent, 30s).empty());
            ++returned;
        });
    }
    EXPECT_TRUE(eventually([&] { return queue_.waiters() == 3; }));
    EXPECT_EQ(returned.load(), 0);
    const auto start = std::chrono::steady_clock::now();
    queue_.shutdown();
    for (auto& t : pollers) t.join();
    EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
    EXPECT_EQ(returned.load(), 3);
    EXPECT_EQ(queue_.waiters(), 0u);

    ASSERT_TRUE(queue_.enqueue("agent-c", command("c1")).code() == StatusCode::kUnavailable);
    const auto again = std::chrono::steady_clock::now();
    EXPECT_TRUE(queue_.wait_for_commands("agent-c", 30s).empty());
    EXPECT_LT(std::chrono::steady_clock::now() - again, 1s);
}

TEST(CommandQueueRedelivery, AHeldPollPicksUpARedeliveryWhenItFallsDue) {
    // A real clock: the poll must wake for the redelivery, not the deadline.
    CommandQueue queue(SystemClock::instance(), 8, 100);
    ASSERT_TRUE(queue.enqueue("agent-a", command("c1")).ok());
    ASSERT_EQ(queue.wait_for_commands("agent-a", 0ms).size(), 1u);
    const auto start = std::chrono::steady_clock::now();
    auto again = queue.wait_for_commands("agent-a", 10s);
    const auto waited = std::chrono::steady_clock::now() - start;
    ASSERT_EQ(again.size(), 1u);
    EXPECT_EQ(again[0].command_id, "c1");
    EXPECT_LT(waited, 5s);
    EXPECT_GE(waited, 50ms);
}

TEST(CommandQueueLifetime, DestructorWaitsForAHeldPoll) {
    std::atomic<bool> done{false};
    std::thread poller;
    {
        CommandQueue queue(SystemClock::instance(), 8);
        poller = std::thread([&] {
            EXPECT_TRUE(queue.wait_for_commands("agent-a", 30s).empty());
            done = true;
        });
        EXPECT_TRUE(eventually([&] { return queue.waiters() == 1; }));
    }  // ~CommandQueue wakes the poll and returns only once it has left
    poller.join();
    EXPECT_TRUE(done.load());
}

}  // namespace
}  // namespace yuzu::fleet
