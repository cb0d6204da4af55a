// The JSON form of an audit row, shared by the REST API, MCP tools and the
// dashboard so every surface names the fields the same way.
//
// Thread-safety: a pure function.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "yuzu/audit/audit_event.hpp"

namespace yuzu::audit {

// {"id", "timestamp" (Unix seconds, integer), "timestamp_ms", "principal",
//  "principal_kind", "action", "target_type", "target_id", "detail",
//  "source_ip", "user_agent", "result" (audit_result_name), "correlation_id"}
nlohmann::json to_json(const AuditEvent& event);

}  // namespace yuzu::audit
