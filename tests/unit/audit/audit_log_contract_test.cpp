// The AuditLog contract, run against every implementation (typed tests), so
// SqliteAuditLog's SQL and MemoryAuditLog's matcher cannot drift apart.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"
#include "yuzu/audit/audit_log.hpp"
#include "yuzu/audit/field_limits.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/audit/sqlite_audit_log.hpp"
#include "yuzu/common/clock.hpp"

namespace yuzu::audit {
namespace {

constexpr int64_t kStartMs = 1'700'000'000'000;

// Makes a fresh log of each implementation; owns whatever it needs.
template <typename Log>
struct LogFactory;

template <>
struct LogFactory<MemoryAuditLog> {
    std::unique_ptr<AuditLog> make(const Clock& clock) {
        return std::make_unique<MemoryAuditLog>(clock);
    }
};

template <>
struct LogFactory<SqliteAuditLog> {
    yuzu::testing::TempDir dir;
    std::unique_ptr<AuditLog> make(const Clock& clock) {
        auto log = SqliteAuditLog::open(dir.str(), clock);
        EXPECT_TRUE(log.ok()) << log.status().to_string();
        if (!log.ok()) return nullptr;
        return std::move(log).value();
    }
};

AuditEvent make_event(std::string principal, std::string action,
                      AuditResult result = AuditResult::kSuccess) {
    AuditEvent e;
    e.principal = std::move(principal);
    e.principal_kind = "user_session";
    e.action = std::move(action);
    e.result = result;
    return e;
}

// Whether `s` is well-formed UTF-8 (written independently of clamp_utf8).
bool is_valid_utf8(const std::string& s) {
    size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        size_t n = 0;
        uint32_t cp = 0;
        if (c < 0x80) {
            n = 1, cp = c;
        } else if ((c & 0xE0) == 0xC0) {
            n = 2, cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            n = 3, cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            n = 4, cp = c & 0x07;
        } else {
            return false;
        }
        if (i + n > s.size()) return false;
        for (size_t k = 1; k < n; ++k) {
            const auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (cc & 0x3F);
        }
        const uint32_t min_for_length[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min_for_length[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return false;
        }
        i += n;
    }
    return true;
}

// `stored` is `original` cut at the last character boundary that leaves room
// for the marker within `cap` bytes, followed by the marker.
void expect_cut_at_boundary(const std::string& original, const std::string& stored, size_t cap) {
    EXPECT_LE(stored.size(), cap);
    EXPECT_TRUE(is_valid_utf8(stored));
    ASSERT_TRUE(stored.ends_with(kTruncationMarker)) << stored;
    const std::string kept = stored.substr(0, stored.size() - kTruncationMarker.size());
    EXPECT_TRUE(original.starts_with(kept));
    // Maximal: the next whole character of the original would not have fit.
    size_t next = kept.size() + 1;
    while (next < original.size() && (static_cast<unsigned char>(original[next]) & 0xC0) == 0x80) {
        ++next;
    }
    EXPECT_GT(next + kTruncationMarker.size(), cap);
}

template <typename Log>
class AuditLogContract : public ::testing::Test {
  protected:
    void SetUp() override {
        log_ = factory_.make(clock_);
        ASSERT_NE(log_, nullptr);
    }

    void record(AuditEvent e) {
        const Status s = log_->record(std::move(e));
        ASSERT_TRUE(s.ok()) << s.to_string();
    }

    AuditPage query(const AuditQuery& q) {
        auto page = log_->query(q);
        EXPECT_TRUE(page.ok()) << page.status().to_string();
        return page.ok() ? std::move(page).value() : AuditPage{};
    }

    StatusCode query_error(const AuditQuery& q) {
        auto page = log_->query(q);
        return page.ok() ? StatusCode::kOk : page.status().code();
    }

    std::vector<std::string> actions(const AuditQuery& q) {
        std::vector<std::string> out;
        for (const AuditEvent& e : query(q).events) out.push_back(e.action);
        return out;
    }

    // Follows next_cursor from the first page to the last.
    std::vector<AuditPage> all_pages(AuditQuery q) {
        std::vector<AuditPage> pages;
        for (int guard = 0; guard < 100; ++guard) {
            pages.push_back(query(q));
            if (pages.back().next_cursor.empty()) break;
            q.cursor = pages.back().next_cursor;
        }
        return pages;
    }

    ManualClock clock_{kStartMs};
    LogFactory<Log> factory_;
    std::unique_ptr<AuditLog> log_;
};

struct ImplementationName {
    template <typename T>
    static std::string GetName(int) {
        return std::is_same_v<T, SqliteAuditLog> ? "Sqlite" : "Memory";
    }
};

using Implementations = ::testing::Types<MemoryAuditLog, SqliteAuditLog>;
TYPED_TEST_SUITE(AuditLogContract, Implementations, ImplementationName);

TYPED_TEST(AuditLogContract, EmptyLogGivesEmptyPage) {
    const AuditPage page = this->query({});
    EXPECT_TRUE(page.events.empty());
    EXPECT_TRUE(page.next_cursor.empty());
}

TYPED_TEST(AuditLogContract, RecordThenQueryReturnsEveryField) {
    AuditEvent e;
    e.timestamp_ms = kStartMs - 5000;
    e.principal = "alice";
    e.principal_kind = "mcp_token";
    e.action = "mcp.list_agents";
    e.target_type = "mcp_tool";
    e.target_id = "list_agents";
    e.detail = "scope: filtered 2 out-of-management-group agent(s) for list_agents";
    e.source_ip = "192.0.2.7";
    e.user_agent = "claude-desktop/1.0";
    e.result = AuditResult::kDenied;
    e.correlation_id = "c0ffee";
    this->record(e);

    const AuditPage page = this->query({});
    ASSERT_EQ(page.events.size(), 1u);
    EXPECT_GT(page.events[0].id, 0);
    AuditEvent expected = e;
    expected.id = page.events[0].id;
    EXPECT_EQ(page.events[0], expected);
    EXPECT_TRUE(page.next_cursor.empty());
}

TYPED_TEST(AuditLogContract, FillsTimestampFromClockAndAssignsIncreasingIds) {
    AuditEvent first = make_event("alice", "auth.login");
    first.id = 999;  // ignored: the log assigns ids
    this->record(first);
    this->clock_.advance_ms(10);
    this->record(make_event("alice", "auth.logout"));

    const AuditPage page = this->query({});
    ASSERT_EQ(page.events.size(), 2u);
    EXPECT_EQ(page.events[0].action, "auth.logout");
    EXPECT_EQ(page.events[0].timestamp_ms, kStartMs + 10);
    EXPECT_EQ(page.events[1].timestamp_ms, kStartMs);
    EXPECT_NE(page.events[1].id, 999);
    EXPECT_GT(page.events[0].id, page.events[1].id);
}

TYPED_TEST(AuditLogContract, ReturnsNewestFirstWithIdBreakingTies) {
    // Recorded out of time order; equal timestamps fall back to id.
    for (const auto& [ts, action] : std::vector<std::pair<int64_t, std::string>>{
             {300, "c"}, {100, "a"}, {300, "d"}, {200, "b"}, {300, "e"}}) {
        AuditEvent e = make_event("alice", action);
        e.timestamp_ms = kStartMs + ts;
        this->record(e);
    }
    EXPECT_EQ(this->actions({}), (std::vector<std::string>{"e", "d", "c", "b", "a"}));
}

TYPED_TEST(AuditLogContract, FiltersByPrincipal) {
    this->record(make_event("alice", "auth.login"));
    this->record(make_event("bob", "auth.login"));
    this->record(make_event("alice2", "auth.logout"));
    const AuditPage page = this->query({.principal = "alice"});
    ASSERT_EQ(page.events.size(), 1u);
    EXPECT_EQ(page.events[0].principal, "alice");
    EXPECT_TRUE(this->query({.principal = "carol"}).events.empty());
}

TYPED_TEST(AuditLogContract, FiltersByExactAction) {
    this->record(make_event("alice", "mcp.list"));
    this->record(make_event("alice", "mcp.list_agents"));
    this->record(make_event("alice", "auth.login"));
    EXPECT_EQ(this->actions({.action = "mcp.list"}), (std::vector<std::string>{"mcp.list"}));
    EXPECT_TRUE(this->actions({.action = "mcp"}).empty());
}

TYPED_TEST(AuditLogContract, FiltersByActionPrefix) {
    for (const char* action : {"mcp", "mcp.list_agents", "mcpx.list", "mcp.session.open", "mcp/",
                               "auth.login", "MCP.upper", "mcp.\xFF\xFF"}) {
        this->record(make_event("alice", action));
    }
    EXPECT_EQ(this->actions({.action = "mcp.*"}),
              (std::vector<std::string>{"mcp.\xEF\xBF\xBD\xEF\xBF\xBD", "mcp.session.open",
                                        "mcp.list_agents"}));
    EXPECT_EQ(this->actions({.action = "mcp.session*"}),
              (std::vector<std::string>{"mcp.session.open"}));
    EXPECT_EQ(this->actions({.action = "auth.login*"}), (std::vector<std::string>{"auth.login"}));
    EXPECT_TRUE(this->actions({.action = "zzz*"}).empty());
}

TYPED_TEST(AuditLogContract, StarAloneMatchesEveryAction) {
    this->record(make_event("alice", "auth.login"));
    this->record(make_event("alice", "mcp.list_agents"));
    EXPECT_EQ(this->query({.action = "*"}).events.size(), 2u);
}

TYPED_TEST(AuditLogContract, StarInsideActionIsInvalidArgument) {
    EXPECT_EQ(this->query_error({.action = "mcp.*.open"}), StatusCode::kInvalidArgument);
    EXPECT_EQ(this->query_error({.action = "**"}), StatusCode::kInvalidArgument);
}

TYPED_TEST(AuditLogContract, FiltersByTargetTypeAndTargetId) {
    AuditEvent a = make_event("alice", "agent.tag");
    a.target_type = "agent";
    a.target_id = "agent-1";
    AuditEvent b = a;
    b.target_id = "agent-2";
    AuditEvent c = make_event("alice", "mcp.list_agents");
    c.target_type = "mcp_tool";
    c.target_id = "agent-1";
    this->record(a);
    this->record(b);
    this->record(c);

    EXPECT_EQ(this->query({.target_type = "agent"}).events.size(), 2u);
    EXPECT_EQ(this->query({.target_id = "agent-1"}).events.size(), 2u);
    const AuditPage both = this->query({.target_type = "agent", .target_id = "agent-1"});
    ASSERT_EQ(both.events.size(), 1u);
    EXPECT_EQ(both.events[0].action, "agent.tag");
    EXPECT_EQ(both.events[0].target_id, "agent-1");
}

TYPED_TEST(AuditLogContract, FiltersByResult) {
    this->record(make_event("alice", "mcp.a", AuditResult::kSuccess));
    this->record(make_event("alice", "mcp.b", AuditResult::kDenied));
    this->record(make_event("alice", "mcp.c", AuditResult::kConsumed));
    this->record(make_event("alice", "mcp.d", AuditResult::kDenied));
    EXPECT_EQ(this->actions({.result = "denied"}), (std::vector<std::string>{"mcp.d", "mcp.b"}));
    EXPECT_EQ(this->actions({.result = "consumed"}), (std::vector<std::string>{"mcp.c"}));
    EXPECT_TRUE(this->actions({.result = "pending"}).empty());
}

TYPED_TEST(AuditLogContract, UnknownResultIsInvalidArgument) {
    EXPECT_EQ(this->query_error({.result = "DENIED"}), StatusCode::kInvalidArgument);
    EXPECT_EQ(this->query_error({.result = "ok"}), StatusCode::kInvalidArgument);
}

TYPED_TEST(AuditLogContract, SinceIsInclusiveUntilIsExclusive) {
    for (int64_t t : {100, 200, 300, 400}) {
        AuditEvent e = make_event("alice", "t" + std::to_string(t));
        e.timestamp_ms = t;
        this->record(e);
    }
    EXPECT_EQ(this->actions({.since_ms = 200}), (std::vector<std::string>{"t400", "t300", "t200"}));
    EXPECT_EQ(this->actions({.until_ms = 300}), (std::vector<std::string>{"t200", "t100"}));
    EXPECT_EQ(this->actions({.since_ms = 200, .until_ms = 400}),
              (std::vector<std::string>{"t300", "t200"}));
    EXPECT_TRUE(this->actions({.since_ms = 300, .until_ms = 300}).empty());
}

TYPED_TEST(AuditLogContract, NegativeTimeBoundIsInvalidArgument) {
    EXPECT_EQ(this->query_error({.since_ms = -1}), StatusCode::kInvalidArgument);
    EXPECT_EQ(this->query_error({.until_ms = -1}), StatusCode::kInvalidArgument);
}

TYPED_TEST(AuditLogContract, FiltersCombineWithAnd) {
    this->record(make_event("alice", "mcp.a", AuditResult::kDenied));
    this->record(make_event("alice", "mcp.b", AuditResult::kSuccess));
    this->record(make_event("bob", "mcp.c", AuditResult::kDenied));
    this->record(make_event("alice", "auth.login", AuditResult::kDenied));
    EXPECT_EQ(this->actions({.principal = "alice", .action = "mcp.*", .result = "denied"}),
              (std::vector<std::string>{"mcp.a"}));
}

TYPED_TEST(AuditLogContract, Pages120RowsAs50Then50Then20WithoutDuplicatesOrGaps) {
    // Three rows share each millisecond, so page boundaries split ties.
    for (int i = 0; i < 120; ++i) {
        AuditEvent e = make_event("alice", "row." + std::to_string(i));
        e.timestamp_ms = kStartMs + i / 3;
        this->record(e);
    }
    const std::vector<AuditPage> pages = this->all_pages({.limit = 50});
    ASSERT_EQ(pages.size(), 3u);
    EXPECT_EQ(pages[0].events.size(), 50u);
    EXPECT_EQ(pages[1].events.size(), 50u);
    EXPECT_EQ(pages[2].events.size(), 20u);
    EXPECT_FALSE(pages[0].next_cursor.empty());
    EXPECT_FALSE(pages[1].next_cursor.empty());
    EXPECT_TRUE(pages[2].next_cursor.empty());

    std::vector<AuditEvent> all;
    for (const AuditPage& p : pages) all.insert(all.end(), p.events.begin(), p.events.end());
    // Newest first across pages means row.119 ... row.0, each exactly once.
    ASSERT_EQ(all.size(), 120u);
    for (int i = 0; i < 120; ++i) EXPECT_EQ(all[i].action, "row." + std::to_string(119 - i));
}

TYPED_TEST(AuditLogContract, PagingKeepsTheFilter) {
    for (int i = 0; i < 30; ++i) {
        this->record(make_event(i % 3 == 0 ? "alice" : "bob", "row." + std::to_string(i)));
    }
    const std::vector<AuditPage> pages = this->all_pages({.principal = "alice", .limit = 4});
    ASSERT_EQ(pages.size(), 3u);  // 10 rows: 4 + 4 + 2
    std::vector<std::string> seen;
    for (const AuditPage& p : pages) {
        for (const AuditEvent& e : p.events) {
            EXPECT_EQ(e.principal, "alice");
            seen.push_back(e.action);
        }
    }
    std::vector<std::string> expected;
    for (int i = 27; i >= 0; i -= 3) expected.push_back("row." + std::to_string(i));
    EXPECT_EQ(seen, expected);
}

TYPED_TEST(AuditLogContract, RowsRecordedWhilePagingDoNotShiftOlderPages) {
    for (int i = 0; i < 10; ++i) {
        this->clock_.advance_ms(1);
        this->record(make_event("alice", "old." + std::to_string(i)));
    }
    const AuditPage first = this->query({.limit = 4});
    ASSERT_EQ(first.events.size(), 4u);
    for (int i = 0; i < 5; ++i) {
        this->clock_.advance_ms(1);
        this->record(make_event("alice", "new." + std::to_string(i)));
    }
    EXPECT_EQ(this->actions({.limit = 4, .cursor = first.next_cursor}),
              (std::vector<std::string>{"old.5", "old.4", "old.3", "old.2"}));
}

TYPED_TEST(AuditLogContract, MalformedCursorIsInvalidArgument) {
    this->record(make_event("alice", "auth.login"));
    const std::string good = this->query({.limit = 1}).next_cursor;
    EXPECT_TRUE(good.empty());  // one row, nothing follows
    for (const std::string& bad :
         {std::string("x"), std::string("not-a-cursor"), std::string(31, '0'), std::string(33, '0'),
          std::string(32, 'g'), std::string(32, 'F'),
          std::string("00000000000000010000000000000000"),     // id 0
          std::string("80000000000000000000000000000001"),     // timestamp beyond int64
          std::string("0000000000000001800000000000000a")}) {  // id beyond int64
        EXPECT_EQ(this->query_error({.cursor = bad}), StatusCode::kInvalidArgument) << bad;
    }
}

TYPED_TEST(AuditLogContract, LimitIsClampedTo1And500) {
    for (int i = 0; i < 501; ++i) this->record(make_event("alice", "row"));
    EXPECT_EQ(this->query({.limit = 0}).events.size(), 1u);
    EXPECT_EQ(this->query({.limit = -7}).events.size(), 1u);
    const AuditPage big = this->query({.limit = 100000});
    EXPECT_EQ(big.events.size(), 500u);
    EXPECT_FALSE(big.next_cursor.empty());
    EXPECT_EQ(this->query({.limit = 500, .cursor = big.next_cursor}).events.size(), 1u);
    EXPECT_EQ(this->query({}).events.size(), 50u);  // the default
}

TYPED_TEST(AuditLogContract, CutsOversizedDetailAndUserAgentAtUtf8Boundary) {
    std::string detail = "ab";
    for (int i = 0; i < 3000; ++i) detail += "\xE2\x82\xAC";  // U+20AC, 3 bytes
    std::string user_agent = "x";
    for (int i = 0; i < 100000; ++i) user_agent += "\xC3\xA9";  // U+00E9, 2 bytes
    AuditEvent e = make_event("alice", "auth.login");
    e.detail = detail;
    e.user_agent = user_agent;
    this->record(e);

    const AuditPage page = this->query({});
    ASSERT_EQ(page.events.size(), 1u);
    expect_cut_at_boundary(detail, page.events[0].detail, kDetailMaxBytes);
    expect_cut_at_boundary(user_agent, page.events[0].user_agent, kUserAgentMaxBytes);
}

TYPED_TEST(AuditLogContract, CutsOtherFieldsAt256BytesAndKeepsValuesThatFit) {
    const std::string long_value = "\xF0\x9F\x8D\x8B" + std::string(400, 'p');  // U+1F34B first
    const std::string exactly_cap(kFieldMaxBytes, 'q');
    AuditEvent e = make_event(long_value, long_value);
    e.principal_kind = long_value;
    e.target_type = long_value;
    e.target_id = long_value;
    e.source_ip = long_value;
    e.correlation_id = exactly_cap;
    e.detail = std::string(kDetailMaxBytes, 'd');
    e.user_agent = std::string(kUserAgentMaxBytes, 'u');
    this->record(e);

    const AuditPage page = this->query({});
    ASSERT_EQ(page.events.size(), 1u);
    const AuditEvent& got = page.events[0];
    for (const std::string* field : {&got.principal, &got.principal_kind, &got.action,
                                     &got.target_type, &got.target_id, &got.source_ip}) {
        expect_cut_at_boundary(long_value, *field, kFieldMaxBytes);
    }
    EXPECT_EQ(got.correlation_id, exactly_cap);
    EXPECT_EQ(got.detail, e.detail);
    EXPECT_EQ(got.user_agent, e.user_agent);
}

TYPED_TEST(AuditLogContract, ReplacesInvalidUtf8WithReplacementCharacter) {
    AuditEvent e = make_event("eve\xFF", "auth.login");
    e.user_agent = "curl\xC0\xAF/8";
    this->record(e);
    const AuditPage page = this->query({});
    ASSERT_EQ(page.events.size(), 1u);
    EXPECT_EQ(page.events[0].principal, "eve\xEF\xBF\xBD");
    EXPECT_EQ(page.events[0].user_agent, "curl\xEF\xBF\xBD\xEF\xBF\xBD/8");
    // The stored value is what filters compare against.
    EXPECT_EQ(this->query({.principal = "eve\xEF\xBF\xBD"}).events.size(), 1u);
}

TYPED_TEST(AuditLogContract, EightThreadsRecordingHundredEachAreAllPresent) {
    constexpr int kThreads = 8;
    constexpr int kPerThread = 100;
    std::vector<std::thread> threads;
    std::vector<int> failures(kThreads, 0);
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([this, t, &failures] {
            for (int i = 0; i < kPerThread; ++i) {
                this->clock_.advance_ms(1);
                AuditEvent e = make_event("thread-" + std::to_string(t), "load.record");
                e.target_id = std::to_string(i);
                if (!this->log_->record(std::move(e)).ok()) ++failures[t];
            }
        });
    }
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;

    std::set<int64_t> ids;
    std::set<std::pair<std::string, std::string>> rows;
    for (const AuditPage& p : this->all_pages({.limit = 500})) {
        for (const AuditEvent& e : p.events) {
            ids.insert(e.id);
            rows.emplace(e.principal, e.target_id);
        }
    }
    EXPECT_EQ(ids.size(), static_cast<size_t>(kThreads * kPerThread));
    EXPECT_EQ(rows.size(), static_cast<size_t>(kThreads * kPerThread));
    for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(
            this->query({.principal = "thread-" + std::to_string(t), .limit = 500}).events.size(),
            static_cast<size_t>(kPerThread));
    }
}

}  // namespace
}  // namespace yuzu::audit
