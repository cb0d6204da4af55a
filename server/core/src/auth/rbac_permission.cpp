#include "yuzu/auth/rbac_permission.hpp"

#include <array>
#include <cassert>
#include <utility>

namespace yuzu::auth {
namespace {

constexpr std::array<std::pair<Securable, std::string_view>, 17> kSecurableNames = {{
    {Securable::kInfrastructure, "Infrastructure"},
    {Securable::kTag, "Tag"},
    {Securable::kExecution, "Execution"},
    {Securable::kInstructionDefinition, "InstructionDefinition"},
    {Securable::kInstructionSet, "InstructionSet"},
    {Securable::kResponse, "Response"},
    {Securable::kPolicy, "Policy"},
    {Securable::kAuditLog, "AuditLog"},
    {Securable::kApproval, "Approval"},
    {Securable::kApiToken, "ApiToken"},
    {Securable::kUserManagement, "UserManagement"},
    {Securable::kManagementGroup, "ManagementGroup"},
    {Securable::kSecurity, "Security"},
    {Securable::kSchedule, "Schedule"},
    {Securable::kGuaranteedState, "GuaranteedState"},
    {Securable::kInventory, "Inventory"},
    {Securable::kDeviceToken, "DeviceToken"},
}};

constexpr std::array<std::pair<Operation, std::string_view>, 6> kOperationNames = {{
    {Operation::kRead, "Read"},
    {Operation::kWrite, "Write"},
    {Operation::kDelete, "Delete"},
    {Operation::kExecute, "Execute"},
    {Operation::kApprove, "Approve"},
    {Operation::kRotate, "Rotate"},
}};

// The tables are indexed by the enum value; keep them in declaration order.
constexpr bool tables_in_order() {
    for (size_t i = 0; i < kSecurableNames.size(); ++i) {
        if (static_cast<size_t>(kSecurableNames[i].first) != i) return false;
    }
    for (size_t i = 0; i < kOperationNames.size(); ++i) {
        if (static_cast<size_t>(kOperationNames[i].first) != i) return false;
    }
    return true;
}
static_assert(tables_in_order());
static_assert(static_cast<size_t>(Securable::kDeviceToken) + 1 == kSecurableNames.size());
static_assert(static_cast<size_t>(Operation::kRotate) + 1 == kOperationNames.size());

constexpr auto kAllSecurables = [] {
    std::array<Securable, kSecurableNames.size()> out{};
    for (size_t i = 0; i < out.size(); ++i) out[i] = kSecurableNames[i].first;
    return out;
}();

constexpr auto kAllOperations = [] {
    std::array<Operation, kOperationNames.size()> out{};
    for (size_t i = 0; i < out.size(); ++i) out[i] = kOperationNames[i].first;
    return out;
}();

}  // namespace

std::span<const Securable> all_securables() {
    return kAllSecurables;
}
std::span<const Operation> all_operations() {
    return kAllOperations;
}

std::string_view securable_name(Securable type) {
    const auto index = static_cast<size_t>(type);
    assert(index < kSecurableNames.size());
    return kSecurableNames[index].second;
}

std::string_view operation_name(Operation op) {
    const auto index = static_cast<size_t>(op);
    assert(index < kOperationNames.size());
    return kOperationNames[index].second;
}

std::optional<Securable> parse_securable(std::string_view name) {
    for (const auto& [type, spelling] : kSecurableNames) {
        if (spelling == name) return type;
    }
    return std::nullopt;
}

std::optional<Operation> parse_operation(std::string_view name) {
    for (const auto& [op, spelling] : kOperationNames) {
        if (spelling == name) return op;
    }
    return std::nullopt;
}

std::string permission_name(Permission p) {
    std::string out(securable_name(p.type));
    out += ':';
    out += operation_name(p.op);
    return out;
}

std::optional<Permission> parse_permission(std::string_view text) {
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    auto type = parse_securable(text.substr(0, colon));
    auto op = parse_operation(text.substr(colon + 1));
    if (!type || !op) return std::nullopt;
    return Permission{*type, *op};
}

}  // namespace yuzu::auth
