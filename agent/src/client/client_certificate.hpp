// The pieces of an agent's client certificate: its EC P-256 key on disk,
// the PKCS#10 request the server signs, the certificates it sends back, and
// the durable file writes the identity directory relies on. The key is
// never logged and never leaves the process except as its public half.
//
// Thread-safety: free functions without shared state; callers serialize
// changes to one identity's files (ClientCredential does).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "client/openssl_ptr.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::agent {

// The identity directory's credential files (docs/agent-protocol.md,
// "Client certificate").
inline constexpr const char* kClientKeyFileName = "client.key";
inline constexpr const char* kClientCertFileName = "client.crt";
// A renewal in progress: the new key, then the new certificate for it.
inline constexpr const char* kNewClientKeyFileName = "client.key.new";
inline constexpr const char* kNewClientCertFileName = "client.crt.new";

// What the log says about a certificate.
struct CertificateInfo {
    std::string serial_hex;  // lowercase, no leading zeros
    std::string not_after;   // "2026-01-31T12:00:00Z"
    int64_t not_after_s = 0;
};

// A fresh EC P-256 key written to path as PKCS#8 PEM: created 0600 with
// O_CREAT|O_EXCL (AlreadyExists when the file exists), then fsync'd; the
// file is removed again when any step fails. Its directory entry becomes
// durable with the directory's next sync (the certificate's write, or
// identity.json's), which saves one fsync per identity at enrollment.
Result<PkeyPtr> create_key_file(const std::filesystem::path& path);
// NotFound when path does not exist; InvalidArgument when it holds no PEM
// private key.
Result<PkeyPtr> load_key_file(const std::filesystem::path& path);

// A PEM "CERTIFICATE REQUEST" for key's public half, subject CN =
// common_name (cut to 64 bytes), signed with key over SHA-256.
Result<std::string> make_csr(EVP_PKEY* key, const std::string& common_name);

// Every certificate in pem, in order. InvalidArgument when there is none or
// one of them does not parse.
Result<std::vector<X509Ptr>> parse_certificates(std::string_view pem);
// The same for a file (NotFound when it does not exist).
Result<std::vector<X509Ptr>> load_certificate_file(const std::filesystem::path& path);

CertificateInfo describe_certificate(X509* cert);
// Whether cert certifies key's public half.
bool key_matches(X509* cert, EVP_PKEY* key);

}  // namespace yuzu::agent
