#include "yuzu/audit/instrumented_audit_log.hpp"

#include <gtest/gtest.h>

#include <string>

#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::audit {
namespace {

// Refuses every row, as a full disk or a dead store would.
class FailingAuditLog final : public AuditLog {
  public:
    Status record(AuditEvent) override { return Status::Unavailable("disk full"); }
    Result<AuditPage> query(const AuditQuery&) const override {
        return Status::Unavailable("disk full");
    }
};

bool has_line(const std::string& text, const std::string& line) {
    return text.find("\n" + line + "\n") != std::string::npos;
}

TEST(InstrumentedAuditLog, StoredRowsAreTimedAndPassThroughUnchanged) {
    ManualClock clock(7000);
    MemoryAuditLog inner(clock);
    metrics::Registry registry;
    InstrumentedAuditLog log(inner, registry);
    AuditEvent ev;
    ev.action = "mcp.list_agents";
    ASSERT_TRUE(log.record(ev).ok());
    ASSERT_TRUE(log.record(ev).ok());
    ASSERT_EQ(inner.events().size(), 2u);
    EXPECT_EQ(inner.events()[1].action, "mcp.list_agents");
    auto page = log.query(AuditQuery{});
    ASSERT_TRUE(page.ok());
    EXPECT_EQ(page->events.size(), 2u);

    const std::string text = registry.Serialize();
    EXPECT_TRUE(has_line(text, "yuzu_audit_write_duration_seconds_count 2")) << text;
    EXPECT_TRUE(has_line(text, "yuzu_audit_write_failures_total 0")) << text;
}

TEST(InstrumentedAuditLog, ARowTheStoreRefusesIsCountedAsAFailureAndReported) {
    FailingAuditLog inner;
    metrics::Registry registry;
    InstrumentedAuditLog log(inner, registry);
    const Status s = log.record(AuditEvent{});
    EXPECT_EQ(s.code(), StatusCode::kUnavailable);
    const std::string text = registry.Serialize();
    EXPECT_TRUE(has_line(text, "yuzu_audit_write_failures_total 1")) << text;
    EXPECT_TRUE(has_line(text, "yuzu_audit_write_duration_seconds_count 1")) << text;
}

}  // namespace
}  // namespace yuzu::audit
