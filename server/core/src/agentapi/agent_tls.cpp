#include "yuzu/agentapi/agent_tls.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <spdlog/spdlog.h>

namespace yuzu::agentapi {
namespace {

// A storm of refused handshakes (a revoked fleet) logs once a minute.
constexpr int64_t kRefusalLogSpacingMs = 60'000;

std::string ssl_error() {
    const unsigned long e = ERR_get_error();
    ERR_clear_error();
    if (e == 0) return "unknown OpenSSL error";
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    return buf;
}

}  // namespace

std::optional<ClientCertMode> parse_client_cert_mode(std::string_view text) {
    if (text == "off") return ClientCertMode::kOff;
    if (text == "optional") return ClientCertMode::kOptional;
    if (text == "required") return ClientCertMode::kRequired;
    return std::nullopt;
}

std::string_view client_cert_mode_name(ClientCertMode mode) {
    switch (mode) {
        case ClientCertMode::kOff:
            return "off";
        case ClientCertMode::kOptional:
            return "optional";
        case ClientCertMode::kRequired:
            return "required";
    }
    return "off";
}

AgentTls::AgentTls(const AgentTlsOptions& options, const Clock& clock)
    : options_(options), clock_(clock) {}

AgentTls::~AgentTls() = default;

std::unique_ptr<AgentTls> AgentTls::create(const AgentTlsOptions& options, const Clock& clock) {
    return std::unique_ptr<AgentTls>(new AgentTls(options, clock));
}

Status AgentTls::attach(pki::CertificateAuthority& ca) {
    ca_ = &ca;
    if (!options_.cert_file.empty()) return Status::Ok();
    auto id = ca.issue_server_identity(options_.dns_names, options_.ip_addresses);
    if (!id.ok()) return id.status();
    auto identity = std::make_shared<const pki::ServerIdentity>(std::move(id).value());
    spdlog::info("agent plane: server certificate {} from the internal CA", identity->serial_hex);
    std::lock_guard lock(mu_);
    identity_ = std::move(identity);
    return Status::Ok();
}

std::shared_ptr<const pki::ServerIdentity> AgentTls::identity() const {
    std::lock_guard lock(mu_);
    return identity_;
}

std::string AgentTls::server_serial() const {
    auto id = identity();
    return id ? id->serial_hex : "";
}

Status AgentTls::configure(SSL_CTX& ctx) {
    SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_TICKET |
                                  SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_session_cache_mode(&ctx, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_num_tickets(&ctx, 0);
    if (!options_.cert_file.empty()) {
        if (SSL_CTX_use_certificate_chain_file(&ctx, options_.cert_file.c_str()) != 1) {
            return Status::InvalidArgument("TLS certificate " + options_.cert_file + ": " +
                                           ssl_error());
        }
        if (SSL_CTX_use_PrivateKey_file(&ctx, options_.key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
            SSL_CTX_check_private_key(&ctx) != 1) {
            return Status::InvalidArgument("TLS key " + options_.key_file + ": " + ssl_error());
        }
    } else {
        SSL_CTX_set_cert_cb(&ctx, &AgentTls::select_certificate, this);
    }
    if (options_.mode != ClientCertMode::kOff) {
        // Ask for a certificate without failing the handshake when none
        // comes: enrollment is how an agent gets its first one.
        SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, nullptr);
        SSL_CTX_set_cert_verify_callback(&ctx, &AgentTls::verify_client, this);
    }
    return Status::Ok();
}

int AgentTls::select_certificate(SSL* ssl, void* self) {
    auto id = static_cast<AgentTls*>(self)->identity();
    if (!id) return 0;
    if (SSL_use_certificate(ssl, id->certificate.get()) != 1 ||
        SSL_use_PrivateKey(ssl, id->key.get()) != 1 || SSL_clear_chain_certs(ssl) != 1) {
        return 0;
    }
    // The issuing generation only: a peer that trusts the root needs no more.
    if (!id->chain.empty() && SSL_add1_chain_cert(ssl, id->chain.front().get()) != 1) return 0;
    return 1;
}

int AgentTls::verify_client(X509_STORE_CTX* store_ctx, void* self) {
    auto* tls = static_cast<AgentTls*>(self);
    X509* leaf = X509_STORE_CTX_get0_cert(store_ctx);
    const Status verified =
        tls->ca_ == nullptr
            ? Status::Unavailable("the internal CA is not open yet")
            : tls->ca_->trust()->verify(leaf, X509_STORE_CTX_get0_untrusted(store_ctx),
                                        tls->clock_.now_s());
    if (verified.ok()) return 1;
    X509_STORE_CTX_set_error(store_ctx, X509_V_ERR_CERT_REJECTED);
    const int64_t now = tls->clock_.now_ms();
    int64_t last = tls->last_refusal_log_ms_.load();
    if (now - last >= kRefusalLogSpacingMs &&
        tls->last_refusal_log_ms_.compare_exchange_strong(last, now)) {
        spdlog::warn("agent plane: TLS handshake refused: {} (logged at most once a minute)",
                     verified.message());
    }
    return 0;
}

Result<bool> AgentTls::renew_if_due() {
    auto current = identity();
    if (!current || ca_ == nullptr) return false;
    const int64_t life = current->not_after_ms - current->not_before_ms;
    if (current->not_after_ms - clock_.now_ms() > life / 3) return false;
    auto fresh = ca_->issue_server_identity(options_.dns_names, options_.ip_addresses);
    if (!fresh.ok()) return fresh.status();
    auto next = std::make_shared<const pki::ServerIdentity>(std::move(fresh).value());
    spdlog::info("agent plane: server certificate renewed (serial {})", next->serial_hex);
    std::lock_guard lock(mu_);
    identity_ = std::move(next);
    return true;
}

}  // namespace yuzu::agentapi
