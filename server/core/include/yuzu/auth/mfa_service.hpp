// MfaService: TOTP second factors (RFC 6238, SHA-1, 30 s, 6 digits) kept in
// auth.db (tables totp_factors, totp_failures).
//
// Life of a factor: enroll() creates a pending factor and returns its secret
// once (for the authenticator app); activate() with a first valid code makes
// it active; verify() then checks step-up codes; disable() removes it (admin
// reset). The secret is stored sealed with SecretBox under the associated
// data "totp:" + username, never in the clear.
//
// No code is accepted twice: every accepted code's time step is persisted
// and a code must match a later step. Failed verify() calls are rate limited
// per user (5 within 5 minutes, then ResourceExhausted until the oldest of
// them leaves the window); failures are stored, so a restart does not reset
// the count, and a successful verify() clears them.
//
// Thread-safety: safe to call from any thread; each call runs inside one
// Database transaction, so two concurrent verify() calls cannot both accept
// the same code.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::auth {

class SecretBox;

// How long a session's TOTP step-up proof authorises sensitive actions.
inline constexpr int64_t kMfaProofLifetimeMs = 5 * 60 * 1000;

// True iff a proof recorded at verified_at_ms (0 = none) is still fresh at
// now_ms. A proof time in the future (clock stepped back) is not fresh.
bool mfa_proof_fresh(int64_t verified_at_ms, int64_t now_ms);

struct MfaOptions {
    int max_failures = 5;                       // failed verify() calls allowed ...
    int64_t failure_window_ms = 5 * 60 * 1000;  // ... within this window
};

struct Enrollment {
    std::string secret_base32;  // for manual entry; shown once
    std::string otpauth_uri;    // for a QR code; shown once
};

class MfaService {
  public:
    // db must have auth.db's migrations applied; db, box and clock must
    // outlive the service.
    MfaService(store::Database& db, const SecretBox& box, const Clock& clock,
               MfaOptions options = {});
    MfaService(const MfaService&) = delete;
    MfaService& operator=(const MfaService&) = delete;

    // Creates (or replaces) a pending TOTP factor for username.
    // FailedPrecondition if an active factor exists; InvalidArgument for an
    // empty username; Unavailable if no entropy.
    Result<Enrollment> enroll(std::string_view username, std::string_view issuer = "Yuzu");

    // Turns the pending factor active once code is valid for it.
    // FailedPrecondition if there is no pending factor; PermissionDenied for
    // a wrong code.
    Status activate(std::string_view username, std::string_view code);

    // A step-up check. FailedPrecondition("mfa_not_enrolled") without an
    // active factor; ResourceExhausted while rate limited; PermissionDenied
    // ("invalid or reused TOTP code") for a wrong, out-of-window or already
    // used code. On Ok the caller records the proof (SessionStore).
    Status verify(std::string_view username, std::string_view code);

    // Whether username has an active factor. False on a store error, which
    // callers treat as "not enrolled" (MFA-gated actions then stay denied).
    bool is_active(std::string_view username) const;

    // Removes username's factor, pending or active, and its failure record
    // (admin reset). NotFound if there was none.
    Status disable(std::string_view username);

  private:
    std::string associated_data(std::string_view username) const;

    store::Database& db_;
    const SecretBox& box_;
    const Clock& clock_;
    const MfaOptions options_;
};

}  // namespace yuzu::auth
