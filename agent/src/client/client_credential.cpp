#include "client/client_credential.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <utility>

#include "client/atomic_file.hpp"

namespace yuzu::agent {
namespace {

namespace fs = std::filesystem;

// Public, but the state directory keeps everything private (the unit's
// UMask is 0077), so the certificate is 0600 like the rest.
constexpr mode_t kCertificateMode = 0600;

Status rename_file(const fs::path& from, const fs::path& to) {
    if (::rename(from.c_str(), to.c_str()) != 0) {
        return Status::Unavailable("cannot rename " + from.string() + " to " + to.string() + ": " +
                                   std::strerror(errno));
    }
    return Status::Ok();
}

void remove_file(const fs::path& path) {
    std::error_code ec;
    fs::remove(path, ec);
}

bool file_exists(const fs::path& path) {
    std::error_code ec;
    return fs::exists(path, ec);
}

// Whether the first certificate of cert_file certifies the key in key_file.
bool files_match(const fs::path& cert_file, const fs::path& key_file) {
    auto certs = load_certificate_file(cert_file);
    if (!certs.ok()) return false;
    auto key = load_key_file(key_file);
    return key.ok() && key_matches(certs->front().get(), key->get());
}

// The issued leaf, once it is known to certify key and the chain parses.
Result<X509Ptr> checked_leaf(const IssuedCertificate& issued, EVP_PKEY* key) {
    auto leaf = parse_certificates(issued.certificate);
    if (!leaf.ok()) return leaf.status();
    if (!issued.chain.empty()) {
        auto chain = parse_certificates(issued.chain);
        if (!chain.ok())
            return Status::InvalidArgument("certificate_chain: " + chain.status().message());
    }
    X509Ptr cert = std::move(leaf->front());
    if (!key_matches(cert.get(), key)) {
        return Status::FailedPrecondition("the issued certificate is not for this identity's key");
    }
    return cert;
}

// The leaf then the chain, so TLS sends the issuing CA with the leaf.
std::string certificate_file_text(const IssuedCertificate& issued) {
    std::string text = issued.certificate;
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += issued.chain;
    if (!text.empty() && text.back() != '\n') text += '\n';
    return text;
}

}  // namespace

Result<RenewalRecovery> recover_interrupted_renewal(const fs::path& identity_dir) {
    const fs::path key = identity_dir / kClientKeyFileName;
    const fs::path cert = identity_dir / kClientCertFileName;
    const fs::path new_key = identity_dir / kNewClientKeyFileName;
    const fs::path new_cert = identity_dir / kNewClientCertFileName;
    const bool has_new_key = file_exists(new_key);
    const bool has_new_cert = file_exists(new_cert);
    if (!has_new_key && !has_new_cert) return RenewalRecovery::kNothing;
    // The new certificate's key: client.key.new until step 3 renamed it.
    if (has_new_cert && files_match(new_cert, has_new_key ? new_key : key)) {
        if (has_new_key) YUZU_RETURN_IF_ERROR(rename_file(new_key, key));
        YUZU_RETURN_IF_ERROR(rename_file(new_cert, cert));
        (void)sync_directory(identity_dir);
        return RenewalRecovery::kFinished;
    }
    remove_file(new_key);
    remove_file(new_cert);
    // Never keep a pair that does not match: without client.crt the identity
    // carries on with its device token until the server issues a new one.
    if (file_exists(cert) && !files_match(cert, key)) remove_file(cert);
    (void)sync_directory(identity_dir);
    return RenewalRecovery::kRolledBack;
}

ClientCredential::ClientCredential(fs::path identity_dir) : dir_(std::move(identity_dir)) {}

std::optional<CredentialFiles> ClientCredential::usable_files(std::string* problem) const {
    problem->clear();
    if (!file_exists(cert_path()) || !file_exists(key_path())) return std::nullopt;
    auto certs = load_certificate_file(cert_path());
    if (!certs.ok()) {
        *problem = certs.status().message();
        return std::nullopt;
    }
    const CertificateInfo info = describe_certificate(certs->front().get());
    if (info.not_after_s != 0 && info.not_after_s < static_cast<int64_t>(std::time(nullptr))) {
        *problem = cert_path().string() + " expired at " + info.not_after;
        return std::nullopt;
    }
    return CredentialFiles{cert_path().string(), key_path().string()};
}

bool ClientCredential::claim_warning(uint64_t generation) const {
    return warned_generation_.exchange(generation) != generation;
}

Result<std::string> ClientCredential::enrollment_csr(const std::string& common_name) {
    std::lock_guard lock(files_mu_);
    auto key = load_key_file(key_path());
    if (!key.ok() && key.status().code() == StatusCode::kInvalidArgument) {
        spdlog::warn("{}; replacing it with a new key", key.status().message());
        remove_file(key_path());
    } else if (!key.ok() && key.status().code() != StatusCode::kNotFound) {
        return key.status();
    }
    if (!key.ok()) key = create_key_file(key_path());
    if (!key.ok()) return key.status();
    // A certificate of an earlier enrollment names another agent id.
    if (file_exists(cert_path())) {
        remove_file(cert_path());
        (void)sync_directory(dir_);
        bump();
    }
    return make_csr(key->get(), common_name);
}

Result<CertificateInfo> ClientCredential::install(const IssuedCertificate& issued) {
    std::lock_guard lock(files_mu_);
    auto key = load_key_file(key_path());
    if (!key.ok()) return key.status();
    auto leaf = checked_leaf(issued, key->get());
    if (!leaf.ok()) return leaf.status();
    YUZU_RETURN_IF_ERROR(
        write_file_atomically(cert_path(), certificate_file_text(issued), kCertificateMode));
    bump();
    return describe_certificate(leaf->get());
}

Result<std::string> ClientCredential::begin_renewal(const std::string& common_name) {
    std::lock_guard lock(files_mu_);
    remove_renewal_files();  // a renewal that failed before
    auto key = create_key_file(dir_ / kNewClientKeyFileName);
    if (!key.ok()) return key.status();
    auto csr = make_csr(key->get(), common_name);
    if (!csr.ok()) remove_renewal_files();
    return csr;
}

Result<CertificateInfo> ClientCredential::finish_renewal(const IssuedCertificate& issued) {
    std::lock_guard lock(files_mu_);
    const fs::path new_key = dir_ / kNewClientKeyFileName;
    const fs::path new_cert = dir_ / kNewClientCertFileName;
    auto key = load_key_file(new_key);
    if (!key.ok()) {
        remove_renewal_files();
        return Status::FailedPrecondition("no renewal in progress: " + key.status().message());
    }
    auto leaf = checked_leaf(issued, key->get());
    Status status = leaf.ok() ? Status::Ok() : leaf.status();
    if (status.ok()) {
        status = write_file_atomically(new_cert, certificate_file_text(issued), kCertificateMode);
    }
    if (status.ok()) status = rename_file(new_key, key_path());  // step 3
    if (!status.ok()) {
        remove_renewal_files();
        return status;
    }
    (void)sync_directory(dir_);
    bump();  // the key has changed: a channel built now goes without a certificate
    YUZU_RETURN_IF_ERROR(rename_file(new_cert, cert_path()));  // step 4; else the next start
    (void)sync_directory(dir_);
    bump();
    return describe_certificate(leaf->get());
}

void ClientCredential::abandon_renewal() {
    std::lock_guard lock(files_mu_);
    remove_renewal_files();
}

void ClientCredential::remove_renewal_files() const {
    remove_file(dir_ / kNewClientKeyFileName);
    remove_file(dir_ / kNewClientCertFileName);
}

}  // namespace yuzu::agent
