// The agent plane's TLS when client certificates are on (--agent-mtls):
// the server's certificate — the operator's files, or else an identity the
// internal CA issues at start and renews in memory — and verification of
// every client certificate against the CA's current trust snapshot, CRLs
// included. A peer that sends a certificate that does not verify fails the
// handshake; one that sends none gets through TLS, and the routes decide
// (enroll needs none; in "required" mode every other route refuses it).
//
// Session resumption and tickets are off: a resumed session would skip the
// verification, and so the CRL, that a revocation relies on.
//
// Start-up order: create() and configure() while the listeners are built
// (a bad certificate file fails there, before any store is opened), then
// attach() once the CA is open, before serving. Thread-safety: the
// callbacks and renew_if_due() from any thread after attach().
#pragma once

#include <openssl/types.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/pki/certificate_authority.hpp"

namespace yuzu::agentapi {

enum class ClientCertMode { kOff, kOptional, kRequired };

std::optional<ClientCertMode> parse_client_cert_mode(std::string_view text);
std::string_view client_cert_mode_name(ClientCertMode mode);

struct AgentTlsOptions {
    ClientCertMode mode = ClientCertMode::kRequired;
    // Both set: the server's certificate comes from these files.
    std::string cert_file;
    std::string key_file;
    // Otherwise the CA issues one with these names.
    std::vector<std::string> dns_names;
    std::vector<std::string> ip_addresses;
};

class AgentTls {
  public:
    static std::unique_ptr<AgentTls> create(const AgentTlsOptions& options, const Clock& clock);
    ~AgentTls();
    AgentTls(const AgentTls&) = delete;
    AgentTls& operator=(const AgentTls&) = delete;

    // http::ServerOptions::tls_setup for the agent listener.
    Status configure(SSL_CTX& ctx);
    // The CA that verifies client certificates and, without files, issues
    // the server's certificate (now). Until then every handshake fails.
    Status attach(pki::CertificateAuthority& ca);
    // Issues a new server identity once a third of the current one's life
    // is left (never when the certificate comes from files). Whether it did.
    Result<bool> renew_if_due();
    ClientCertMode mode() const { return options_.mode; }
    // The serial of the server identity in use ("" with files).
    std::string server_serial() const;

  private:
    AgentTls(const AgentTlsOptions& options, const Clock& clock);
    static int select_certificate(SSL* ssl, void* self);
    static int verify_client(X509_STORE_CTX* store_ctx, void* self);
    std::shared_ptr<const pki::ServerIdentity> identity() const;

    const AgentTlsOptions options_;
    // Set once by attach(), before the listener's threads start.
    pki::CertificateAuthority* ca_ = nullptr;
    const Clock& clock_;
    mutable std::mutex mu_;
    std::shared_ptr<const pki::ServerIdentity> identity_;  // guarded by mu_
    std::atomic<int64_t> last_refusal_log_ms_{0};
};

}  // namespace yuzu::agentapi
