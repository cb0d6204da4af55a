// The one check every CSR passes before the CA signs its key: one PEM
// "CERTIFICATE REQUEST" block of at most kMaxCsrBytes, a signature that
// verifies with its own key, and a key the CA signs for (EC P-256/P-384,
// RSA >= 2048). Private to the pki module; fuzzed by fuzz/csr_check_fuzz.cpp.
#pragma once

#include <string>

#include "pki/openssl_util.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::pki::detail {

// The CSR's public key, or InvalidArgument saying what is wrong.
Result<PkeyPtr> csr_key(const std::string& csr_pem);

}  // namespace yuzu::pki::detail
