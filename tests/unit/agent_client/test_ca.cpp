#include "test_ca.hpp"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include <initializer_list>
#include <utility>

namespace yuzu::agent::testing {
namespace {

struct Extension {
    int nid;
    const char* value;
};

PkeyPtr new_key() {
    return PkeyPtr(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
}

std::string bio_text(BIO* bio) {
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

// A certificate for `key`, CN = cn, signed by issuer_key; issuer nullptr
// makes it self-signed.
X509Ptr make_certificate(EVP_PKEY* key, const std::string& cn, X509* issuer, EVP_PKEY* issuer_key,
                         int days, std::initializer_list<Extension> extensions) {
    X509Ptr cert(X509_new());
    if (!cert) return nullptr;
    unsigned char serial_bytes[16];
    if (RAND_bytes(serial_bytes, sizeof serial_bytes) != 1) return nullptr;
    serial_bytes[0] &= 0x7f;  // positive
    BIGNUM* serial = BN_bin2bn(serial_bytes, sizeof serial_bytes, nullptr);
    const bool serial_set =
        serial != nullptr && BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(cert.get()));
    BN_free(serial);
    X509_NAME* name = X509_get_subject_name(cert.get());
    if (!serial_set || X509_set_version(cert.get(), X509_VERSION_3) != 1 ||
        X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60) == nullptr ||
        X509_gmtime_adj(X509_getm_notAfter(cert.get()), 86'400L * days) == nullptr ||
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1,
                                   0) != 1 ||
        X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name) != 1 ||
        X509_set_pubkey(cert.get(), key) != 1) {
        return nullptr;
    }
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer ? issuer : cert.get(), cert.get(), nullptr, nullptr, 0);
    for (const Extension& e : extensions) {
        X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, e.nid, e.value);
        const bool added = ext != nullptr && X509_add_ext(cert.get(), ext, -1) == 1;
        X509_EXTENSION_free(ext);
        if (!added) return nullptr;
    }
    if (X509_sign(cert.get(), issuer_key, EVP_sha256()) <= 0) return nullptr;
    return cert;
}

std::string key_pem(EVP_PKEY* key) {
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio ||
        PEM_write_bio_PKCS8PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
        return "";
    }
    return bio_text(bio.get());
}

}  // namespace

std::string pem_of(X509* cert) {
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || cert == nullptr || PEM_write_bio_X509(bio.get(), cert) != 1) return "";
    return bio_text(bio.get());
}

TestCa::TestCa() : root_key_(new_key()), intermediate_key_(new_key()) {
    if (!root_key_ || !intermediate_key_) return;
    root_ = make_certificate(root_key_.get(), "Yuzu Test Root", nullptr, root_key_.get(), 3650,
                             {{NID_basic_constraints, "critical,CA:TRUE"},
                              {NID_key_usage, "critical,keyCertSign,cRLSign"},
                              {NID_subject_key_identifier, "hash"}});
    if (!root_) return;
    intermediate_ = make_certificate(intermediate_key_.get(), "Yuzu Test Agents CA", root_.get(),
                                     root_key_.get(), 3650,
                                     {{NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
                                      {NID_key_usage, "critical,keyCertSign,cRLSign"},
                                      {NID_subject_key_identifier, "hash"},
                                      {NID_authority_key_identifier, "keyid"}});
    PkeyPtr server_key = new_key();
    if (!server_key) return;
    X509Ptr server =
        make_certificate(server_key.get(), "127.0.0.1", root_.get(), root_key_.get(), 30,
                         {{NID_basic_constraints, "critical,CA:FALSE"},
                          {NID_key_usage, "critical,digitalSignature"},
                          {NID_ext_key_usage, "serverAuth"},
                          {NID_subject_alt_name, "IP:127.0.0.1"}});
    server_cert_pem_ = pem_of(server.get());
    server_key_pem_ = key_pem(server_key.get());
    ERR_clear_error();
}

std::string TestCa::issue(const std::string& csr_pem, const std::string& common_name,
                          int days) const {
    if (!ok()) return "";
    BioPtr bio(BIO_new_mem_buf(csr_pem.data(), static_cast<int>(csr_pem.size())));
    X509ReqPtr req(bio ? PEM_read_bio_X509_REQ(bio.get(), nullptr, nullptr, nullptr) : nullptr);
    PkeyPtr key(req ? X509_REQ_get_pubkey(req.get()) : nullptr);
    if (!key || X509_REQ_verify(req.get(), key.get()) != 1) {
        ERR_clear_error();
        return "";
    }
    std::lock_guard lock(mu_);
    X509Ptr leaf =
        make_certificate(key.get(), common_name, intermediate_.get(), intermediate_key_.get(), days,
                         {{NID_basic_constraints, "critical,CA:FALSE"},
                          {NID_key_usage, "critical,digitalSignature"},
                          {NID_ext_key_usage, "clientAuth"},
                          {NID_authority_key_identifier, "keyid"}});
    ERR_clear_error();
    return pem_of(leaf.get());
}

std::string TestCa::chain_pem() const {
    return pem_of(intermediate_.get()) + pem_of(root_.get());
}

std::string TestCa::root_pem() const {
    return pem_of(root_.get());
}

}  // namespace yuzu::agent::testing
