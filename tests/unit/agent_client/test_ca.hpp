// A tiny certificate authority for the agent-client tests: an EC P-256
// self-signed root, an intermediate it signs, client certificates the
// intermediate issues from an agent's CSR, and a server certificate for
// 127.0.0.1 that the root signs. Failures give "" (test code; the issuer
// runs on the fake server's threads, where nothing may throw).
//
// Thread-safety: every member may be called from any thread.
#pragma once

#include <mutex>
#include <string>

#include "client/openssl_ptr.hpp"

namespace yuzu::agent::testing {

class TestCa {
  public:
    TestCa();
    TestCa(const TestCa&) = delete;
    TestCa& operator=(const TestCa&) = delete;

    bool ok() const { return root_ && intermediate_; }

    // A client certificate for the CSR's key (the CSR must verify), subject
    // CN = common_name, valid from a minute ago for `days`; "" when the CSR
    // is not one.
    std::string issue(const std::string& csr_pem, const std::string& common_name,
                      int days = 30) const;
    // What an enrollment answer's certificate_chain holds: intermediate, root.
    std::string chain_pem() const;
    std::string root_pem() const;

    // For a TLS fake server: a certificate for IP 127.0.0.1 and its key (PKCS#8).
    std::string server_cert_pem() const { return server_cert_pem_; }
    std::string server_key_pem() const { return server_key_pem_; }

  private:
    mutable std::mutex mu_;  // around signing with the CA keys
    PkeyPtr root_key_;
    X509Ptr root_;
    PkeyPtr intermediate_key_;
    X509Ptr intermediate_;
    std::string server_cert_pem_;
    std::string server_key_pem_;
};

// The PEM of one certificate.
std::string pem_of(X509* cert);

}  // namespace yuzu::agent::testing
