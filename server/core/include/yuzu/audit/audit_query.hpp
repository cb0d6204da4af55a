// AuditQuery and AuditPage: the filtered, paged read of the audit trail.
//
// Filters combine with AND; an empty string or a zero bound means "any".
// Pages are newest first, ordered by (timestamp_ms, id) descending, and a
// page's next_cursor continues exactly after its last row, so rows recorded
// while a client pages never cause a duplicate or a gap in older pages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "yuzu/audit/audit_event.hpp"

namespace yuzu::audit {

inline constexpr int kDefaultQueryLimit = 50;
inline constexpr int kMaxQueryLimit = 500;

// Every member has an initializer, so designated initializers such as
// AuditQuery{.principal = "alice", .limit = 10} compile warning-free.
struct AuditQuery {
    std::string principal{};  // exact
    // Exact, or a prefix when it ends with '*' ("mcp.*" matches
    // "mcp.list_agents"; "*" alone matches every action). A '*' anywhere
    // else is InvalidArgument.
    std::string action{};
    std::string target_type{};       // exact
    std::string target_id{};         // exact
    std::string result{};            // an audit_result_name(), else InvalidArgument
    int64_t since_ms = 0;            // inclusive; 0 = unbounded; negative = InvalidArgument
    int64_t until_ms = 0;            // exclusive; 0 = unbounded; negative = InvalidArgument
    int limit = kDefaultQueryLimit;  // clamped to 1..kMaxQueryLimit
    std::string cursor{};  // opaque, a previous page's next_cursor; malformed = InvalidArgument
};

struct AuditPage {
    std::vector<AuditEvent> events{};  // newest first
    std::string next_cursor{};         // empty when there are no more rows
};

}  // namespace yuzu::audit
