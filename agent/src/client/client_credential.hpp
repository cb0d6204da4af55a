// One identity's client certificate: client.key and client.crt in its
// directory, made at enrollment and replaced on renewal, and a generation
// number that changes whenever they do, so the identity's channels
// (http_channel.hpp) build a new TLS client at their next request.
//
// A renewal goes in four steps; a crash after each leaves the files that
// recover_interrupted_renewal() finishes or rolls back at the next start,
// so client.key and client.crt never stay a pair that does not match:
//   1. client.key.new written (0600)    -> rolled back: the .new files are deleted
//   2. client.crt.new written, for it   -> finished: key.new -> key, crt.new -> crt
//   3. client.key.new -> client.key     -> finished: crt.new -> crt (it matches client.key)
//   4. client.crt.new -> client.crt     -> nothing left to do
// A .new certificate that does not match its key is deleted, never installed.
//
// Thread-safety: every member may be called from any thread. Changes to the
// files, and a channel's loading of them (under lock_files()), are
// serialized by one mutex, so a channel never loads the pair mid-swap.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

#include "client/client_certificate.hpp"
#include "client/protocol_json.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::agent {

enum class RenewalRecovery { kNothing, kFinished, kRolledBack };

// At start, before any channel of the identity exists: finishes or rolls
// back a renewal a crash interrupted (see the table above).
Result<RenewalRecovery> recover_interrupted_renewal(const std::filesystem::path& identity_dir);

// The files a channel presents.
struct CredentialFiles {
    std::string cert_path;
    std::string key_path;
};

class ClientCredential {
  public:
    explicit ClientCredential(std::filesystem::path identity_dir);
    ClientCredential(const ClientCredential&) = delete;
    ClientCredential& operator=(const ClientCredential&) = delete;

    std::filesystem::path cert_path() const { return dir_ / kClientCertFileName; }
    std::filesystem::path key_path() const { return dir_ / kClientKeyFileName; }

    // Changes each time client.crt or client.key is replaced or removed.
    uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
    // Held while a channel loads the files.
    std::unique_lock<std::mutex> lock_files() const { return std::unique_lock(files_mu_); }
    // The files to present, when both exist and the certificate has not
    // expired; nullopt otherwise, with the reason in *problem ("" when there
    // simply is no certificate yet). The caller holds lock_files().
    std::optional<CredentialFiles> usable_files(std::string* problem) const;
    // True for the first caller of a generation: a bad file is warned about
    // once, not by every channel.
    bool claim_warning(uint64_t generation) const;

    // Enrollment (the identity's thread). The CSR for client.key, which is
    // created when absent (or replaced when unreadable); a client.crt left
    // from an earlier enrollment is removed.
    Result<std::string> enrollment_csr(const std::string& common_name);
    // Writes client.crt (the leaf, then the chain) once the leaf is checked
    // to certify client.key. FailedPrecondition when it does not.
    Result<CertificateInfo> install(const IssuedCertificate& issued);

    // Renewal (the heartbeat's thread): a fresh client.key.new and its CSR.
    Result<std::string> begin_renewal(const std::string& common_name);
    // Steps 2-4 for the issued certificate; on failure the .new files are
    // removed and the old pair stays.
    Result<CertificateInfo> finish_renewal(const IssuedCertificate& issued);
    // Removes the .new files of a renewal that got no certificate.
    void abandon_renewal();

  private:
    void bump() { generation_.fetch_add(1, std::memory_order_acq_rel); }
    void remove_renewal_files() const;  // caller holds files_mu_

    const std::filesystem::path dir_;
    mutable std::mutex files_mu_;  // held while the credential files are read or changed
    std::atomic<uint64_t> generation_{0};
    mutable std::atomic<uint64_t> warned_generation_{UINT64_MAX};
};

}  // namespace yuzu::agent
