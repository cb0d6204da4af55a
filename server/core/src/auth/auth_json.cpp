#include "yuzu/auth/auth_json.hpp"

#include <nlohmann/json.hpp>

namespace yuzu::auth {

nlohmann::json to_json(const TokenInfo& t) {
    return {{"id", t.id},
            {"name", t.name},
            {"owner", t.owner},
            {"mcp_tier", t.mcp_tier},
            {"created_at", t.created_at_s},
            {"expires_at", t.expires_at_s},
            {"last_used_at", t.last_used_at_s},
            {"revoked", t.revoked},
            {"rotation_pending", t.rotation_pending}};
}

nlohmann::json to_json(const ManagementGroup& g) {
    return {{"id", g.id},
            {"name", g.name},
            {"description", g.description},
            {"parent_id", g.parent_id},
            {"membership_type", g.membership_type},
            {"scope_expression", g.scope_expression},
            {"created_by", g.created_by},
            {"created_at", g.created_at_ms / 1000},
            {"updated_at", g.updated_at_ms / 1000}};
}

nlohmann::json to_json(const GroupRoleAssignment& a) {
    return {{"group_id", a.group_id},
            {"principal_type", a.principal_type},
            {"principal_id", a.principal_id},
            {"role", a.role_name},
            {"granted_at", a.granted_at_ms / 1000}};
}

nlohmann::json to_json(const GroupMember& m) {
    return {{"group_id", m.group_id},
            {"agent_id", m.agent_id},
            {"source", m.source},
            {"added_at", m.added_at_ms / 1000}};
}

}  // namespace yuzu::auth
