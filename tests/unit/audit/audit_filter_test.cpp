#include "yuzu/audit/audit_filter.hpp"

#include <gtest/gtest.h>

namespace yuzu::audit {
namespace {

AuditFilter compiled(const AuditQuery& q) {
    auto f = AuditFilter::compile(q);
    EXPECT_TRUE(f.ok()) << f.status().to_string();
    return f.ok() ? *f : AuditFilter{};
}

AuditEvent event_at(int64_t timestamp_ms, int64_t id) {
    AuditEvent e;
    e.timestamp_ms = timestamp_ms;
    e.id = id;
    return e;
}

TEST(AuditFilter, DefaultsMatchEverything) {
    const AuditFilter f = compiled({});
    EXPECT_EQ(f.limit, kDefaultQueryLimit);
    EXPECT_FALSE(f.after.has_value());
    EXPECT_FALSE(f.result.has_value());
    AuditEvent e = event_at(5, 1);
    e.action = "anything";
    EXPECT_TRUE(f.matches(e));
}

TEST(AuditFilter, SplitsTrailingStarIntoPrefix) {
    AuditFilter f = compiled({.action = "mcp.*"});
    EXPECT_EQ(f.action, "mcp.");
    EXPECT_TRUE(f.action_is_prefix);
    f = compiled({.action = "*"});
    EXPECT_EQ(f.action, "");
    EXPECT_TRUE(f.action_is_prefix);
    f = compiled({.action = "auth.login"});
    EXPECT_EQ(f.action, "auth.login");
    EXPECT_FALSE(f.action_is_prefix);
}

TEST(AuditFilter, RejectionsNameTheProblem) {
    auto star = AuditFilter::compile({.action = "a*b"});
    ASSERT_FALSE(star.ok());
    EXPECT_NE(star.status().message().find("'*'"), std::string::npos);
    auto result = AuditFilter::compile({.result = "nope"});
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.status().message().find("consumed"), std::string::npos)
        << "lists the valid names: " << result.status().message();
    auto cursor = AuditFilter::compile({.cursor = "zz"});
    ASSERT_FALSE(cursor.ok());
    EXPECT_EQ(cursor.status().code(), StatusCode::kInvalidArgument);
}

TEST(AuditFilter, ClampsLimit) {
    EXPECT_EQ(compiled({.limit = 0}).limit, 1);
    EXPECT_EQ(compiled({.limit = -1}).limit, 1);
    EXPECT_EQ(compiled({.limit = 1}).limit, 1);
    EXPECT_EQ(compiled({.limit = 500}).limit, 500);
    EXPECT_EQ(compiled({.limit = 501}).limit, 500);
}

TEST(AuditFilter, CursorExcludesTheRowItselfAndNewerRows) {
    const AuditFilter f = compiled({.cursor = AuditCursor{100, 7}.encode()});
    EXPECT_FALSE(f.matches(event_at(100, 7)));
    EXPECT_FALSE(f.matches(event_at(100, 8)));
    EXPECT_FALSE(f.matches(event_at(101, 1)));
    EXPECT_TRUE(f.matches(event_at(100, 6)));
    EXPECT_TRUE(f.matches(event_at(99, 100)));
}

TEST(AuditFilter, MakePageCutsTheExtraRowAndPointsAfterTheLastKeptOne) {
    const AuditFilter f = compiled({.limit = 2});
    const AuditPage full =
        f.make_page({event_at(30, 3), event_at(20, 2), event_at(10, 1)});  // limit + 1 rows
    ASSERT_EQ(full.events.size(), 2u);
    EXPECT_EQ(full.next_cursor, (AuditCursor{20, 2}.encode()));

    const AuditPage last = f.make_page({event_at(30, 3), event_at(20, 2)});
    EXPECT_EQ(last.events.size(), 2u);
    EXPECT_TRUE(last.next_cursor.empty());
}

}  // namespace
}  // namespace yuzu::audit
