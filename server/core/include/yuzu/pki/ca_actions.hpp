// The CA's audited actions, one function each, called by the REST routes and
// the MCP tools alike so both write the same audit rows:
//   revoke             ca.cert.revoked, then ca.crl.published
//   issue code signing ca.cert.issued
//   rotation steps     ca.rotation.started | cancelled | confirmed
// A refused action writes its row with result "failure" or "denied" and the
// reason. `actor` carries who, from where and the correlation id; its
// action, target and detail are filled here.
#pragma once

#include <string>

#include "yuzu/audit/audit_event.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/pki/certificate_authority.hpp"

namespace yuzu::audit {
class AuditLog;
}

namespace yuzu::pki {

struct RevokeOutcome {
    IssuedCertificate certificate;
    bool crl_republished = false;
    bool audit_persisted = true;  // both rows were written
};

Result<RevokeOutcome> revoke_certificate(CertificateAuthority& ca, audit::AuditLog& audit,
                                         const audit::AuditEvent& actor,
                                         const std::string& serial_hex, const std::string& reason);

// Signs a code-signing certificate for the CSR's key (the caller keeps the
// private key; the server never sees it).
Result<Issued> issue_code_signing(CertificateAuthority& ca, audit::AuditLog& audit,
                                  const audit::AuditEvent& actor, const std::string& csr_pem,
                                  const std::string& common_name);

enum class RotationStep { kStart, kCancel, kConfirm };
// kConfirm needs `to_generation`; the others ignore it.
Result<RotationStatus> rotation_step(CertificateAuthority& ca, audit::AuditLog& audit,
                                     const audit::AuditEvent& actor, RotationStep step,
                                     int to_generation = 0);

}  // namespace yuzu::pki
