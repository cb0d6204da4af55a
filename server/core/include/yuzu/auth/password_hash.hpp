// Password hashing with scrypt (RFC 7914) through OpenSSL's EVP_PBE_scrypt.
//
// Encoded form (self-describing, so the cost can be raised later and old rows
// still verify):
//
//   $scrypt$ln=15,r=8,p=1$<salt>$<hash>
//
// where N = 2^ln, <salt> is 16 random bytes and <hash> the 32-byte derived
// key, both base64url without padding. The default cost uses 32 MiB and
// roughly 0.1 s of one core per hash.
//
// verify_password() reads the parameters from the string but only accepts
// ln <= 20, r <= 16, p <= 4, so a tampered row cannot make a login attempt
// allocate unbounded memory or CPU. Passwords longer than 1024 bytes are
// refused for the same reason.
//
// Thread-safety: safe to call from any thread. Each call is CPU- and
// memory-heavy by design; callers should bound how many run at once.
#pragma once

#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::auth {

inline constexpr int kScryptDefaultLogN = 15;
inline constexpr int kScryptDefaultR = 8;
inline constexpr int kScryptDefaultP = 1;
// Limits on what verify_password() will run and hash_password_with_cost()
// will produce.
inline constexpr int kScryptMaxLogN = 20;
inline constexpr int kScryptMaxR = 16;
inline constexpr int kScryptMaxP = 4;
// The cheapest cost hash_password_with_cost() will produce.
inline constexpr int kScryptMinLogN = 10;
inline constexpr size_t kMaxPasswordBytes = 1024;

// Hash with the default cost (ln=15, r=8, p=1) and a fresh random salt.
// InvalidArgument if the password is longer than kMaxPasswordBytes;
// Unavailable if no entropy is available.
Result<std::string> hash_password(std::string_view password);

// As hash_password() with N = 2^log_n (kScryptMinLogN <= log_n <= kScryptMaxLogN). Exists
// so tests can hash cheaply (ln=10) and so the cost can be tuned; production
// code should call hash_password().
Result<std::string> hash_password_with_cost(std::string_view password, int log_n);

// True iff encoded is a well-formed hash within the accepted limits and
// password derives the same key (compared in constant time). Malformed,
// out-of-limit or oversize input yields false, never an error.
bool verify_password(std::string_view password, std::string_view encoded);

// True if encoded was not made with the current default parameters (or is not
// a hash we can read): after a successful login the caller should store
// hash_password(password) in its place.
bool needs_rehash(std::string_view encoded);

}  // namespace yuzu::auth
