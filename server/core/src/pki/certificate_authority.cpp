#include "yuzu/pki/certificate_authority.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <filesystem>

#include "pki/ca_keys.hpp"
#include "pki/csr_check.hpp"
#include "pki/openssl_util.hpp"
#include "pki/pki_store.hpp"
#include "pki/x509_builder.hpp"
#include "yuzu/auth/secret_box.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::pki {

using namespace detail;

namespace {

constexpr std::string_view kStoreName = kPkiDbFile;
Status check_common_name(const std::string& cn) {
    if (cn.empty() || cn.size() > kMaxSubjectBytes) {
        return Status::InvalidArgument("common name must be 1.." +
                                       std::to_string(kMaxSubjectBytes) + " bytes");
    }
    for (unsigned char c : cn) {
        if (c < 0x20 || c == 0x7F) {
            return Status::InvalidArgument("common name holds a control character");
        }
    }
    return Status::Ok();
}

// Writes the public root certificate for operators, atomically, 0644.
void write_root_file(const std::string& data_dir, const std::string& pem) {
    const std::filesystem::path path = std::filesystem::path(data_dir) / kRootCertificateFile;
    const std::string tmp = path.string() + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    const bool ok =
        ::write(fd, pem.data(), pem.size()) == static_cast<ssize_t>(pem.size()) && ::fsync(fd) == 0;
    ::close(fd);
    if (ok) ::rename(tmp.c_str(), path.c_str());
}

}  // namespace

CertificateAuthority::CertificateAuthority(const PkiOptions& options,
                                           std::unique_ptr<store::Database> db,
                                           const auth::SecretBox& secrets, const Clock& clock)
    : options_(options), db_(std::move(db)), secrets_(secrets), clock_(clock) {}

CertificateAuthority::~CertificateAuthority() = default;

Result<std::unique_ptr<CertificateAuthority>> CertificateAuthority::open(
    const PkiOptions& options, const auth::SecretBox& secrets, const Clock& clock) {
    const bool in_memory = options.data_dir == ":memory:";
    const std::string path = in_memory
                                 ? options.data_dir
                                 : (std::filesystem::path(options.data_dir) / kPkiDbFile).string();
    auto db = store::Database::open(path);
    if (!db.ok()) return db.status();
    YUZU_RETURN_IF_ERROR(store::apply_migrations(**db, kStoreName, pki_migrations(), clock));
    if (!in_memory) ::chmod(path.c_str(), 0600);
    std::unique_ptr<CertificateAuthority> ca(
        new CertificateAuthority(options, std::move(db).value(), secrets, clock));
    YUZU_RETURN_IF_ERROR(ca->bootstrap());
    YUZU_RETURN_IF_ERROR(ca->load());
    if (!in_memory) write_root_file(options.data_dir, ca->root_pem_);
    return ca;
}

Status CertificateAuthority::bootstrap() {
    std::lock_guard lock(mu_);
    {
        auto conn = db_->lock();
        auto rows = read_keys(conn);
        if (!rows.ok()) return rows.status();
        if (!rows->empty()) return Status::Ok();
        const int64_t now = clock_.now_ms();
        auto root = make_generation(0, nullptr, nullptr, options_.ca_name, secrets_, now, "system");
        if (!root.ok()) return root.status();
        auto root_keys = open_keys(*root, secrets_);
        if (!root_keys.ok()) return root_keys.status();
        auto signing = make_generation(1, root_keys->certificate.get(), root_keys->key.get(),
                                       options_.ca_name, secrets_, now, "system");
        if (!signing.ok()) return signing.status();
        auto tx = conn.transaction();
        YUZU_RETURN_IF_ERROR(insert_key(conn, *root));
        YUZU_RETURN_IF_ERROR(insert_key(conn, *signing));
        YUZU_RETURN_IF_ERROR(tx.commit());
    }
    return republish_crl_locked(1);
}

Status CertificateAuthority::load() {
    {
        auto conn = db_->lock();
        auto rows = read_keys(conn);
        if (!rows.ok()) return rows.status();
        const KeyRow* root = find_state(*rows, kStateRoot);
        if (root == nullptr || find_state(*rows, kStateActive) == nullptr) {
            return Status::Internal("pki.db has no root or no active signing generation");
        }
        root_pem_ = root->certificate_pem;
        // Every trusted key must still unseal: a replaced secrets key fails
        // start-up here, not the first enrollment.
        for (const KeyRow& r : *rows) {
            if (r.state == kStateRetired) continue;
            auto keys = open_keys(r, secrets_);
            if (!keys.ok()) return keys.status();
        }
    }
    std::lock_guard lock(mu_);
    // A generation whose first CRL was never written (a crash inside a
    // rotation start) gets it now, rather than failing every start.
    std::vector<int> missing;
    {
        auto conn = db_->lock();
        auto rows = read_keys(conn);
        if (!rows.ok()) return rows.status();
        for (const KeyRow& r : *rows) {
            if (r.state != kStateActive && r.state != kStatePending) continue;
            auto crl = read_crl(conn, r.generation);
            if (!crl.ok()) return crl.status();
            if (!*crl) missing.push_back(r.generation);
        }
    }
    for (int g : missing) YUZU_RETURN_IF_ERROR(republish_crl_locked(g));
    return publish_trust();
}

Status CertificateAuthority::publish_trust() {
    auto conn = db_->lock();
    auto rows = read_keys(conn);
    if (!rows.ok()) return rows.status();
    std::vector<TrustedGeneration> trusted;
    const KeyRow* issuing = find_state(*rows, kStatePending);
    if (issuing == nullptr) issuing = find_state(*rows, kStateActive);
    for (const KeyRow& r : *rows) {
        if (r.state != kStateActive && r.state != kStatePending) continue;
        auto crl = read_crl(conn, r.generation);
        if (!crl.ok()) return crl.status();
        if (!*crl)
            return Status::Internal("pki.db: generation " + std::to_string(r.generation) +
                                    " has no CRL");
        trusted.push_back({r.generation, r.key_id, r.certificate_pem, (*crl)->crl_pem});
    }
    auto snap = TrustSnapshot::build(root_pem_, trusted, issuing != nullptr ? issuing->key_id : "");
    if (!snap.ok()) return snap.status();
    std::lock_guard lock(trust_mu_);
    trust_ = std::move(snap).value();
    return Status::Ok();
}

Status CertificateAuthority::republish_crl_locked(int generation) {
    auto conn = db_->lock();
    auto rows = read_keys(conn);
    if (!rows.ok()) return rows.status();
    const KeyRow* row = nullptr;
    for (const KeyRow& r : *rows) {
        if (r.generation == generation) row = &r;
    }
    if (row == nullptr || generation == 0) {
        return Status::NotFound("no CA generation " + std::to_string(generation));
    }
    auto keys = open_keys(*row, secrets_);
    if (!keys.ok()) return keys.status();
    auto revoked = revoked_by_issuer(conn, row->key_id);
    if (!revoked.ok()) return revoked.status();
    auto previous = read_crl(conn, generation);
    if (!previous.ok()) return previous.status();
    std::vector<RevokedEntry> entries;
    for (const auto& [serial, at_ms] : *revoked) entries.push_back({serial, at_ms / 1000});
    const int64_t now_s = clock_.now_ms() / 1000;
    const int64_t number = *previous ? (*previous)->crl_number + 1 : 1;
    auto crl = build_crl(keys->certificate.get(), keys->key.get(), number, now_s,
                         now_s + kCrlLifetimeS, entries);
    if (!crl.ok()) return crl.status();
    return upsert_crl(conn, CrlRow{generation, number, clock_.now_ms(), to_pem(crl->get())});
}

int CertificateAuthority::issuing_generation() const {
    auto conn = db_->lock();
    auto rows = read_keys(conn);
    if (!rows.ok()) return 0;
    if (const KeyRow* p = find_state(*rows, kStatePending)) return p->generation;
    const KeyRow* a = find_state(*rows, kStateActive);
    return a != nullptr ? a->generation : 0;
}

Status CertificateAuthority::check_csr(const std::string& csr_pem) {
    auto key = csr_key(csr_pem);
    return key.ok() ? Status::Ok() : key.status();
}

Result<Issued> CertificateAuthority::issue(const IssueRequest& request) {
    YUZU_RETURN_IF_ERROR(check_common_name(request.common_name));
    if (request.purpose == Purpose::kAgent && request.agent_id.empty()) {
        return Status::InvalidArgument("an agent certificate needs the agent id");
    }
    auto key = csr_key(request.csr_pem);
    if (!key.ok()) return key.status();
    std::lock_guard lock(mu_);
    return issue_locked(request, key->get());
}

Result<Issued> CertificateAuthority::issue_locked(const IssueRequest& request,
                                                  EVP_PKEY* subject_key) {
    auto conn = db_->lock();
    auto rows = read_keys(conn);
    if (!rows.ok()) return rows.status();
    const KeyRow* signer = find_state(*rows, kStatePending);
    if (signer == nullptr) signer = find_state(*rows, kStateActive);
    const KeyRow* root = find_state(*rows, kStateRoot);
    if (signer == nullptr || root == nullptr) return Status::Internal("pki.db has no signing key");
    auto keys = open_keys(*signer, secrets_);
    if (!keys.ok()) return keys.status();

    const int64_t now_ms = clock_.now_ms();
    CertSpec spec;
    spec.kind = request.purpose == Purpose::kAgent    ? CertKind::kAgent
                : request.purpose == Purpose::kServer ? CertKind::kServer
                                                      : CertKind::kCodeSigning;
    spec.common_name = request.common_name;
    spec.dns_names = request.dns_names;
    spec.ip_addresses = request.ip_addresses;
    const int64_t lifetime = request.purpose == Purpose::kAgent    ? kAgentLifetimeS
                             : request.purpose == Purpose::kServer ? kServerLifetimeS
                                                                   : kCodeSigningLifetimeS;
    // A little backdating absorbs clock skew between server and agents.
    spec.not_before_s = now_ms / 1000 - 300;
    spec.not_after_s = now_ms / 1000 + lifetime;
    auto cert = build_certificate(spec, subject_key, keys->certificate.get(), keys->key.get());
    if (!cert.ok()) return cert.status();

    Issued out;
    IssuedCertificate& c = out.certificate;
    c.serial_hex = serial_hex(X509_get0_serialNumber(cert->get()));
    c.purpose = request.purpose;
    c.subject = request.common_name;
    for (const auto& d : request.dns_names) c.san.push_back("DNS:" + d);
    for (const auto& i : request.ip_addresses) c.san.push_back("IP:" + i);
    c.agent_id = request.agent_id;
    c.generation = signer->generation;
    c.issuer_key_id = signer->key_id;
    c.issued_by = request.issued_by;
    c.issued_at_ms = now_ms;
    c.not_before_ms = spec.not_before_s * 1000;
    c.not_after_ms = spec.not_after_s * 1000;
    c.certificate_pem = to_pem(cert->get());
    YUZU_RETURN_IF_ERROR(insert_certificate(conn, c));
    out.chain_pem = signer->certificate_pem + root->certificate_pem;
    return out;
}

Result<ServerIdentity> CertificateAuthority::issue_server_identity(
    const std::vector<std::string>& dns_names, const std::vector<std::string>& ip_addresses) {
    PkeyPtr key = generate_ec_key();
    if (!key) return Status::Internal("cannot make a server key: " + openssl_error());
    IssueRequest request;
    request.purpose = Purpose::kServer;
    request.common_name = !dns_names.empty()      ? dns_names.front()
                          : !ip_addresses.empty() ? ip_addresses.front()
                                                  : "yuzu-server";
    request.dns_names = dns_names;
    request.ip_addresses = ip_addresses;
    request.issued_by = "server";
    YUZU_RETURN_IF_ERROR(check_common_name(request.common_name));
    Result<Issued> issued = Status::Internal("unset");
    {
        std::lock_guard lock(mu_);
        issued = issue_locked(request, key.get());
    }
    if (!issued.ok()) return issued.status();
    ServerIdentity id;
    auto leaf = parse_certificate(issued->certificate.certificate_pem);
    if (!leaf.ok()) return leaf.status();
    id.certificate = std::shared_ptr<X509>(leaf->release(), X509_free);
    std::string_view rest = issued->chain_pem;
    while (!rest.empty()) {
        const size_t end_marker = rest.find("-----END CERTIFICATE-----");
        if (end_marker == std::string_view::npos) break;
        const size_t end = end_marker + std::string_view("-----END CERTIFICATE-----").size();
        auto cert = parse_certificate(rest.substr(0, end));
        if (!cert.ok()) return cert.status();
        id.chain.push_back(std::shared_ptr<X509>(cert->release(), X509_free));
        rest.remove_prefix(end);
    }
    id.key = std::shared_ptr<EVP_PKEY>(key.release(), EVP_PKEY_free);
    id.serial_hex = issued->certificate.serial_hex;
    id.not_before_ms = issued->certificate.not_before_ms;
    id.not_after_ms = issued->certificate.not_after_ms;
    return id;
}

Result<IssuedCertificate> CertificateAuthority::revoke(const std::string& serial,
                                                       const std::string& reason) {
    auto normalized = normalize_serial_hex(serial);
    if (!normalized) return Status::InvalidArgument("serial_hex must be 1..64 hex digits");
    if (reason.size() > kMaxRevocationReasonBytes) {
        return Status::InvalidArgument("reason is over " +
                                       std::to_string(kMaxRevocationReasonBytes) + " bytes");
    }
    auto revoked = revoke_locked(*normalized, reason);
    if (!revoked.ok()) return revoked;
    RevocationListener listener;
    {
        std::lock_guard lock(trust_mu_);
        listener = on_revoked_;
    }
    if (listener) listener(*revoked);
    return revoked;
}

void CertificateAuthority::set_revocation_listener(RevocationListener listener) {
    std::lock_guard lock(trust_mu_);
    on_revoked_ = std::move(listener);
}

Result<IssuedCertificate> CertificateAuthority::revoke_locked(const std::string& serial,
                                                              const std::string& reason) {
    std::lock_guard lock(mu_);
    IssuedCertificate revoked;
    {
        auto conn = db_->lock();
        auto found = find_certificate(conn, serial);
        if (!found.ok()) return found.status();
        if (!*found) return Status::NotFound("no certificate with serial " + serial);
        if ((*found)->revoked()) {
            return Status::FailedPrecondition("certificate " + serial + " is already revoked");
        }
        revoked = std::move(**found);
        revoked.revoked_at_ms = clock_.now_ms();
        revoked.revocation_reason = reason;
        YUZU_RETURN_IF_ERROR(
            mark_revoked(conn, revoked.serial_hex, *revoked.revoked_at_ms, reason));
    }
    // The revocation row is committed first: a crash before the CRL is
    // republished leaves a row that the forced refresh at the next start
    // publishes, never a CRL that forgot a revocation.
    std::vector<KeyRow> rows;
    {
        auto conn = db_->lock();
        auto read = read_keys(conn);
        if (!read.ok()) return read.status();
        rows = std::move(read).value();
    }
    for (const KeyRow& r : rows) {
        if (r.key_id == revoked.issuer_key_id && r.generation != 0) {
            YUZU_RETURN_IF_ERROR(republish_crl_locked(r.generation));
        }
    }
    YUZU_RETURN_IF_ERROR(publish_trust());
    return revoked;
}

Result<CertificatePage> CertificateAuthority::list(const ListFilter& filter) const {
    if (filter.limit < 1 || filter.limit > 1000 || filter.offset < 0) {
        return Status::InvalidArgument("limit must be 1..1000 and offset >= 0");
    }
    auto conn = db_->lock();
    return list_certificates(conn, filter);
}

Result<IssuedCertificate> CertificateAuthority::find(const std::string& serial) const {
    auto normalized = normalize_serial_hex(serial);
    if (!normalized) return Status::InvalidArgument("serial_hex must be 1..64 hex digits");
    auto conn = db_->lock();
    auto found = find_certificate(conn, *normalized);
    if (!found.ok()) return found.status();
    if (!*found) return Status::NotFound("no certificate with serial " + *normalized);
    return std::move(**found);
}

Result<std::optional<IssuedCertificate>> CertificateAuthority::newest_for_agent(
    const std::string& agent_id, bool include_revoked) const {
    auto conn = db_->lock();
    return newest_agent_certificate(conn, agent_id, include_revoked);
}

std::shared_ptr<const TrustSnapshot> CertificateAuthority::trust() const {
    std::lock_guard lock(trust_mu_);
    return trust_;
}

std::string CertificateAuthority::root_fingerprint_sha256() const {
    auto cert = parse_certificate(root_pem_);
    if (!cert.ok()) return "";
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (X509_digest(cert->get(), EVP_sha256(), digest, &n) != 1) return "";
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned int i = 0; i < n; ++i) {
        if (i > 0) out.push_back(':');
        out.push_back(hex[digest[i] >> 4]);
        out.push_back(hex[digest[i] & 0x0F]);
    }
    return out;
}

Result<std::vector<GenerationInfo>> CertificateAuthority::generations() const {
    auto conn = db_->lock();
    auto rows = read_keys(conn);
    if (!rows.ok()) return rows.status();
    std::vector<GenerationInfo> out;
    for (const KeyRow& r : *rows) {
        if (r.generation == 0) continue;
        GenerationInfo g;
        g.generation = r.generation;
        g.state = r.state == kStatePending   ? GenerationState::kPending
                  : r.state == kStateRetired ? GenerationState::kRetired
                                             : GenerationState::kActive;
        g.key_id = r.key_id;
        g.created_at_ms = r.created_at_ms;
        g.retired_at_ms = r.retired_at_ms;
        auto crl = read_crl(conn, r.generation);
        if (!crl.ok()) return crl.status();
        if (*crl) {
            g.crl_number = (*crl)->crl_number;
            g.crl_published_at_ms = (*crl)->published_at_ms;
        }
        out.push_back(g);
    }
    return out;
}

Result<std::string> CertificateAuthority::crl_pem(int generation) const {
    auto conn = db_->lock();
    auto crl = read_crl(conn, generation);
    if (!crl.ok()) return crl.status();
    if (!*crl) return Status::NotFound("no CRL for generation " + std::to_string(generation));
    return (*crl)->crl_pem;
}

}  // namespace yuzu::pki
