// Who may decide an approval ticket: the one place a person vouches for an
// AI client's request. The policy lives here once; the REST routes and the
// MCP approve_request / reject_request tools both ask it.
//
// In order: an interactive web session (a bearer token never qualifies, and
// over MCP no caller does: every MCP caller is a client program acting for a
// person), an active TOTP factor, a step-up proof younger than 5 minutes.
// The reviewer-differs-from-submitter rule is the approval store's.
//
// Thread-safety: stateless; safe from any thread.
#pragma once

#include <cstdint>
#include <string>

#include "yuzu/auth/principal.hpp"

namespace yuzu::auth {
class MfaService;
}

namespace yuzu::access {

enum class DecisionSurface { kRest, kMcp };

// "" when `who` may decide now; otherwise the reason, one of
// non_interactive_session, mfa_not_enrolled, mfa_proof_missing,
// mfa_proof_stale (the MFA reasons only on the REST surface).
std::string approver_assurance_gap(const auth::Principal& who, DecisionSurface surface,
                                   const auth::MfaService& mfa, int64_t now_ms);

// What the caller can do about `reason`.
std::string approver_assurance_remediation(const std::string& reason);

}  // namespace yuzu::access
