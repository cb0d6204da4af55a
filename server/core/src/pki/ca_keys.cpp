#include "pki/ca_keys.hpp"

#include "pki/x509_builder.hpp"
#include "yuzu/auth/secret_box.hpp"
#include "yuzu/pki/certificate.hpp"

namespace yuzu::pki::detail {

std::string key_aad(int generation) {
    return generation == 0 ? std::string("pki:root") : "pki:signing:" + std::to_string(generation);
}

Result<OpenedKeys> open_keys(const KeyRow& row, const auth::SecretBox& box) {
    OpenedKeys keys;
    auto cert = parse_certificate(row.certificate_pem);
    if (!cert.ok()) return Status::Internal("pki.db: " + cert.status().message());
    auto pem = box.open(row.sealed_key, key_aad(row.generation));
    if (!pem.ok()) {
        return Status::Internal("pki.db: the key of CA generation " +
                                std::to_string(row.generation) +
                                " could not be unsealed (was the secrets key file replaced?)");
    }
    auto key = parse_private_key(*pem);
    wipe(*pem);
    if (!key.ok()) return key.status();
    keys.certificate = std::move(cert).value();
    keys.key = std::move(key).value();
    keys.key_id = row.key_id;
    keys.generation = row.generation;
    return keys;
}

Result<KeyRow> make_generation(int generation, X509* root, EVP_PKEY* root_key,
                               const std::string& ca_name, const auth::SecretBox& box,
                               int64_t now_ms, const std::string& by) {
    PkeyPtr key = generate_ec_key();
    if (!key) return Status::Internal("cannot make a CA key: " + openssl_error());
    CertSpec spec;
    spec.kind = generation == 0 ? CertKind::kRoot : CertKind::kSigning;
    spec.organization = "Yuzu";
    spec.common_name =
        generation == 0 ? ca_name + " Root" : ca_name + " Signing " + std::to_string(generation);
    spec.not_before_s = now_ms / 1000 - 300;
    spec.not_after_s = now_ms / 1000 + (generation == 0 ? kRootLifetimeS : kSigningLifetimeS);
    auto cert = build_certificate(spec, key.get(), root, generation == 0 ? key.get() : root_key);
    if (!cert.ok()) return cert.status();
    auto pem = private_key_pem(key.get());
    if (!pem.ok()) return pem.status();
    auto sealed = box.seal(*pem, key_aad(generation));
    wipe(*pem);
    if (!sealed.ok()) return sealed.status();
    KeyRow row;
    row.generation = generation;
    row.state = generation == 0 ? kStateRoot : kStateActive;
    row.certificate_pem = to_pem(cert->get());
    row.sealed_key = std::move(sealed).value();
    row.key_id = subject_key_id(cert->get());
    row.created_at_ms = now_ms;
    row.created_by = by;
    return row;
}

const KeyRow* find_state(const std::vector<KeyRow>& rows, std::string_view state) {
    for (const KeyRow& r : rows) {
        if (r.state == state) return &r;
    }
    return nullptr;
}

const KeyRow* find_generation(const std::vector<KeyRow>& rows, int generation) {
    for (const KeyRow& r : rows) {
        if (r.generation == generation) return &r;
    }
    return nullptr;
}

}  // namespace yuzu::pki::detail
