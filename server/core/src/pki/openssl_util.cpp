#include "pki/openssl_util.hpp"

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

#include <cstring>
#include <ctime>

#include "yuzu/pki/certificate.hpp"

namespace yuzu::pki::detail {
namespace {

BioPtr memory_bio(std::string_view text) {
    return BioPtr(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

std::string drain(BIO* bio) {
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

std::string to_hex(const unsigned char* data, size_t n) {
    static const char* digits = "0123456789ABCDEF";
    std::string out;
    out.reserve(n * 2);
    for (size_t i = 0; i < n; ++i) {
        out.push_back(digits[data[i] >> 4]);
        out.push_back(digits[data[i] & 0x0F]);
    }
    return out;
}

// One PEM object of the given label, and nothing but whitespace around it.
bool single_pem(std::string_view pem, std::string_view label) {
    const std::string begin = "-----BEGIN " + std::string(label) + "-----";
    const std::string end = "-----END " + std::string(label) + "-----";
    const size_t first = pem.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos || pem.compare(first, begin.size(), begin) != 0) {
        return false;
    }
    const size_t close = pem.find(end);
    if (close == std::string_view::npos) return false;
    if (pem.find("-----BEGIN", first + begin.size()) != std::string_view::npos) return false;
    return pem.find_first_not_of(" \t\r\n", close + end.size()) == std::string_view::npos;
}

}  // namespace

int no_pem_password(char*, int, int, void*) {
    return 0;
}

std::string openssl_error() {
    const unsigned long e = ERR_get_error();
    ERR_clear_error();
    if (e == 0) return "unknown OpenSSL error";
    char buf[256];
    ERR_error_string_n(e, buf, sizeof(buf));
    return buf;
}

PkeyPtr generate_ec_key() {
    return PkeyPtr(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
}

Result<X509Ptr> parse_certificate(std::string_view pem) {
    BioPtr bio = memory_bio(pem);
    X509Ptr cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, no_pem_password, nullptr) : nullptr);
    if (!cert) return Status::InvalidArgument("certificate does not parse: " + openssl_error());
    return cert;
}

Result<X509CrlPtr> parse_crl(std::string_view pem) {
    BioPtr bio = memory_bio(pem);
    X509CrlPtr crl(bio ? PEM_read_bio_X509_CRL(bio.get(), nullptr, no_pem_password, nullptr)
                       : nullptr);
    if (!crl) return Status::InvalidArgument("CRL does not parse: " + openssl_error());
    return crl;
}

Result<X509ReqPtr> parse_csr(std::string_view pem) {
    if (pem.size() > kMaxCsrBytes) {
        return Status::InvalidArgument("csr is over " + std::to_string(kMaxCsrBytes) + " bytes");
    }
    if (!single_pem(pem, "CERTIFICATE REQUEST")) {
        return Status::InvalidArgument(
            "csr must be one PEM \"CERTIFICATE REQUEST\" block and nothing else");
    }
    BioPtr bio = memory_bio(pem);
    X509ReqPtr req(bio ? PEM_read_bio_X509_REQ(bio.get(), nullptr, no_pem_password, nullptr)
                       : nullptr);
    if (!req) return Status::InvalidArgument("csr does not parse: " + openssl_error());
    return req;
}

std::string to_pem(X509* cert) {
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return "";
    return drain(bio.get());
}

std::string to_pem(X509_CRL* crl) {
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_X509_CRL(bio.get(), crl) != 1) return "";
    return drain(bio.get());
}

Result<std::string> private_key_pem(EVP_PKEY* key) {
    BioPtr bio(BIO_new(BIO_s_secmem()));
    if (!bio) bio.reset(BIO_new(BIO_s_mem()));
    if (!bio ||
        PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
        return Status::Internal("cannot encode a private key: " + openssl_error());
    }
    return drain(bio.get());
}

Result<PkeyPtr> parse_private_key(std::string_view pem) {
    BioPtr bio = memory_bio(pem);
    PkeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, no_pem_password, nullptr)
                    : nullptr);
    if (!key) return Status::Internal("a sealed CA key does not parse: " + openssl_error());
    return key;
}

Result<AsnIntegerPtr> random_serial() {
    unsigned char bytes[16];
    if (RAND_bytes(bytes, sizeof(bytes)) != 1) {
        return Status::Unavailable("no entropy for a certificate serial");
    }
    bytes[0] &= 0x7F;
    bytes[0] |= 0x01;  // never a leading zero byte: the hex is always 32 digits
    BignumPtr bn(BN_bin2bn(bytes, sizeof(bytes), nullptr));
    AsnIntegerPtr serial(bn ? BN_to_ASN1_INTEGER(bn.get(), nullptr) : nullptr);
    if (!serial) return Status::Internal("cannot make a serial: " + openssl_error());
    return serial;
}

std::string serial_hex(const ASN1_INTEGER* serial) {
    BignumPtr bn(ASN1_INTEGER_to_BN(serial, nullptr));
    if (!bn) return "";
    char* hex = BN_bn2hex(bn.get());
    if (hex == nullptr) return "";
    std::string out = hex;
    OPENSSL_free(hex);
    return out;
}

std::string subject_key_id(X509* cert) {
    const ASN1_OCTET_STRING* id = X509_get0_subject_key_id(cert);
    if (id == nullptr) return "";
    return to_hex(ASN1_STRING_get0_data(id), static_cast<size_t>(ASN1_STRING_length(id)));
}

std::string authority_key_id(X509* cert) {
    const ASN1_OCTET_STRING* id = X509_get0_authority_key_id(cert);
    if (id == nullptr) return "";
    return to_hex(ASN1_STRING_get0_data(id), static_cast<size_t>(ASN1_STRING_length(id)));
}

std::string common_name(X509_NAME* name) {
    const int index = X509_NAME_get_index_by_NID(name, NID_commonName, -1);
    if (index < 0) return "";
    const ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, index));
    unsigned char* utf8 = nullptr;
    const int n = ASN1_STRING_to_UTF8(&utf8, data);
    if (n < 0) return "";
    std::string out(reinterpret_cast<char*>(utf8), static_cast<size_t>(n));
    OPENSSL_free(utf8);
    return out;
}

int64_t asn1_time_to_ms(const ASN1_TIME* t) {
    struct tm tm {};
    if (t == nullptr || ASN1_TIME_to_tm(t, &tm) != 1) return 0;
    return static_cast<int64_t>(timegm(&tm)) * 1000;
}

void wipe(std::string& secret) {
    if (!secret.empty()) OPENSSL_cleanse(secret.data(), secret.size());
    secret.clear();
}

}  // namespace yuzu::pki::detail
