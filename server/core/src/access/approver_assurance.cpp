#include "yuzu/access/approver_assurance.hpp"

#include "yuzu/auth/mfa_service.hpp"

namespace yuzu::access {

std::string approver_assurance_gap(const auth::Principal& who, DecisionSurface surface,
                                   const auth::MfaService& mfa, int64_t now_ms) {
    if (surface == DecisionSurface::kMcp || !who.is_interactive()) {
        return "non_interactive_session";
    }
    if (!mfa.is_active(who.username)) return "mfa_not_enrolled";
    if (who.mfa_verified_at_ms == 0) return "mfa_proof_missing";
    if (!auth::mfa_proof_fresh(who.mfa_verified_at_ms, now_ms)) return "mfa_proof_stale";
    return "";
}

std::string approver_assurance_remediation(const std::string& reason) {
    if (reason == "non_interactive_session") {
        return "sign in to the dashboard and decide the request there; API and MCP tokens "
               "cannot approve";
    }
    if (reason == "mfa_not_enrolled") {
        return "enrol and activate a TOTP factor (POST /api/v1/mfa/totp/enroll, then /activate)";
    }
    return "verify a TOTP code (POST /api/v1/mfa/verify), then decide within 5 minutes";
}

}  // namespace yuzu::access
