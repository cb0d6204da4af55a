// AuditResult: the outcome recorded in an audit row.
//
// The names are the spelling stored in audit.db, returned by the REST API and
// accepted by the `result` query filter. Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string_view>

namespace yuzu::audit {

enum class AuditResult {
    kSuccess,   // the action ran
    kFailure,   // the action ran and failed (bad input, missing object, ...)
    kDenied,    // refused by a policy: tier, RBAC, scope, kill switch
    kError,     // the server could not do it (store down, bug)
    kPending,   // held for approval (a ticket was minted)
    kApproved,  // an approver accepted a pending request
    kRejected,  // an approver refused a pending request
    kConsumed,  // an approved request was used (once)
};

// "success", "failure", "denied", "error", "pending", "approved", "rejected",
// "consumed".
std::string_view audit_result_name(AuditResult result);

// The inverse of audit_result_name; exact and case-sensitive. nullopt when
// `name` is not one of the names above.
std::optional<AuditResult> parse_audit_result(std::string_view name);

}  // namespace yuzu::audit
