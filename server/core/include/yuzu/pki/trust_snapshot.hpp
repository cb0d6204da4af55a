// TrustSnapshot: what the agent plane trusts at one moment — the root, the
// signing generations still trusted, and each generation's current CRL —
// built once into an X509_STORE and never changed. The CA publishes a new
// snapshot after every revocation, rotation step or CRL refresh; a
// handshake holds the one it started with (shared_ptr), so a publish never
// waits for or disturbs a verification in flight.
//
// Thread-safety: immutable; verify() may run on any number of threads.
#pragma once

#include <openssl/types.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "yuzu/common/status.hpp"

struct stack_st_X509;  // STACK_OF(X509), without pulling in <openssl/x509.h>

namespace yuzu::pki {

struct TrustedGeneration {
    int generation = 0;
    std::string key_id;  // subject key identifier, hex
    std::string certificate_pem;
    std::string crl_pem;
};

class TrustSnapshot {
  public:
    // InvalidArgument if a PEM does not parse (the CA's own data: a fault).
    // `issuing_key_id`: the key id of the generation that issues now.
    static Result<std::shared_ptr<const TrustSnapshot>> build(
        const std::string& root_pem, const std::vector<TrustedGeneration>& generations,
        const std::string& issuing_key_id);
    ~TrustSnapshot();
    TrustSnapshot(const TrustSnapshot&) = delete;
    TrustSnapshot& operator=(const TrustSnapshot&) = delete;

    // Verifies `leaf` (with `untrusted` intermediates the peer sent, may be
    // null) up to the root at `now_s`, with each issuing generation's CRL
    // checked: Ok, or Unauthenticated naming OpenSSL's reason ("certificate
    // revoked", "unable to get local issuer certificate", ...).
    Status verify(X509* leaf, stack_st_X509* untrusted, int64_t now_s) const;

    // The serial (upper-case hex) is on one of the trusted generations' CRLs.
    bool lists_revoked(const std::string& serial_hex) const;
    // The trusted generation whose key issued a certificate with this
    // authority key id, or 0.
    int generation_of_issuer(const std::string& issuer_key_id) const;

    // A certificate from another key should be renewed (a rotation is on).
    const std::string& issuing_key_id() const { return issuing_key_id_; }
    // Root first, then every trusted signing generation, PEM.
    const std::string& ca_bundle_pem() const { return ca_bundle_pem_; }
    const std::vector<TrustedGeneration>& generations() const { return generations_; }

  private:
    TrustSnapshot() = default;

    X509_STORE* store_ = nullptr;  // owned
    std::vector<TrustedGeneration> generations_;
    std::set<std::string> revoked_serials_;
    std::string ca_bundle_pem_;
    std::string issuing_key_id_;
};

}  // namespace yuzu::pki
