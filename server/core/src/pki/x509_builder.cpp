#include "pki/x509_builder.hpp"

#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/err.h>

#include <cctype>

#include "yuzu/pki/certificate.hpp"

namespace yuzu::pki::detail {
namespace {

Status add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer != nullptr ? issuer : cert, cert, nullptr, nullptr, 0);
    ExtensionPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
    if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
        return Status::Internal("cannot add certificate extension " + std::string(OBJ_nid2sn(nid)) +
                                ": " + openssl_error());
    }
    return Status::Ok();
}

Status set_name(X509_NAME* name, const CertSpec& spec) {
    if (!spec.organization.empty() &&
        X509_NAME_add_entry_by_txt(
            name, "O", MBSTRING_UTF8,
            reinterpret_cast<const unsigned char*>(spec.organization.c_str()), -1, -1, 0) != 1) {
        return Status::InvalidArgument("bad organization: " + openssl_error());
    }
    if (X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                   reinterpret_cast<const unsigned char*>(spec.common_name.c_str()),
                                   -1, -1, 0) != 1) {
        return Status::InvalidArgument("bad common name: " + openssl_error());
    }
    return Status::Ok();
}

Result<AsnIntegerPtr> serial_from_hex(const std::string& hex) {
    BIGNUM* raw = nullptr;
    if (BN_hex2bn(&raw, hex.c_str()) == 0) return Status::Internal("bad serial " + hex);
    BignumPtr bn(raw);
    AsnIntegerPtr serial(BN_to_ASN1_INTEGER(bn.get(), nullptr));
    if (!serial) return Status::Internal("bad serial " + hex);
    return serial;
}

}  // namespace

Result<X509Ptr> build_certificate(const CertSpec& spec, EVP_PKEY* subject_key, X509* issuer,
                                  EVP_PKEY* issuer_key) {
    X509Ptr cert(X509_new());
    if (!cert) return Status::Internal("X509_new: " + openssl_error());
    auto serial = random_serial();
    if (!serial.ok()) return serial.status();
    AsnTimePtr not_before(ASN1_TIME_set(nullptr, static_cast<time_t>(spec.not_before_s)));
    AsnTimePtr not_after(ASN1_TIME_set(nullptr, static_cast<time_t>(spec.not_after_s)));
    if (X509_set_version(cert.get(), 2) != 1 ||
        X509_set_serialNumber(cert.get(), serial->get()) != 1 || !not_before || !not_after ||
        X509_set1_notBefore(cert.get(), not_before.get()) != 1 ||
        X509_set1_notAfter(cert.get(), not_after.get()) != 1 ||
        X509_set_pubkey(cert.get(), subject_key) != 1) {
        return Status::Internal("cannot fill a certificate: " + openssl_error());
    }
    YUZU_RETURN_IF_ERROR(set_name(X509_get_subject_name(cert.get()), spec));
    X509_NAME* issuer_name =
        issuer != nullptr ? X509_get_subject_name(issuer) : X509_get_subject_name(cert.get());
    if (X509_set_issuer_name(cert.get(), issuer_name) != 1) {
        return Status::Internal("cannot set the issuer: " + openssl_error());
    }

    X509* ca = issuer != nullptr ? issuer : cert.get();
    YUZU_RETURN_IF_ERROR(add_extension(cert.get(), ca, NID_subject_key_identifier, "hash"));
    YUZU_RETURN_IF_ERROR(
        add_extension(cert.get(), ca, NID_authority_key_identifier, "keyid:always"));
    switch (spec.kind) {
        case CertKind::kRoot:
            YUZU_RETURN_IF_ERROR(
                add_extension(cert.get(), ca, NID_basic_constraints, "critical,CA:TRUE,pathlen:1"));
            YUZU_RETURN_IF_ERROR(
                add_extension(cert.get(), ca, NID_key_usage, "critical,keyCertSign,cRLSign"));
            break;
        case CertKind::kSigning:
            YUZU_RETURN_IF_ERROR(
                add_extension(cert.get(), ca, NID_basic_constraints, "critical,CA:TRUE,pathlen:0"));
            YUZU_RETURN_IF_ERROR(
                add_extension(cert.get(), ca, NID_key_usage, "critical,keyCertSign,cRLSign"));
            break;
        case CertKind::kAgent:
        case CertKind::kServer:
        case CertKind::kCodeSigning: {
            YUZU_RETURN_IF_ERROR(
                add_extension(cert.get(), ca, NID_basic_constraints, "critical,CA:FALSE"));
            const bool code = spec.kind == CertKind::kCodeSigning;
            YUZU_RETURN_IF_ERROR(add_extension(
                cert.get(), ca, NID_key_usage,
                code ? "critical,digitalSignature" : "critical,digitalSignature,keyAgreement"));
            const char* eku = spec.kind == CertKind::kAgent    ? "clientAuth"
                              : spec.kind == CertKind::kServer ? "serverAuth"
                                                               : "codeSigning";
            YUZU_RETURN_IF_ERROR(add_extension(cert.get(), ca, NID_ext_key_usage, eku));
            break;
        }
    }
    std::string san;
    for (const std::string& dns : spec.dns_names) {
        if (!is_valid_dns_name(dns)) return Status::InvalidArgument("bad DNS name '" + dns + "'");
        san += (san.empty() ? "DNS:" : ",DNS:") + dns;
    }
    for (const std::string& ip : spec.ip_addresses) {
        if (!is_valid_ip_address(ip)) return Status::InvalidArgument("bad IP address '" + ip + "'");
        san += (san.empty() ? "IP:" : ",IP:") + ip;
    }
    if (!san.empty()) {
        YUZU_RETURN_IF_ERROR(add_extension(cert.get(), ca, NID_subject_alt_name, san));
    }
    if (X509_sign(cert.get(), issuer_key, EVP_sha256()) <= 0) {
        return Status::Internal("cannot sign a certificate: " + openssl_error());
    }
    return cert;
}

Result<X509CrlPtr> build_crl(X509* issuer, EVP_PKEY* issuer_key, int64_t crl_number,
                             int64_t this_update_s, int64_t next_update_s,
                             const std::vector<RevokedEntry>& revoked) {
    X509CrlPtr crl(X509_CRL_new());
    if (!crl) return Status::Internal("X509_CRL_new: " + openssl_error());
    AsnTimePtr last(ASN1_TIME_set(nullptr, static_cast<time_t>(this_update_s)));
    AsnTimePtr next(ASN1_TIME_set(nullptr, static_cast<time_t>(next_update_s)));
    if (X509_CRL_set_version(crl.get(), 1) != 1 ||
        X509_CRL_set_issuer_name(crl.get(), X509_get_subject_name(issuer)) != 1 || !last || !next ||
        X509_CRL_set1_lastUpdate(crl.get(), last.get()) != 1 ||
        X509_CRL_set1_nextUpdate(crl.get(), next.get()) != 1) {
        return Status::Internal("cannot fill a CRL: " + openssl_error());
    }
    for (const RevokedEntry& entry : revoked) {
        auto serial = serial_from_hex(entry.serial_hex);
        if (!serial.ok()) return serial.status();
        X509_REVOKED* item = X509_REVOKED_new();
        AsnTimePtr when(ASN1_TIME_set(nullptr, static_cast<time_t>(entry.revoked_at_s)));
        if (item == nullptr || !when || X509_REVOKED_set_serialNumber(item, serial->get()) != 1 ||
            X509_REVOKED_set_revocationDate(item, when.get()) != 1 ||
            X509_CRL_add0_revoked(crl.get(), item) != 1) {
            X509_REVOKED_free(item);
            return Status::Internal("cannot add a CRL entry: " + openssl_error());
        }
    }
    AsnIntegerPtr number(ASN1_INTEGER_new());
    if (!number || ASN1_INTEGER_set_int64(number.get(), crl_number) != 1 ||
        X509_CRL_add1_ext_i2d(crl.get(), NID_crl_number, number.get(), 0, 0) != 1) {
        return Status::Internal("cannot number a CRL: " + openssl_error());
    }
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, nullptr, nullptr, crl.get(), 0);
    ExtensionPtr aki(
        X509V3_EXT_conf_nid(nullptr, &ctx, NID_authority_key_identifier, "keyid:always"));
    if (!aki || X509_CRL_add_ext(crl.get(), aki.get(), -1) != 1) {
        return Status::Internal("cannot add the CRL's key id: " + openssl_error());
    }
    if (X509_CRL_sort(crl.get()) != 1 || X509_CRL_sign(crl.get(), issuer_key, EVP_sha256()) <= 0) {
        return Status::Internal("cannot sign a CRL: " + openssl_error());
    }
    return crl;
}

}  // namespace yuzu::pki::detail
