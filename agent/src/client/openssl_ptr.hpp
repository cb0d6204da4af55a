// Owners for the OpenSSL objects the agent handles: unique_ptr with the
// matching free function, so no early return leaks a key or a certificate.
//
// Thread-safety: as unique_ptr.
#pragma once

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>

namespace yuzu::agent {

template <auto Free>
struct OpenSslFree {
    template <typename T>
    void operator()(T* p) const {
        Free(p);
    }
};

using BioPtr = std::unique_ptr<BIO, OpenSslFree<BIO_free_all>>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, OpenSslFree<EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, OpenSslFree<X509_free>>;
using X509ReqPtr = std::unique_ptr<X509_REQ, OpenSslFree<X509_REQ_free>>;

}  // namespace yuzu::agent
