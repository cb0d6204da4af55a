#include "yuzu/execution/quarantine_service.hpp"

#include <gtest/gtest.h>

#include "unit/execution/execution_fixture.hpp"

namespace yuzu::execution::testing {
namespace {

class QuarantineServiceTest : public ExecutionFixture {
  protected:
    void SetUp() override {
        ExecutionFixture::SetUp();
        agent_ = enroll("web-01");
    }
    QuarantineService& quarantine() { return executions_->quarantine(); }
    std::string agent_;
};

TEST_F(QuarantineServiceTest, QuarantineSetsTheRegistryFlagAndRecordsHistory) {
    clock_.advance_ms(1000);
    auto status = quarantine().quarantine(agent_, "suspicious outbound traffic", "bob");
    ASSERT_TRUE(status.ok()) << status.status().to_string();
    EXPECT_TRUE(status->quarantined);
    EXPECT_EQ(status->reason, "suspicious outbound traffic");
    EXPECT_EQ(status->quarantined_by, "bob");

    auto record = registry().get(agent_);
    ASSERT_TRUE(record.ok());
    EXPECT_TRUE(record->quarantined);
    EXPECT_EQ(record->quarantine_reason, "suspicious outbound traffic");
    EXPECT_TRUE(quarantine().status(agent_)->quarantined);

    auto again = quarantine().quarantine(agent_, "again", "carol");
    EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);

    clock_.advance_ms(1000);
    auto released = quarantine().release(agent_, "carol");
    ASSERT_TRUE(released.ok()) << released.status().to_string();
    EXPECT_FALSE(released->quarantined);
    EXPECT_FALSE(registry().get(agent_)->quarantined);
    EXPECT_EQ(quarantine().release(agent_, "carol").status().code(),
              StatusCode::kFailedPrecondition);

    auto history = quarantine().history(agent_);
    ASSERT_TRUE(history.ok());
    ASSERT_EQ(history->size(), 2u);
    EXPECT_EQ((*history)[0].action, "release");  // newest first
    EXPECT_EQ((*history)[0].actor, "carol");
    EXPECT_EQ((*history)[0].reason, "suspicious outbound traffic");
    EXPECT_EQ((*history)[1].action, "quarantine");
    EXPECT_EQ((*history)[1].actor, "bob");
    EXPECT_LT((*history)[1].at_ms, (*history)[0].at_ms);
    EXPECT_EQ(quarantine().history(agent_, 1)->size(), 1u);
}

TEST_F(QuarantineServiceTest, RefusesUnknownAgentsAndBadInput) {
    EXPECT_EQ(quarantine().quarantine("no-such-agent", "x", "bob").status().code(),
              StatusCode::kNotFound);
    EXPECT_EQ(quarantine().release("no-such-agent", "bob").status().code(), StatusCode::kNotFound);
    EXPECT_EQ(quarantine().status("no-such-agent").status().code(), StatusCode::kNotFound);
    EXPECT_EQ(quarantine().quarantine(agent_, "x", "").status().code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(quarantine().quarantine(agent_, "bell\x07", "bob").status().code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(quarantine().quarantine(agent_, std::string(1025, 'r'), "bob").status().code(),
              StatusCode::kInvalidArgument);
    EXPECT_FALSE(registry().get(agent_)->quarantined);
    EXPECT_TRUE(quarantine().history(agent_)->empty());
}

}  // namespace
}  // namespace yuzu::execution::testing
