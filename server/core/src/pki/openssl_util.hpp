// Small owners and conversions for the OpenSSL objects the CA handles.
// Private to the pki module.
#pragma once

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::pki::detail {

template <auto Free>
struct Deleter {
    template <class T>
    void operator()(T* p) const {
        Free(p);
    }
};

using BioPtr = std::unique_ptr<BIO, Deleter<BIO_free_all>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509_free>>;
using X509ReqPtr = std::unique_ptr<X509_REQ, Deleter<X509_REQ_free>>;
using X509CrlPtr = std::unique_ptr<X509_CRL, Deleter<X509_CRL_free>>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using ExtensionPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION_free>>;
using AsnIntegerPtr = std::unique_ptr<ASN1_INTEGER, Deleter<ASN1_INTEGER_free>>;
using AsnTimePtr = std::unique_ptr<ASN1_TIME, Deleter<ASN1_TIME_free>>;
using BignumPtr = std::unique_ptr<BIGNUM, Deleter<BN_free>>;

// A PEM password callback that supplies none: a PEM block with an
// "encrypted" header fails to read instead of OpenSSL's default callback
// prompting on the terminal.
int no_pem_password(char* buf, int size, int rwflag, void* user);

// The oldest queued OpenSSL error as text (the queue is cleared), or
// "unknown OpenSSL error".
std::string openssl_error();

PkeyPtr generate_ec_key();

Result<X509Ptr> parse_certificate(std::string_view pem);
Result<X509CrlPtr> parse_crl(std::string_view pem);
// InvalidArgument for anything but one well-formed PEM CSR.
Result<X509ReqPtr> parse_csr(std::string_view pem);

std::string to_pem(X509* cert);
std::string to_pem(X509_CRL* crl);
// The private key as PKCS#8 PEM, for sealing only; the caller wipes it.
Result<std::string> private_key_pem(EVP_PKEY* key);
Result<PkeyPtr> parse_private_key(std::string_view pem);

// 16 random bytes, top bit clear (a positive 127-bit serial).
Result<AsnIntegerPtr> random_serial();
std::string serial_hex(const ASN1_INTEGER* serial);
// The subject key identifier of a certificate, upper-case hex ("" if none).
std::string subject_key_id(X509* cert);
std::string authority_key_id(X509* cert);
std::string common_name(X509_NAME* name);
int64_t asn1_time_to_ms(const ASN1_TIME* t);

// Zeroes a string holding key material before it is freed.
void wipe(std::string& secret);

}  // namespace yuzu::pki::detail
