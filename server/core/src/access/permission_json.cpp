#include "yuzu/access/permission_json.hpp"

#include <nlohmann/json.hpp>

namespace yuzu::access {

nlohmann::json to_json(const PermissionAnswer& answer, const std::string& username) {
    return {{"permission", answer.permission},
            {"username", username},
            {"allowed", answer.allowed},
            {"allowed_by_role", answer.allowed_by_role},
            {"allowed_by_tier", answer.allowed_by_tier},
            {"requires_approval", answer.requires_approval}};
}

}  // namespace yuzu::access
