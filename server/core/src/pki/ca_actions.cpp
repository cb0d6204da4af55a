#include "yuzu/pki/ca_actions.hpp"

#include <spdlog/spdlog.h>

#include "yuzu/audit/audit_log.hpp"

namespace yuzu::pki {
namespace {

bool write(audit::AuditLog& log, const audit::AuditEvent& actor, const std::string& action,
           const std::string& target_type, const std::string& target_id, audit::AuditResult result,
           const std::string& detail) {
    audit::AuditEvent e = actor;
    e.action = action;
    e.target_type = target_type;
    e.target_id = target_id;
    e.result = result;
    e.detail = detail;
    Status s = log.record(std::move(e));
    if (!s.ok())
        spdlog::error("audit row {} for {} was not written: {}", action, target_id, s.message());
    return s.ok();
}

audit::AuditResult refusal(const Status& s) {
    return s.code() == StatusCode::kPermissionDenied ? audit::AuditResult::kDenied
                                                     : audit::AuditResult::kFailure;
}

}  // namespace

Result<RevokeOutcome> revoke_certificate(CertificateAuthority& ca, audit::AuditLog& audit,
                                         const audit::AuditEvent& actor,
                                         const std::string& serial_hex, const std::string& reason) {
    auto revoked = ca.revoke(serial_hex, reason);
    if (!revoked.ok()) {
        write(audit, actor, "ca.cert.revoked", "AgentCertificate", serial_hex,
              refusal(revoked.status()), revoked.status().message());
        return revoked.status();
    }
    RevokeOutcome out;
    out.certificate = std::move(revoked).value();
    out.crl_republished = true;
    const std::string& serial = out.certificate.serial_hex;
    out.audit_persisted = write(audit, actor, "ca.cert.revoked", "AgentCertificate", serial,
                                audit::AuditResult::kSuccess,
                                "purpose=" + std::string(purpose_name(out.certificate.purpose)) +
                                    " subject=" + out.certificate.subject + " reason=" + reason);
    out.audit_persisted &=
        write(audit, actor, "ca.crl.published", "CRL", std::to_string(out.certificate.generation),
              audit::AuditResult::kSuccess, "revoked=" + serial);
    spdlog::info("certificate {} ({} {}) revoked by {}; CRL of generation {} republished", serial,
                 purpose_name(out.certificate.purpose), out.certificate.subject, actor.principal,
                 out.certificate.generation);
    return out;
}

Result<Issued> issue_code_signing(CertificateAuthority& ca, audit::AuditLog& audit,
                                  const audit::AuditEvent& actor, const std::string& csr_pem,
                                  const std::string& common_name) {
    IssueRequest request;
    request.purpose = Purpose::kCodeSigning;
    request.csr_pem = csr_pem;
    request.common_name = common_name;
    request.issued_by = actor.principal;
    auto issued = ca.issue(request);
    if (!issued.ok()) {
        write(audit, actor, "ca.cert.issued", "CodeSigningCertificate", common_name,
              refusal(issued.status()), issued.status().message());
        return issued.status();
    }
    write(audit, actor, "ca.cert.issued", "CodeSigningCertificate", issued->certificate.serial_hex,
          audit::AuditResult::kSuccess, "purpose=code_signing subject=" + common_name);
    return issued;
}

Result<RotationStatus> rotation_step(CertificateAuthority& ca, audit::AuditLog& audit,
                                     const audit::AuditEvent& actor, RotationStep step,
                                     int to_generation) {
    Result<RotationStatus> result = Status::Internal("unset");
    std::string action;
    switch (step) {
        case RotationStep::kStart:
            action = "ca.rotation.started";
            result = ca.start_rotation(actor.principal);
            break;
        case RotationStep::kCancel: {
            action = "ca.rotation.cancelled";
            // The generation being dropped, for the audit row.
            auto before = ca.rotation_status();
            if (before.ok()) to_generation = before->to_generation;
            result = ca.cancel_rotation();
            break;
        }
        case RotationStep::kConfirm:
            action = "ca.rotation.confirmed";
            result = ca.confirm_rotation(to_generation);
            break;
    }
    if (!result.ok()) {
        write(audit, actor, action, "CA", std::to_string(to_generation), refusal(result.status()),
              result.status().message());
        return result.status();
    }
    const RotationStatus& s = *result;
    const std::string target =
        std::to_string(step == RotationStep::kStart ? s.to_generation : to_generation);
    write(audit, actor, action, "CA", target, audit::AuditResult::kSuccess,
          "from_generation=" + std::to_string(s.from_generation) +
              " agents_on_old_generation=" + std::to_string(s.agents_on_old_generation));
    spdlog::info("{} by {} (signing generation {} -> {})", action, actor.principal,
                 s.from_generation, target);
    return result;
}

}  // namespace yuzu::pki
