// GET /api/v1/audit on a real HttpServer (port 0) over a MemoryAuditLog:
// reading the audit log is itself audited. Each read leaves exactly one
// audit.read row naming its filter (never the cursor itself), written after
// the query so the page it returns never holds it; a denied read and a
// malformed one leave a row too.
#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "route_test.hpp"
#include "web/route_registry.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/http/identity_resolver.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::web {
namespace {

using nlohmann::json;

class AuditRoutes : public testing::RouteTest {
  protected:
    void SetUp() override {
        open_identity();
        ASSERT_TRUE(ctx_);
        serve(register_audit_routes);

        // Something to read: two failed logins by bob and one success.
        for (const char* result : {"failure", "failure", "success"}) {
            audit::AuditEvent ev;
            ev.principal = "bob";
            ev.principal_kind = "user_session";
            ev.action = "auth.login";
            ev.result = audit::parse_audit_result(result).value();
            ASSERT_TRUE(audit_.record(ev).ok());
            clock_.advance_ms(1000);
        }
    }

    // A signed-in user's cookies (reads: no CSRF header).
    httplib::Headers sign_in(const std::string& username, const std::vector<std::string>& roles) {
        return cookie(RouteTest::sign_in(username, roles), false);
    }

    std::vector<audit::AuditEvent> read_rows() const {
        std::vector<audit::AuditEvent> out;
        for (const auto& ev : audit_.events()) {
            if (ev.action == "audit.read") out.push_back(ev);
        }
        return out;
    }
};

TEST_F(AuditRoutes, AReadLeavesOneAuditReadRowNamingItsFilterAfterThePage) {
    const auto vera = sign_in("vera", {"Viewer"});
    auto res = client_->Get("/api/v1/audit", vera);
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << res->body;
    // The unfiltered page was read before its own row was written.
    const json page = json::parse(res->body);
    for (const auto& ev : page["events"]) {
        EXPECT_NE(ev["action"], "audit.read") << ev.dump();
    }
    auto rows = read_rows();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].principal, "vera");
    EXPECT_EQ(rows[0].principal_kind, "user_session");
    EXPECT_EQ(rows[0].result, audit::AuditResult::kSuccess);
    EXPECT_EQ(rows[0].target_type, "audit_log");
    EXPECT_FALSE(rows[0].correlation_id.empty());
    EXPECT_EQ(rows[0].correlation_id, res->get_header_value("X-Correlation-Id"));
    EXPECT_EQ(json::parse(rows[0].detail), json({{"limit", 50}, {"cursor", false}}));

    // The next read sees the first one's row.
    auto again = client_->Get("/api/v1/audit?action=audit.read", vera);
    ASSERT_TRUE(again);
    ASSERT_EQ(again->status, 200);
    EXPECT_EQ(json::parse(again->body)["events"].size(), 1u);
    EXPECT_EQ(read_rows().size(), 2u);
}

TEST_F(AuditRoutes, TheDetailNamesEveryFilterAndOnlyWhetherACursorWasGiven) {
    const auto vera = sign_in("vera", {"Viewer"});
    const std::string filter =
        "/api/v1/audit?action=auth.login&principal=bob&result=failure&since=1000&until="
        "4000000000&limit=1";
    auto first = client_->Get(filter, vera);
    ASSERT_TRUE(first);
    ASSERT_EQ(first->status, 200) << first->body;
    const json page = json::parse(first->body);
    ASSERT_EQ(page["events"].size(), 1u);
    ASSERT_TRUE(page["next_cursor"].is_string()) << first->body;
    const std::string cursor = page["next_cursor"];

    auto second = client_->Get(filter + "&cursor=" + cursor, vera);
    ASSERT_TRUE(second);
    ASSERT_EQ(second->status, 200) << second->body;

    const auto rows = read_rows();
    ASSERT_EQ(rows.size(), 2u);  // exactly one per read
    const json expected = {{"action", "auth.login"}, {"principal", "bob"},  {"result", "failure"},
                           {"since", 1000},          {"until", 4000000000}, {"limit", 1},
                           {"cursor", false}};
    EXPECT_EQ(json::parse(rows[0].detail), expected);
    json continued = expected;
    continued["cursor"] = true;
    EXPECT_EQ(json::parse(rows[1].detail), continued);
    EXPECT_EQ(rows[1].detail.find(cursor), std::string::npos) << "the cursor itself is not kept";
}

TEST_F(AuditRoutes, ADeniedReadLeavesADeniedRowWithItsFilter) {
    const auto nobody = sign_in("nobody", {});
    auto res = client_->Get("/api/v1/audit?action=auth.login&limit=5", nobody);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 403);
    const auto rows = read_rows();
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].principal, "nobody");
    EXPECT_EQ(rows[0].result, audit::AuditResult::kDenied);
    const json detail = json::parse(rows[0].detail);
    EXPECT_EQ(detail["action"], "auth.login");
    EXPECT_EQ(detail["limit"], 5);
    EXPECT_EQ(detail["cursor"], false);
    EXPECT_NE(detail["error"].get<std::string>().find("AuditLog:Read"), std::string::npos)
        << rows[0].detail;
}

TEST_F(AuditRoutes, AMalformedReadLeavesAFailureRow) {
    const auto vera = sign_in("vera", {"Viewer"});
    auto bad_limit = client_->Get("/api/v1/audit?limit=abc", vera);
    ASSERT_TRUE(bad_limit);
    EXPECT_EQ(bad_limit->status, 400);
    auto bad_cursor = client_->Get("/api/v1/audit?cursor=not-a-cursor", vera);
    ASSERT_TRUE(bad_cursor);
    EXPECT_EQ(bad_cursor->status, 400);
    const auto rows = read_rows();
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].result, audit::AuditResult::kFailure);
    EXPECT_NE(json::parse(rows[0].detail)["error"].get<std::string>().find("limit"),
              std::string::npos);
    EXPECT_EQ(rows[1].result, audit::AuditResult::kFailure);
    EXPECT_EQ(json::parse(rows[1].detail)["cursor"], true);
}

}  // namespace
}  // namespace yuzu::web
