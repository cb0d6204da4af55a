// Cryptographically secure randomness for secrets: salts, nonces, API tokens,
// TOTP secrets, key files.
//
// Everything comes from OpenSSL's RAND_bytes (the OS-seeded DRBG). If it
// fails, these functions return Status::Unavailable("entropy source
// unavailable"); there is deliberately no weaker fallback.
//
// Thread-safety: safe to call from any thread (OpenSSL 3's DRBG is
// thread-safe).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::auth {

// n uniformly random bytes (n may be 0).
Result<std::vector<uint8_t>> random_bytes(size_t n);

// n characters drawn uniformly from [0-9A-Za-z] (rejection sampling, so no
// character is more likely than another). Each character carries log2(62)
// ~= 5.95 bits of entropy.
Result<std::string> random_base62(size_t n);

// nbytes random bytes as 2 * nbytes lowercase hex characters.
Result<std::string> random_hex(size_t nbytes);

}  // namespace yuzu::auth
