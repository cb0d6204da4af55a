// The JSON shape of an approval ticket, shared by GET /api/v1/approvals, the
// list_pending_approvals MCP tool and the dashboard. Thread-safety: pure.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "yuzu/approval/approval.hpp"

namespace yuzu::approval {

// {id, definition_id, status (effective at now_ms), submitted_by,
//  submitted_at, scope_expression, surface, reviewed_by, reviewed_at,
//  review_comment, consumed_at, expires_at, status_url}; times in Unix
//  seconds, 0 = not yet.
nlohmann::json to_json(const Approval& approval, int64_t now_ms);

// "/api/v1/approvals/<id>"
std::string status_url(std::string_view id);

}  // namespace yuzu::approval
