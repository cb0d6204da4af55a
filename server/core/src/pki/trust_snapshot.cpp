#include "yuzu/pki/trust_snapshot.hpp"

#include <openssl/x509_vfy.h>

#include "pki/openssl_util.hpp"

namespace yuzu::pki {

using detail::parse_certificate;
using detail::parse_crl;

Result<std::shared_ptr<const TrustSnapshot>> TrustSnapshot::build(
    const std::string& root_pem, const std::vector<TrustedGeneration>& generations,
    const std::string& issuing_key_id) {
    std::shared_ptr<TrustSnapshot> snap(new TrustSnapshot());
    snap->issuing_key_id_ = issuing_key_id;
    snap->store_ = X509_STORE_new();
    if (snap->store_ == nullptr) return Status::Internal("X509_STORE_new failed");
    auto root = parse_certificate(root_pem);
    if (!root.ok()) return root.status();
    if (X509_STORE_add_cert(snap->store_, root->get()) != 1) {
        return Status::Internal("cannot trust the root: " + detail::openssl_error());
    }
    snap->ca_bundle_pem_ = root_pem;
    for (const TrustedGeneration& g : generations) {
        auto cert = parse_certificate(g.certificate_pem);
        if (!cert.ok()) return cert.status();
        auto crl = parse_crl(g.crl_pem);
        if (!crl.ok()) return crl.status();
        // The signing certificates sit in the store beside the root: a peer
        // that sends only its leaf still chains, and the chain still ends at
        // the self-signed root (no partial-chain flag).
        if (X509_STORE_add_cert(snap->store_, cert->get()) != 1 ||
            X509_STORE_add_crl(snap->store_, crl->get()) != 1) {
            return Status::Internal("cannot build the trust store: " + detail::openssl_error());
        }
        const STACK_OF(X509_REVOKED)* revoked = X509_CRL_get_REVOKED(crl->get());
        for (int i = 0; i < sk_X509_REVOKED_num(revoked); ++i) {
            snap->revoked_serials_.insert(detail::serial_hex(
                X509_REVOKED_get0_serialNumber(sk_X509_REVOKED_value(revoked, i))));
        }
        snap->ca_bundle_pem_ += g.certificate_pem;
        snap->generations_.push_back(g);
    }
    X509_STORE_set_flags(snap->store_, X509_V_FLAG_CRL_CHECK | X509_V_FLAG_X509_STRICT);
    return std::shared_ptr<const TrustSnapshot>(std::move(snap));
}

TrustSnapshot::~TrustSnapshot() {
    if (store_ != nullptr) X509_STORE_free(store_);
}

Status TrustSnapshot::verify(X509* leaf, stack_st_X509* untrusted, int64_t now_s) const {
    if (leaf == nullptr) return Status::Unauthenticated("no client certificate");
    X509_STORE_CTX* ctx = X509_STORE_CTX_new();
    if (ctx == nullptr) return Status::Internal("X509_STORE_CTX_new failed");
    Status result = Status::Ok();
    if (X509_STORE_CTX_init(ctx, store_, leaf, untrusted) != 1) {
        result = Status::Internal("cannot start a verification: " + detail::openssl_error());
    } else {
        X509_STORE_CTX_set_time(ctx, 0, static_cast<time_t>(now_s));
        X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT);
        if (X509_verify_cert(ctx) != 1) {
            result = Status::Unauthenticated(
                std::string("client certificate refused: ") +
                X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
        }
    }
    X509_STORE_CTX_free(ctx);
    return result;
}

bool TrustSnapshot::lists_revoked(const std::string& serial_hex) const {
    return revoked_serials_.count(serial_hex) != 0;
}

int TrustSnapshot::generation_of_issuer(const std::string& issuer_key_id) const {
    for (const TrustedGeneration& g : generations_) {
        if (g.key_id == issuer_key_id) return g.generation;
    }
    return 0;
}

}  // namespace yuzu::pki
