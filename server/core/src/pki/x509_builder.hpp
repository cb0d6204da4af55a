// Builds the certificates and CRLs the CA signs. Private to the pki module.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pki/openssl_util.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::pki::detail {

enum class CertKind { kRoot, kSigning, kAgent, kServer, kCodeSigning };

struct CertSpec {
    CertKind kind = CertKind::kAgent;
    std::string common_name;
    std::string organization;
    int64_t not_before_s = 0;
    int64_t not_after_s = 0;
    std::vector<std::string> dns_names;     // checked by is_valid_dns_name
    std::vector<std::string> ip_addresses;  // checked by is_valid_ip_address
};

// Signs `subject_key`'s certificate with `issuer_key`; a root signs itself
// (issuer null). The serial is fresh and random.
Result<X509Ptr> build_certificate(const CertSpec& spec, EVP_PKEY* subject_key, X509* issuer,
                                  EVP_PKEY* issuer_key);

struct RevokedEntry {
    std::string serial_hex;
    int64_t revoked_at_s = 0;
};

Result<X509CrlPtr> build_crl(X509* issuer, EVP_PKEY* issuer_key, int64_t crl_number,
                             int64_t this_update_s, int64_t next_update_s,
                             const std::vector<RevokedEntry>& revoked);

}  // namespace yuzu::pki::detail
