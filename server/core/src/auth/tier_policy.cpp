#include "yuzu/auth/tier_policy.hpp"

namespace yuzu::auth {

bool is_valid_tier(std::string_view tier) {
    return tier.empty() || tier == "readonly" || tier == "operator" || tier == "supervised";
}

bool tier_allows(std::string_view tier, Securable type, Operation op) {
    if (tier.empty()) return true;
    if (tier == "readonly") return op == Operation::kRead;
    if (tier == "operator") {
        if (op == Operation::kRead) return true;
        if (type == Securable::kTag && (op == Operation::kWrite || op == Operation::kDelete)) {
            return true;
        }
        if (type == Securable::kExecution && op == Operation::kExecute) return true;
        // Rotation keeps the caller's own authority and lifetime, so it is
        // self-service at the operator tier.
        if (type == Securable::kApiToken && op == Operation::kRotate) return true;
        return false;
    }
    if (tier == "supervised") return true;
    return false;  // unknown tier: fail closed, Read included
}

bool requires_approval(std::string_view tier, Securable type, Operation op) {
    if (tier == "operator") return type == Securable::kTag && op == Operation::kDelete;
    if (tier != "supervised") return false;
    if (op == Operation::kDelete) return true;
    if (type == Securable::kExecution && op == Operation::kExecute) return true;
    if (type == Securable::kSecurity && op == Operation::kExecute) return true;
    if (op == Operation::kWrite) {
        switch (type) {
            case Securable::kPolicy:
            case Securable::kSecurity:
            case Securable::kUserManagement:
            case Securable::kManagementGroup:
            case Securable::kApiToken:
                return true;
            default:
                return false;
        }
    }
    return false;
}

}  // namespace yuzu::auth
