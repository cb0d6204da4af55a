// libFuzzer target for the CSR check the CA runs before it signs anything
// (pki/csr_check.hpp), built and run by scripts/fuzz.sh. Each input is one
// csr field as an agent's enrollment or an issue_code_signing_cert call
// would send it. Invariants:
//   - nothing crashes, leaks or trips a sanitizer;
//   - an input over kMaxCsrBytes is always refused;
//   - an accepted input is one PEM CERTIFICATE REQUEST block (nothing but
//     whitespace around it) whose signature verifies with the key returned;
//   - every refusal is InvalidArgument with a message.
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "pki/csr_check.hpp"
#include "yuzu/pki/certificate.hpp"

namespace {

void fail(const char* what) {
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    auto key = yuzu::pki::detail::csr_key(input);
    if (!key.ok()) {
        if (key.status().code() != yuzu::StatusCode::kInvalidArgument) fail("refusal not 400");
        if (key.status().message().empty()) fail("refusal without a message");
        ERR_clear_error();
        return 0;
    }
    if (input.size() > yuzu::pki::kMaxCsrBytes) fail("an oversized csr was accepted");
    const size_t first = input.find_first_not_of(" \t\r\n");
    if (first == std::string::npos ||
        input.compare(first, 35, "-----BEGIN CERTIFICATE REQUEST-----") != 0) {
        fail("an accepted csr does not start with its PEM header");
    }
    BIO* bio = BIO_new_mem_buf(input.data(), static_cast<int>(input.size()));
    X509_REQ* req =
        PEM_read_bio_X509_REQ(bio, nullptr, yuzu::pki::detail::no_pem_password, nullptr);
    BIO_free(bio);
    if (req == nullptr) fail("an accepted csr does not parse again");
    if (X509_REQ_verify(req, key->get()) != 1) fail("an accepted csr does not verify");
    X509_REQ_free(req);
    ERR_clear_error();
    return 0;
}
