// CertificateAuthority: Yuzu's internal CA, kept in <data-dir>/pki.db.
//
// Two tiers: a self-signed root, made once at first start, and signing
// generations under it (generation 1 at first start). Every certificate is
// issued by the active signing generation. Both keys are EC P-256 and are
// sealed at rest with the server's SecretBox (the key that seals TOTP
// seeds), bound to "pki:root" and "pki:signing:<n>"; they are opened only to
// sign and wiped after. Each generation has its own CRL, republished on
// every revocation and refreshed before it lapses (refresh_crls).
//
// Engine-key rotation replaces the signing key: start_rotation() makes
// generation n+1, which issues from then on while n stays trusted (agents
// renew at their next heartbeat); confirm_rotation() retires n, after which
// certificates n issued are refused. cancel_rotation() drops n+1 while it
// has issued nothing still valid (so no agent is left holding a certificate
// nobody trusts); its number is reused by the next start.
//
// Thread-safety: every method may be called from any thread; writes are
// serialised by one mutex, trust() is a lock-free-for-readers snapshot.
#pragma once

#include <openssl/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/pki/certificate.hpp"
#include "yuzu/pki/trust_snapshot.hpp"

namespace yuzu::auth {
class SecretBox;
}
namespace yuzu::store {
class Database;
}

namespace yuzu::pki {

inline constexpr char kPkiDbFile[] = "pki.db";
// The root certificate, public, written at every start for operators to give
// agents (--ca-file) when the agent plane uses the CA's own server identity.
inline constexpr char kRootCertificateFile[] = "pki-root-ca.pem";

struct PkiOptions {
    std::string data_dir;  // ":memory:" keeps pki.db in memory (tests)
    std::string ca_name = "Yuzu Internal CA";
};

struct IssueRequest {
    Purpose purpose = Purpose::kAgent;
    std::string csr_pem;      // the subject's public key; its signature is checked
    std::string common_name;  // agent certificates: the agent id
    std::vector<std::string> dns_names;
    std::vector<std::string> ip_addresses;
    std::string agent_id;   // agent certificates only
    std::string issued_by;  // principal, or "enrollment"
};

struct Issued {
    IssuedCertificate certificate;
    // The issuing generation's certificate, then the root: what a TLS peer
    // sends after its leaf.
    std::string chain_pem;
};

// The server's own agent-plane TLS identity, issued at start and renewed
// in memory: the key is never written anywhere.
struct ServerIdentity {
    std::shared_ptr<X509> certificate;
    std::vector<std::shared_ptr<X509>> chain;  // issuing generation, root
    std::shared_ptr<EVP_PKEY> key;
    std::string serial_hex;
    int64_t not_before_ms = 0;
    int64_t not_after_ms = 0;
};

enum class GenerationState { kActive, kPending, kRetired };

struct GenerationInfo {
    int generation = 0;
    GenerationState state = GenerationState::kActive;
    std::string key_id;
    int64_t created_at_ms = 0;
    std::optional<int64_t> retired_at_ms;
    int64_t crl_number = 0;
    int64_t crl_published_at_ms = 0;
};

struct RotationStatus {
    bool pending = false;
    int from_generation = 0;  // the generation being replaced
    int to_generation = 0;    // the pending one (0 when none)
    int64_t started_at_ms = 0;
    std::string started_by;
    // Agents holding a valid certificate of the old generation and none of
    // the new one: those the rotation still waits for.
    int64_t agents_on_old_generation = 0;
};

struct CertificatePage {
    std::vector<IssuedCertificate> items;
    bool has_more = false;
};

struct ListFilter {
    std::optional<Purpose> purpose;
    std::string agent_id;  // "" = any
    int limit = 200;
    int64_t offset = 0;
};

class CertificateAuthority {
  public:
    // Opens pki.db under data_dir (0600 inside the private data dir),
    // creating the root and signing generation 1 on first start, and
    // publishes the first trust snapshot. `secrets` and `clock` outlive it.
    // Internal if a sealed key does not open (the secrets key was replaced).
    static Result<std::unique_ptr<CertificateAuthority>> open(const PkiOptions& options,
                                                              const auth::SecretBox& secrets,
                                                              const Clock& clock);
    ~CertificateAuthority();
    CertificateAuthority(const CertificateAuthority&) = delete;
    CertificateAuthority& operator=(const CertificateAuthority&) = delete;

    // Signs the CSR's key with the active generation. InvalidArgument for a
    // CSR that does not parse, is too large, is not EC P-256/P-384 or RSA
    // 2048..8192,
    // or whose signature does not verify; or a bad common name.
    Result<Issued> issue(const IssueRequest& request);
    // The CSR checks of issue() alone, so a caller can refuse a bad CSR
    // before it spends anything (an enrollment token).
    static Status check_csr(const std::string& csr_pem);
    // A fresh in-memory key and a server certificate for it (dns names and
    // IP addresses as SANs).
    Result<ServerIdentity> issue_server_identity(const std::vector<std::string>& dns_names,
                                                 const std::vector<std::string>& ip_addresses);

    // Revokes and republishes the issuing generation's CRL before it
    // returns. NotFound (unknown serial); FailedPrecondition (already
    // revoked). The answer is the revoked record.
    Result<IssuedCertificate> revoke(const std::string& serial_hex, const std::string& reason);
    // Called after each revocation is in force (the new CRL published), on
    // the revoking thread, outside the CA's locks. Set once, before serving.
    using RevocationListener = std::function<void(const IssuedCertificate&)>;
    void set_revocation_listener(RevocationListener listener);

    Result<CertificatePage> list(const ListFilter& filter) const;
    Result<IssuedCertificate> find(const std::string& serial_hex) const;
    // The newest certificate issued to the agent, if any (unrevoked ones
    // only unless `include_revoked`).
    Result<std::optional<IssuedCertificate>> newest_for_agent(const std::string& agent_id,
                                                              bool include_revoked = false) const;

    // The current trust snapshot (never null after open()).
    std::shared_ptr<const TrustSnapshot> trust() const;
    const std::string& root_certificate_pem() const { return root_pem_; }
    std::string root_fingerprint_sha256() const;
    // The generation that issues now: the pending one during a rotation.
    int issuing_generation() const;
    Result<std::vector<GenerationInfo>> generations() const;

    // Engine-key rotation. start: FailedPrecondition if one is pending.
    // cancel / confirm: FailedPrecondition if none is pending, or (cancel)
    // if the pending generation has issued a certificate still valid.
    Result<RotationStatus> start_rotation(const std::string& by);
    Result<RotationStatus> cancel_rotation();
    Result<RotationStatus> confirm_rotation(int to_generation);
    Result<RotationStatus> rotation_status() const;
    // confirm_engine_rotation's pre-consume check: Ok when a rotation to
    // exactly `to_generation` is pending.
    Status check_rotation_pending(int to_generation) const;

    // Republishes every trusted generation's CRL older than
    // kCrlRepublishAfterS or older than its latest revocation (a republish
    // that failed), all of them when `force`; the maintenance pass calls it
    // every kMaintenancePeriodS. The number republished.
    Result<int> refresh_crls(bool force = false);
    // The current CRL of a trusted generation, PEM. NotFound.
    Result<std::string> crl_pem(int generation) const;

  private:
    CertificateAuthority(const PkiOptions& options, std::unique_ptr<store::Database> db,
                         const auth::SecretBox& secrets, const Clock& clock);
    Status bootstrap();
    Status load();
    Status publish_trust();
    Status republish_crl_locked(int generation);
    Result<Issued> issue_locked(const IssueRequest& request, EVP_PKEY* subject_key);
    Result<IssuedCertificate> revoke_locked(const std::string& serial, const std::string& reason);

    PkiOptions options_;
    std::unique_ptr<store::Database> db_;
    const auth::SecretBox& secrets_;
    const Clock& clock_;
    std::string root_pem_;

    mutable std::mutex mu_;  // every write; the key rows and rotation state
    mutable std::mutex trust_mu_;
    std::shared_ptr<const TrustSnapshot> trust_;  // guarded by trust_mu_
    RevocationListener on_revoked_;               // guarded by trust_mu_
};

}  // namespace yuzu::pki
