// AuditFilter: an AuditQuery checked and normalised, the single definition of
// what a query means.
//
// Both logs compile their query with AuditFilter::compile(), so validation,
// limit clamping, cursor decoding and page assembly are shared code.
// MemoryAuditLog evaluates matches(); SqliteAuditLog translates the same
// fields into an indexed WHERE clause. The typed tests in
// tests/unit/audit/audit_log_contract_test.cpp run one set of cases against
// both, so the two cannot drift apart. Thread-safety: a value type.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "yuzu/audit/audit_cursor.hpp"
#include "yuzu/audit/audit_event.hpp"
#include "yuzu/audit/audit_query.hpp"
#include "yuzu/audit/audit_result.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::audit {

struct AuditFilter {
    // Empty string fields match anything.
    std::string principal;
    std::string action;             // exact value, or the prefix when action_is_prefix
    bool action_is_prefix = false;  // "mcp.*" -> action "mcp.", prefix; "*" -> "", prefix
    std::string target_type;
    std::string target_id;
    std::optional<AuditResult> result;
    int64_t since_ms = 0;              // inclusive; 0 = unbounded
    int64_t until_ms = 0;              // exclusive; 0 = unbounded
    int limit = kDefaultQueryLimit;    // already clamped to 1..kMaxQueryLimit
    std::optional<AuditCursor> after;  // continue strictly after this row

    // Validates and normalises `q`; see AuditQuery for what is rejected.
    static Result<AuditFilter> compile(const AuditQuery& q);

    // Whether `event` satisfies every filter and lies after the cursor.
    bool matches(const AuditEvent& event) const;

    // Turns up to limit + 1 matching rows, newest first, into a page: the
    // first `limit` rows, and a cursor after the last of them when a further
    // row exists. Fetching one extra row avoids handing out a cursor that
    // leads to an empty page.
    AuditPage make_page(std::vector<AuditEvent> rows_newest_first) const;
};

}  // namespace yuzu::audit
