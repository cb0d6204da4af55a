// AuditEvent: one append-only row of the audit trail.
//
// Every surface (REST, MCP, dashboard, agent plane, background jobs) records
// the same shape through AuditLog::record(). Text fields are UTF-8; record()
// caps their length (field_limits.hpp) instead of refusing a long value.
#pragma once

#include <cstdint>
#include <string>

#include "yuzu/audit/audit_result.hpp"

namespace yuzu::audit {

// Every member has an initializer, so designated initializers compile
// warning-free under -Wextra.
struct AuditEvent {
    int64_t id = 0;            // assigned by the log; ignored on record()
    int64_t timestamp_ms = 0;  // Unix ms; record() fills it from its Clock when <= 0
    std::string principal{};   // username, agent id, or "system"
    // "user_session" | "api_token" | "mcp_token" | "agent" | "system" | "anonymous"
    std::string principal_kind{};
    std::string action{};       // dotted verb, e.g. "auth.login", "token.create", "mcp.list_agents"
    std::string target_type{};  // e.g. "mcp_tool", "agent", "token"; may be empty
    std::string target_id{};    // the object acted on; may be empty
    std::string detail{};       // free text for the operator
    std::string source_ip{};
    std::string user_agent{};
    AuditResult result = AuditResult::kSuccess;
    std::string correlation_id{};  // ties the row to the request's log lines and response

    bool operator==(const AuditEvent&) const = default;
};

}  // namespace yuzu::audit
