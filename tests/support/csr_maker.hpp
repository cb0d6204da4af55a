// Test helper: an EC P-256 key and a PEM CSR for it, as an agent or a
// code-signing caller would make them. Header-only so yuzu_testing needs no
// OpenSSL; the test binaries that include it link it through the server
// modules.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

namespace yuzu::testing {

struct TestKey {
    std::shared_ptr<EVP_PKEY> key;
    std::string csr_pem;
    std::string key_pem;  // PKCS#8 PEM, for a TLS client in the test only
};

inline std::string bio_text(BIO* bio) {
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

// A fresh key and a CSR with CN `cn`, signed with it. Empty csr_pem on failure.
inline TestKey make_test_key(const std::string& cn = "test-subject") {
    TestKey out;
    out.key.reset(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"), EVP_PKEY_free);
    if (!out.key) return out;
    std::unique_ptr<X509_REQ, decltype(&X509_REQ_free)> req(X509_REQ_new(), X509_REQ_free);
    X509_NAME* name = X509_REQ_get_subject_name(req.get());
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
    X509_REQ_set_pubkey(req.get(), out.key.get());
    if (X509_REQ_sign(req.get(), out.key.get(), EVP_sha256()) <= 0) return out;
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new(BIO_s_mem()), BIO_free);
    PEM_write_bio_X509_REQ(bio.get(), req.get());
    out.csr_pem = bio_text(bio.get());
    std::unique_ptr<BIO, decltype(&BIO_free)> kbio(BIO_new(BIO_s_mem()), BIO_free);
    PEM_write_bio_PrivateKey(kbio.get(), out.key.get(), nullptr, nullptr, 0, nullptr, nullptr);
    out.key_pem = bio_text(kbio.get());
    return out;
}

}  // namespace yuzu::testing
