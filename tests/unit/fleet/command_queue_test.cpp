#include "yuzu/fleet/command_queue.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "yuzu/common/clock.hpp"

namespace yuzu::fleet {
namespace {

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

class CommandQueueTest : public ::testing::Test {
  protected:
    ManualClock clock_;
    CommandQueue queue_{clock_, 3, 3};
};

TEST_F(CommandQueueTest, TakeHandsOutAnAgentsCommandsOldestFirst) {
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c2")).ok());
    ASSERT_TRUE(queue_.enqueue("agent-b", command("c3")).ok());
    EXPECT_EQ(queue_.undelivered(), 3u);

    auto got = queue_.take("agent-a");
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].command_id, "c1");
    EXPECT_EQ(got[1].command_id, "c2");
    EXPECT_EQ(got[0].plugin, "os");
    EXPECT_EQ(got[0].params_json, R"({"verbose":true})");
    EXPECT_EQ(got[0].queued_at_ms, clock_.now_ms());
    EXPECT_EQ(got[0].deliveries, 1);
    // Delivered but not answered: still queued, no longer in the backlog.
    EXPECT_EQ(queue_.queued("agent-a"), 2u);
    EXPECT_EQ(queue_.undelivered(), 1u);
    EXPECT_TRUE(queue_.take("agent-c").empty());
}

// The regression behind lost answers: a command whose poll answer (or whose
// result) was lost on the way used to wait two minutes for a timed
// redelivery, past its execution's deadline. The agent polls again only
// after answering, so the next poll hands it out again at once.
TEST_F(CommandQueueTest, TheNextPollHandsOutAnUnansweredCommandAgain) {
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    ASSERT_EQ(queue_.take("agent-a").size(), 1u);
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c2")).ok());
    auto again = queue_.take("agent-a");
    ASSERT_EQ(again.size(), 2u);
    EXPECT_EQ(again[0].command_id, "c1");
    EXPECT_EQ(again[0].deliveries, 2);
    EXPECT_EQ(again[1].command_id, "c2");
    EXPECT_EQ(again[1].deliveries, 1);
    ASSERT_TRUE(queue_.complete("agent-a", "c1"));
    auto last = queue_.take("agent-a");
    ASSERT_EQ(last.size(), 1u);
    EXPECT_EQ(last[0].command_id, "c2");
}

TEST_F(CommandQueueTest, ACommandNeverAnsweredIsAbandonedAfterMaxDeliveries) {
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    for (int i = 1; i <= 3; ++i) {
        auto got = queue_.take("agent-a");
        ASSERT_EQ(got.size(), 1u);
        EXPECT_EQ(got[0].deliveries, i);
    }
    uint64_t abandoned = 0;
    EXPECT_TRUE(queue_.take("agent-a", &abandoned).empty());
    EXPECT_EQ(abandoned, 1u);
    EXPECT_EQ(queue_.abandoned(), 1u);
    EXPECT_EQ(queue_.queued("agent-a"), 0u);
}

TEST_F(CommandQueueTest, CompleteAndCancelForgetCommands) {
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c2")).ok());
    ASSERT_EQ(queue_.take("agent-a").size(), 2u);
    EXPECT_TRUE(queue_.complete("agent-a", "c1"));
    EXPECT_FALSE(queue_.complete("agent-a", "c1"));  // a duplicate result
    EXPECT_FALSE(queue_.complete("agent-b", "c2"));  // another agent's command
    EXPECT_TRUE(queue_.cancel("agent-a", "c2"));
    EXPECT_FALSE(queue_.cancel("agent-a", "c2"));
    EXPECT_EQ(queue_.queued("agent-a"), 0u);
    EXPECT_TRUE(queue_.take("agent-a").empty());
    // An undelivered command cancelled leaves the backlog too.
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c3")).ok());
    EXPECT_TRUE(queue_.cancel("agent-a", "c3"));
    EXPECT_EQ(queue_.undelivered(), 0u);
}

TEST_F(CommandQueueTest, BoundedPerAgentAndIdsAreUnique) {
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    EXPECT_EQ(queue_.enqueue("agent-a", command("c1")).code(), StatusCode::kAlreadyExists);
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c2")).ok());
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c3")).ok());
    EXPECT_EQ(queue_.enqueue("agent-a", command("c4")).code(), StatusCode::kResourceExhausted);
    // Delivered commands still count until they complete.
    ASSERT_EQ(queue_.take("agent-a").size(), 3u);
    EXPECT_EQ(queue_.enqueue("agent-a", command("c4")).code(), StatusCode::kResourceExhausted);
    ASSERT_TRUE(queue_.complete("agent-a", "c2"));
    EXPECT_TRUE(queue_.enqueue("agent-a", command("c4")).ok());
    // The same id may be queued for another agent.
    EXPECT_TRUE(queue_.enqueue("agent-b", command("c1")).ok());
    EXPECT_EQ(queue_.enqueue("agent-b", command("")).code(), StatusCode::kInvalidArgument);
}

TEST_F(CommandQueueTest, TheReadyListenerNamesTheAgentAfterTheCommandIsQueued) {
    std::vector<std::string> told;
    size_t queued_when_told = 0;
    queue_.set_ready_listener([&](const std::string& agent_id) {
        told.push_back(agent_id);
        // Outside the queue's lock, and the command is there already.
        queued_when_told = queue_.queued(agent_id);
    });
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    EXPECT_EQ(queue_.enqueue("agent-a", command("c1")).code(), StatusCode::kAlreadyExists);
    ASSERT_TRUE(queue_.enqueue("agent-b", command("c2")).ok());
    EXPECT_EQ(told, (std::vector<std::string>{"agent-a", "agent-b"}));
    EXPECT_EQ(queued_when_told, 1u);
}

TEST_F(CommandQueueTest, ShutdownRefusesEnqueuesAndEmptiesTakes) {
    ASSERT_TRUE(queue_.enqueue("agent-a", command("c1")).ok());
    queue_.shutdown();
    EXPECT_EQ(queue_.enqueue("agent-b", command("c2")).code(), StatusCode::kUnavailable);
    EXPECT_TRUE(queue_.take("agent-a").empty());
}

}  // namespace
}  // namespace yuzu::fleet
