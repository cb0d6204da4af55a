#include "yuzu/execution/bundle_service.hpp"

#include <gtest/gtest.h>

#include <regex>

#include "unit/execution/execution_fixture.hpp"

namespace yuzu::execution::testing {
namespace {

class BundleServiceTest : public ExecutionFixture {
  protected:
    void SetUp() override {
        ExecutionFixture::SetUp();
        agent_ = enroll("web-01");
    }

    BundleRequest three_steps() {
        BundleRequest request;
        request.agent_id = agent_;
        request.requester = "alice";
        request.steps = {{"os", "info", "{}"},
                         {"process", "find", R"({"name":"sshd"})"},
                         {"disk", "usage", R"({"path":"/"})"}};
        return request;
    }

    BundleService& bundles() { return executions_->bundles(); }

    std::string agent_;
};

TEST_F(BundleServiceTest, StepsCollateInRequestOrderWhateverTheAnswerOrder) {
    auto sent = bundles().execute(three_steps());
    ASSERT_TRUE(sent.ok()) << sent.status().to_string();
    EXPECT_TRUE(std::regex_match(sent->bundle_id, std::regex("bundle-[0-9a-f]{32}")));
    EXPECT_EQ(sent->expected, 3);
    EXPECT_EQ(sent->dispatched, 3);
    EXPECT_EQ(sent->agent_id, agent_);

    auto pending = bundles().get(sent->bundle_id, "alice", false);
    ASSERT_TRUE(pending.ok()) << pending.status().to_string();
    EXPECT_FALSE(pending->complete);
    EXPECT_EQ(pending->received, 0);
    for (const auto& step : pending->steps) EXPECT_EQ(step.state, "pending");

    auto commands = take(agent_);
    ASSERT_EQ(commands.size(), 3u);
    // Answer the last step first, and fail the middle one.
    for (int i = 2; i >= 0; --i) {
        const auto& c = commands[static_cast<size_t>(i)];
        const bool fail = c.plugin == "process";
        Status answered =
            answer_command(agent_, c.command_id, fail ? "failure" : "success",
                           fail ? "null" : R"({"step":")" + c.plugin + "\"}", fail ? "denied" : "");
        ASSERT_TRUE(answered.ok()) << answered.to_string();
        if (i == 2) {
            auto partial = bundles().get(sent->bundle_id, "alice", false);
            EXPECT_EQ(partial->received, 1);
            EXPECT_FALSE(partial->complete);
            EXPECT_EQ(partial->steps[2].state, "responded");
            EXPECT_EQ(partial->steps[0].state, "pending");
        }
    }
    auto done = bundles().get(sent->bundle_id, "alice", false);
    ASSERT_TRUE(done.ok());
    EXPECT_TRUE(done->complete);
    EXPECT_EQ(done->expected, 3);
    EXPECT_EQ(done->received, 3);
    EXPECT_EQ(done->succeeded, 2);
    ASSERT_EQ(done->steps.size(), 3u);
    EXPECT_EQ(done->steps[0].plugin, "os");
    EXPECT_EQ(done->steps[0].output_json, R"({"step":"os"})");
    EXPECT_EQ(done->steps[1].plugin, "process");
    EXPECT_EQ(done->steps[1].status, "failure");
    EXPECT_EQ(done->steps[1].error, "denied");
    EXPECT_EQ(done->steps[2].action, "usage");
    EXPECT_EQ(done->steps[2].output_json, R"({"step":"disk"})");
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(done->steps[static_cast<size_t>(i)].index, i);
        EXPECT_FALSE(done->steps[static_cast<size_t>(i)].execution_id.empty());
    }
    // Each step is an ordinary execution of its own.
    EXPECT_EQ(tracker().get(done->steps[0].execution_id)->status, "succeeded");
    EXPECT_EQ(tracker().get(done->steps[1].execution_id)->status, "failed");
}

TEST_F(BundleServiceTest, StrangersGetTheSameNotFoundAsAnUnknownId) {
    auto sent = bundles().execute(three_steps());
    ASSERT_TRUE(sent.ok());
    auto stranger = bundles().get(sent->bundle_id, "mallory", false);
    auto unknown = bundles().get("bundle-0123456789abcdef0123456789abcdef", "alice", false);
    auto malformed = bundles().get("bundle-xyz", "alice", false);
    ASSERT_FALSE(stranger.ok());
    EXPECT_EQ(stranger.status().code(), StatusCode::kNotFound);
    EXPECT_EQ(stranger.status().to_string(), unknown.status().to_string());
    EXPECT_EQ(stranger.status().to_string(), malformed.status().to_string());
    auto admin = bundles().get(sent->bundle_id, "root", true);
    ASSERT_TRUE(admin.ok());
    EXPECT_EQ(admin->owner, "alice");
}

TEST_F(BundleServiceTest, AnOfflineAgentMakesEveryStepDispatchFailed) {
    ASSERT_TRUE(registry().sign_off(agent_).ok());
    auto sent = bundles().execute(three_steps());
    ASSERT_TRUE(sent.ok());
    EXPECT_EQ(sent->dispatched, 0);
    auto result = bundles().get(sent->bundle_id, "alice", false);
    ASSERT_TRUE(result.ok());
    EXPECT_TRUE(result->complete);
    EXPECT_EQ(result->succeeded, 0);
    EXPECT_EQ(result->received, 0);
    for (const auto& step : result->steps) {
        EXPECT_EQ(step.state, "dispatch_failed");
        EXPECT_EQ(step.error, "agent was offline at dispatch");
    }
}

TEST_F(BundleServiceTest, ASilentStepTimesOut) {
    BundleRequest request = three_steps();
    request.timeout_ms = 2000;
    auto sent = bundles().execute(request);
    ASSERT_TRUE(sent.ok());
    auto commands = take(agent_);
    ASSERT_TRUE(answer_command(agent_, commands[0].command_id, "success", "{}").ok());
    clock_.advance_ms(2000);
    EXPECT_EQ(*tracker().sweep(clock_.now_ms()), 2);
    auto result = bundles().get(sent->bundle_id, "alice", false);
    EXPECT_TRUE(result->complete);
    EXPECT_EQ(result->succeeded, 1);
    EXPECT_EQ(result->steps[1].state, "timed_out");
    EXPECT_EQ(result->steps[2].state, "timed_out");
}

TEST_F(BundleServiceTest, InvalidBundlesSendNothing) {
    auto code_of = [&](const BundleRequest& r) { return bundles().execute(r).status().code(); };
    BundleRequest empty = three_steps();
    empty.steps.clear();
    EXPECT_EQ(code_of(empty), StatusCode::kInvalidArgument);
    BundleRequest too_many = three_steps();
    too_many.steps.assign(33, BundleStep{"os", "info", "{}"});
    EXPECT_EQ(code_of(too_many), StatusCode::kInvalidArgument);
    BundleRequest bad_plugin = three_steps();
    bad_plugin.steps[2].plugin = "Disk";
    auto refused = bundles().execute(bad_plugin);
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(refused.status().message().rfind("step 3: plugin", 0), 0u)
        << refused.status().message();
    BundleRequest bad_params = three_steps();
    bad_params.steps[1].params_json = "[]";
    EXPECT_EQ(code_of(bad_params), StatusCode::kInvalidArgument);
    BundleRequest unknown = three_steps();
    unknown.steps[0] = BundleStep{"rm", "rf", "{}"};
    EXPECT_EQ(code_of(unknown), StatusCode::kNotFound);
    BundleRequest anonymous = three_steps();
    anonymous.requester.clear();
    EXPECT_EQ(code_of(anonymous), StatusCode::kInvalidArgument);
    BundleRequest no_agent = three_steps();
    no_agent.agent_id.clear();
    EXPECT_EQ(code_of(no_agent), StatusCode::kInvalidArgument);
    ASSERT_TRUE(executions_->definitions().set_enabled("disk.usage", false).ok());
    EXPECT_EQ(code_of(three_steps()), StatusCode::kFailedPrecondition)
        << bundles().execute(three_steps()).status().to_string();

    EXPECT_TRUE(take(agent_).empty());
    EXPECT_TRUE(tracker().list(ExecutionFilter{})->executions.empty());
    BundleRequest max = three_steps();
    max.steps.assign(32, BundleStep{"os", "info", "{}"});
    EXPECT_TRUE(bundles().execute(max).ok());
}

}  // namespace
}  // namespace yuzu::execution::testing
