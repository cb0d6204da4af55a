#include "yuzu/http/peer_certificate.hpp"

#include <openssl/bn.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <ctime>

#include "http/gated_server.hpp"

namespace yuzu::http {
namespace {

std::string hex(const unsigned char* data, int n) {
    static const char* digits = "0123456789ABCDEF";
    std::string out;
    for (int i = 0; i < n; ++i) {
        out.push_back(digits[data[i] >> 4]);
        out.push_back(digits[data[i] & 0x0F]);
    }
    return out;
}

}  // namespace

std::optional<PeerCertificate> current_peer_certificate() {
    if (t_current.conn == nullptr || t_current.conn->ssl == nullptr) return std::nullopt;
    X509* cert = SSL_get0_peer_certificate(t_current.conn->ssl);
    if (cert == nullptr) return std::nullopt;
    PeerCertificate out;
    if (BIGNUM* bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), nullptr)) {
        if (char* text = BN_bn2hex(bn)) {
            out.serial_hex = text;
            OPENSSL_free(text);
        }
        BN_free(bn);
    }
    X509_NAME* subject = X509_get_subject_name(cert);
    const int index = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
    if (index >= 0) {
        unsigned char* utf8 = nullptr;
        const int n = ASN1_STRING_to_UTF8(
            &utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, index)));
        if (n >= 0) {
            out.common_name.assign(reinterpret_cast<char*>(utf8), static_cast<size_t>(n));
            OPENSSL_free(utf8);
        }
    }
    if (const ASN1_OCTET_STRING* akid = X509_get0_authority_key_id(cert)) {
        out.issuer_key_id = hex(ASN1_STRING_get0_data(akid), ASN1_STRING_length(akid));
    }
    struct tm tm {};
    if (ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) == 1) {
        out.not_after_ms = static_cast<int64_t>(timegm(&tm)) * 1000;
    }
    return out;
}

}  // namespace yuzu::http
