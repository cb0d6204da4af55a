// One-time passwords for MFA: HOTP (RFC 4226) and TOTP (RFC 6238) with
// HMAC-SHA1, the variant every authenticator app implements, plus the
// base32 encoding (RFC 4648) and otpauth:// URI those apps consume.
//
// Replay protection is the caller's job with our help: totp_verify() returns
// the time step it matched, only if it is later than the last step the caller
// accepted for that user. The caller persists that step, so no code is ever
// accepted twice.
//
// Thread-safety: every function is pure (or draws from OpenSSL's thread-safe
// DRBG); safe to call from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::auth {

inline constexpr int64_t kTotpStepSeconds = 30;
inline constexpr int kTotpDigits = 6;
inline constexpr size_t kTotpSecretBytes = 20;
// Pass as last_used_step when the user has never used a code.
inline constexpr int64_t kTotpNoStepUsed = -1;

// RFC 4648 base32, uppercase, without '=' padding.
std::string base32_encode(std::span<const uint8_t> bytes);

// Decodes base32 as people type it: lowercase accepted, spaces and trailing
// '=' ignored. InvalidArgument on any other character, on '=' before the end
// or on a length no encoder produces.
Result<std::vector<uint8_t>> base32_decode(std::string_view text);

// 20 random bytes, base32-encoded (32 characters). Unavailable if no entropy.
Result<std::string> generate_totp_secret();

// RFC 4226 HOTP: HMAC-SHA1(key, counter), dynamic truncation, the last
// `digits` decimal digits, zero-padded. 6 <= digits <= 9.
std::string hotp(std::span<const uint8_t> key, uint64_t counter, int digits = kTotpDigits);

// The TOTP time step containing unix_seconds (floor(t / 30)); t >= 0.
int64_t totp_step(int64_t unix_seconds);

// RFC 6238 TOTP: 6 digits, 30 s step, T0 = 0. unix_seconds >= 0.
std::string totp_at(std::span<const uint8_t> key, int64_t unix_seconds);

// Checks a user-entered code against the steps now-1, now and now+1 (clock
// skew of up to one step either way). Returns the matched step if it is
// greater than last_used_step, otherwise nullopt; also nullopt for anything
// but exactly six ASCII digits. All three candidates are compared, in constant
// time, whatever the outcome. On success the caller must persist the returned
// step as the new last_used_step before reporting success.
std::optional<int64_t> totp_verify(std::span<const uint8_t> key, std::string_view code,
                                   int64_t unix_seconds, int64_t last_used_step);

// The Key Uri Format authenticator apps scan as a QR code:
//   otpauth://totp/<Issuer>:<account>?secret=...&issuer=<Issuer>
//       &algorithm=SHA1&digits=6&period=30
// Issuer, account and secret are percent-encoded (RFC 3986 unreserved
// characters kept as is).
std::string otpauth_uri(std::string_view issuer, std::string_view account,
                        std::string_view base32_secret);

}  // namespace yuzu::auth
