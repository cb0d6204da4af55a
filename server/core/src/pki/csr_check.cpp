#include "pki/csr_check.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <string_view>

namespace yuzu::pki::detail {

Result<PkeyPtr> csr_key(const std::string& csr_pem) {
    auto req = parse_csr(csr_pem);
    if (!req.ok()) return req.status();
    PkeyPtr key(X509_REQ_get_pubkey(req->get()));
    if (!key) return Status::InvalidArgument("csr carries no public key");
    if (X509_REQ_verify(req->get(), key.get()) != 1) {
        openssl_error();
        return Status::InvalidArgument("csr signature does not verify");
    }
    const int type = EVP_PKEY_get_base_id(key.get());
    if (type == EVP_PKEY_EC) {
        char group[64] = {0};
        size_t len = 0;
        if (EVP_PKEY_get_utf8_string_param(key.get(), "group", group, sizeof(group), &len) != 1 ||
            (std::string_view(group) != "prime256v1" && std::string_view(group) != "secp384r1")) {
            return Status::InvalidArgument("csr key must be EC P-256 or P-384, or RSA 2048..8192");
        }
    } else if (type == EVP_PKEY_RSA) {
        const int bits = EVP_PKEY_get_bits(key.get());
        if (bits < 2048 || bits > 8192) {
            return Status::InvalidArgument("csr RSA key must be 2048 to 8192 bits");
        }
    } else {
        return Status::InvalidArgument("csr key must be EC P-256 or P-384, or RSA 2048..8192");
    }
    return key;
}

}  // namespace yuzu::pki::detail
