// What only the in-memory fake has; the shared contract is in
// audit_log_contract_test.cpp.
#include "yuzu/audit/memory_audit_log.hpp"

#include <gtest/gtest.h>

#include "yuzu/audit/field_limits.hpp"

namespace yuzu::audit {
namespace {

TEST(MemoryAuditLog, EventsListsRowsInRecordOrderAsStored) {
    ManualClock clock(5000);
    MemoryAuditLog log(clock);
    AuditEvent late;
    late.action = "late";
    late.timestamp_ms = 9000;
    AuditEvent early;
    early.action = "early";
    early.user_agent = std::string(1000, 'u');
    ASSERT_TRUE(log.record(late).ok());
    ASSERT_TRUE(log.record(early).ok());

    const std::vector<AuditEvent> events = log.events();
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].action, "late");
    EXPECT_EQ(events[0].id, 1);
    EXPECT_EQ(events[0].timestamp_ms, 9000);
    EXPECT_EQ(events[1].action, "early");
    EXPECT_EQ(events[1].id, 2);
    EXPECT_EQ(events[1].timestamp_ms, 5000);
    EXPECT_EQ(events[1].user_agent.size(), kUserAgentMaxBytes);  // stored as capped
}

}  // namespace
}  // namespace yuzu::audit
