// Reads of the audit log are audited too: GET /api/v1/audit and the MCP
// query_audit_log tool each record one `audit.read` row per read, after the
// query (so a page never holds the row of the read that fetched it), with
// the read's principal, its result (success, denied, failure, error) and a
// detail naming the filter.
#pragma once

#include <string>
#include <string_view>

#include "yuzu/audit/audit_query.hpp"

namespace yuzu::audit {

inline constexpr std::string_view kAuditReadAction = "audit.read";
inline constexpr std::string_view kAuditReadTargetType = "audit_log";

// The detail of an audit.read row, a JSON object: the filters the read gave
// (principal, action, target_type, target_id, result; since and until in
// epoch seconds), its page size (limit), whether it continued from a cursor
// (cursor: true/false, never the cursor itself) and, when `error` is not
// empty, why it was refused or failed. Example:
//   {"action":"auth.login","cursor":false,"limit":100,"since":1767225600}
std::string audit_read_detail(const AuditQuery& q, const std::string& error = "");

}  // namespace yuzu::audit
