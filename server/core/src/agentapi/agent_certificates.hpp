// Client certificates on the agent plane (docs/agent-protocol.md): the CSR
// an enrollment or renewal carries, the certificate issued for it, the
// binding of a presented certificate to the device token's agent, and the
// heartbeat's renewal hint. Private to the agentapi module.
//
// Thread-safety: const after construction; safe from any worker.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "yuzu/agentapi/agent_tls.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/pki/certificate_authority.hpp"

namespace yuzu::agentapi {

// One renewal per agent in this long from the same signing key; a faster
// one is answered 429.
inline constexpr int64_t kRenewalSpacingMs = 60'000;

class AgentCertificates {
  public:
    // `ca` null: no certificates (a test harness without a CA).
    AgentCertificates(pki::CertificateAuthority* ca, ClientCertMode mode, const Clock& clock)
        : ca_(ca), mode_(ca != nullptr ? mode : ClientCertMode::kOff), clock_(clock) {}

    bool issuing() const { return ca_ != nullptr; }
    ClientCertMode mode() const { return mode_; }

    // The body's "csr", checked (InvalidArgument), or nullopt when absent;
    // absent is InvalidArgument when `required` and client certificates are
    // required.
    Result<std::optional<std::string>> read_csr(const nlohmann::json& body, bool required) const;

    // {certificate, certificate_chain} for the agent, signed now.
    Result<pki::Issued> issue(const std::string& agent_id, const std::string& csr,
                              const std::string& issued_by) const;

    // Every authenticated request: Ok, or Unauthenticated when the mode
    // requires a certificate and none came, or the one that came names
    // another agent or is on a CRL published after the handshake.
    Status check_peer(const std::string& agent_id) const;

    // The heartbeat's hint: client certificates are on and the agent has no
    // certificate on this connection, or its certificate is from a key other
    // than the one issuing now (a rotation), or a third of its life is left.
    bool renewal_due() const;

    // Whether the agent may be issued a new certificate now:
    // PermissionDenied when its newest certificate was revoked (a revoked
    // agent does not get a fresh one by asking; it is enrolled again),
    // ResourceExhausted when it got one from the key issuing now less than
    // kRenewalSpacingMs ago.
    Status check_renewal(const std::string& agent_id) const;

  private:
    pki::CertificateAuthority* ca_;
    ClientCertMode mode_;
    const Clock& clock_;
};

}  // namespace yuzu::agentapi
