#include "agentapi/agent_certificates.hpp"

#include <nlohmann/json.hpp>

#include "yuzu/http/peer_certificate.hpp"

namespace yuzu::agentapi {

Result<std::optional<std::string>> AgentCertificates::read_csr(const nlohmann::json& body,
                                                               bool required) const {
    auto it = body.find("csr");
    if (it == body.end() || it->is_null()) {
        if (required && mode_ == ClientCertMode::kRequired) {
            return Status::InvalidArgument(
                "field 'csr' is required: this agent plane requires client certificates");
        }
        return std::optional<std::string>();
    }
    if (!it->is_string()) return Status::InvalidArgument("field 'csr' must be a string");
    const std::string& csr = it->get_ref<const std::string&>();
    if (csr.size() > pki::kMaxCsrBytes) {
        return Status::InvalidArgument("field 'csr' is over " + std::to_string(pki::kMaxCsrBytes) +
                                       " bytes");
    }
    if (!issuing()) return std::optional<std::string>();
    if (Status s = pki::CertificateAuthority::check_csr(csr); !s.ok()) {
        return Status::InvalidArgument("field 'csr': " + s.message());
    }
    return std::optional<std::string>(csr);
}

Result<pki::Issued> AgentCertificates::issue(const std::string& agent_id, const std::string& csr,
                                             const std::string& issued_by) const {
    if (!issuing()) return Status::FailedPrecondition("this server issues no certificates");
    pki::IssueRequest request;
    request.purpose = pki::Purpose::kAgent;
    request.csr_pem = csr;
    request.common_name = agent_id;
    request.agent_id = agent_id;
    request.issued_by = issued_by;
    return ca_->issue(request);
}

Status AgentCertificates::check_peer(const std::string& agent_id) const {
    if (mode_ == ClientCertMode::kOff) return Status::Ok();
    const auto peer = http::current_peer_certificate();
    if (!peer) {
        if (mode_ == ClientCertMode::kRequired) {
            return Status::Unauthenticated("a client certificate is required");
        }
        return Status::Ok();
    }
    if (peer->common_name != agent_id) {
        return Status::Unauthenticated("the client certificate belongs to another agent");
    }
    // The handshake checked the CRL of its moment; a connection kept alive
    // across a revocation is refused at its next request.
    const auto trust = ca_->trust();
    if (trust->lists_revoked(peer->serial_hex)) {
        return Status::Unauthenticated("the client certificate is revoked");
    }
    // Likewise for a rotation confirmed, or a certificate expired, since
    // the handshake.
    if (trust->generation_of_issuer(peer->issuer_key_id) == 0) {
        return Status::Unauthenticated("the client certificate's signing key is no longer trusted");
    }
    if (peer->not_after_ms <= clock_.now_ms()) {
        return Status::Unauthenticated("the client certificate has expired");
    }
    return Status::Ok();
}

bool AgentCertificates::renewal_due() const {
    if (mode_ == ClientCertMode::kOff) return false;
    const auto peer = http::current_peer_certificate();
    if (!peer) return true;
    if (peer->issuer_key_id != ca_->trust()->issuing_key_id()) return true;
    return peer->not_after_ms - clock_.now_ms() < pki::kAgentLifetimeS * 1000 / 3;
}

Status AgentCertificates::check_renewal(const std::string& agent_id) const {
    auto newest = ca_->newest_for_agent(agent_id, /*include_revoked=*/true);
    if (!newest.ok()) return newest.status();
    if (*newest && (*newest)->revoked()) {
        return Status::PermissionDenied("this agent's certificate " + (*newest)->serial_hex +
                                        " was revoked: it gets no new one; enroll the host again");
    }
    // The spacing holds back repeats from the key issuing now; a certificate
    // from an older key (a rotation started) is replaced at once.
    if (*newest && (*newest)->issuer_key_id == ca_->trust()->issuing_key_id() &&
        clock_.now_ms() - (*newest)->issued_at_ms < kRenewalSpacingMs) {
        return Status::ResourceExhausted("a certificate was issued to this agent less than " +
                                         std::to_string(kRenewalSpacingMs / 1000) +
                                         " s ago; retry later");
    }
    return Status::Ok();
}

}  // namespace yuzu::agentapi
