// Hashing, comparison and encoding primitives for API tokens and other
// bearer secrets.
//
// API tokens look like "yuzu_" followed by 32 base62 characters (~190 bits of
// entropy). Only sha256_hex(raw) is ever stored; token_display_id(raw) (the
// first 24 hex characters of that hash) is what logs, audit rows and the UI
// show to tell tokens apart without revealing them.
//
// Thread-safety: every function is pure or draws from OpenSSL's thread-safe
// DRBG; safe to call from any thread.
#pragma once

#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::auth {

inline constexpr std::string_view kApiTokenPrefix = "yuzu_";
inline constexpr size_t kApiTokenRandomChars = 32;
inline constexpr size_t kApiTokenLength = kApiTokenPrefix.size() + kApiTokenRandomChars;  // 37
inline constexpr size_t kTokenDisplayIdLength = 24;

// Lowercase hex SHA-256 of the bytes (64 characters).
std::string sha256_hex(std::string_view data);

// Lowercase hex HMAC-SHA256 of msg under key (64 characters). An empty key is
// valid (RFC 2104 zero-pads it).
std::string hmac_sha256_hex(std::string_view key, std::string_view msg);

// True iff a and b hold the same bytes. The time taken does not depend on
// where the contents differ; it depends only on the lengths, which are not
// secret for the values compared here (fixed-length codes, hashes, tokens).
bool constant_time_equal(std::string_view a, std::string_view b);

// A fresh API token: "yuzu_" + 32 base62 characters.
Result<std::string> generate_api_token();

// The first 24 hex characters of sha256(raw): a stable, non-secret handle.
std::string token_display_id(std::string_view raw);

// True iff raw has the shape generate_api_token() produces (prefix, length 37,
// base62 alphabet). A cheap pre-check before any store lookup; says nothing
// about whether the token exists.
bool looks_like_api_token(std::string_view raw);

// RFC 4648 section 4 base64 (alphabet "+/", '=' padding). decode is strict:
// padding required, no whitespace, unused trailing bits must be zero.
std::string base64_encode(std::string_view bytes);
Result<std::string> base64_decode(std::string_view text);

// RFC 4648 section 5 base64url (alphabet "-_"), without padding. decode is
// strict: rejects '=', other characters and non-canonical trailing bits.
std::string base64url_encode(std::string_view bytes);
Result<std::string> base64url_decode(std::string_view text);

}  // namespace yuzu::auth
