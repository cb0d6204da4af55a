// CredentialWatch: what a held-open MCP stream does with each re-check of
// its caller's credential (one per heartbeat tick). A credential that is no
// longer valid ends the stream with credential_revoked at once; a store
// that cannot answer is given a grace window (the stream stays up, since
// the credential was valid when last seen), after which the stream ends
// with auth_unavailable. Any valid answer resets the window.
//
// Used by one pump thread; not thread-safe.
#pragma once

#include <cstdint>
#include <optional>

#include "yuzu/common/clock.hpp"
#include "yuzu/mcp/session/close_reason.hpp"

namespace yuzu::mcp {

enum class CredentialCheck {
    kValid,         // same principal, still valid
    kInvalid,       // revoked, expired, rotated out, or now another principal
    kUnverifiable,  // the store could not answer
};

class CredentialWatch {
  public:
    CredentialWatch(const Clock& clock, int64_t grace_ms) : clock_(clock), grace_ms_(grace_ms) {}

    // The reason to end the stream, or nullopt to carry on.
    std::optional<CloseReason> observe(CredentialCheck check) {
        switch (check) {
            case CredentialCheck::kValid:
                unverifiable_since_.reset();
                return std::nullopt;
            case CredentialCheck::kInvalid:
                return CloseReason::kCredentialRevoked;
            case CredentialCheck::kUnverifiable:
                break;
        }
        const int64_t now = clock_.steady_ms();
        if (!unverifiable_since_) unverifiable_since_ = now;
        if (now - *unverifiable_since_ >= grace_ms_) return CloseReason::kAuthUnavailable;
        return std::nullopt;
    }

  private:
    const Clock& clock_;
    const int64_t grace_ms_;
    std::optional<int64_t> unverifiable_since_;
};

}  // namespace yuzu::mcp
