#include "yuzu/approval/approval_json.hpp"

#include <nlohmann/json.hpp>

namespace yuzu::approval {

std::string status_url(std::string_view id) {
    return "/api/v1/approvals/" + std::string(id);
}

nlohmann::json to_json(const Approval& a, int64_t now_ms) {
    return nlohmann::json{
        {"id", a.id},
        {"definition_id", a.definition_id},
        {"status", approval_state_name(a.effective_state(now_ms))},
        {"submitted_by", a.submitted_by},
        {"submitted_at", a.created_at_ms / 1000},
        {"scope_expression", a.scope_expression},
        {"surface", surface_name(a.surface)},
        {"reviewed_by", a.reviewer},
        {"reviewed_at", a.decided_at_ms / 1000},
        {"review_comment", a.comment},
        {"consumed_at", a.consumed_at_ms / 1000},
        {"expires_at", a.expires_at_ms() / 1000},
        {"status_url", status_url(a.id)},
    };
}

}  // namespace yuzu::approval
