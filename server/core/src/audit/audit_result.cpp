#include "yuzu/audit/audit_result.hpp"

#include <array>
#include <cassert>
#include <utility>

namespace yuzu::audit {
namespace {

constexpr std::array<std::pair<AuditResult, std::string_view>, 8> kNames = {{
    {AuditResult::kSuccess, "success"},
    {AuditResult::kFailure, "failure"},
    {AuditResult::kDenied, "denied"},
    {AuditResult::kError, "error"},
    {AuditResult::kPending, "pending"},
    {AuditResult::kApproved, "approved"},
    {AuditResult::kRejected, "rejected"},
    {AuditResult::kConsumed, "consumed"},
}};

}  // namespace

std::string_view audit_result_name(AuditResult result) {
    for (const auto& [value, name] : kNames) {
        if (value == result) return name;
    }
    assert(false && "AuditResult without a name");
    return "error";
}

std::optional<AuditResult> parse_audit_result(std::string_view name) {
    for (const auto& [value, known] : kNames) {
        if (known == name) return value;
    }
    return std::nullopt;
}

}  // namespace yuzu::audit
