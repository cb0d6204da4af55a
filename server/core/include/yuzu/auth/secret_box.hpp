// SecretBox: authenticated encryption (AES-256-GCM) for secrets the server
// must store and later read back in the clear, such as TOTP seeds.
//
// Sealed format, versioned and self-contained:
//
//   "v1:" + base64(12-byte random nonce || ciphertext || 16-byte tag)
//
// The associated data binds a sealed value to its context (for example
// "totp:user:42"), so a value copied into another row does not open there.
// Anything tampered, sealed under another key or opened with other associated
// data fails with InvalidArgument("secret could not be decrypted ..."); open()
// never returns unauthenticated bytes.
//
// Random 96-bit nonces keep a single key safe for about 2^32 seal() calls,
// far beyond what per-user secrets need.
//
// Thread-safety: seal() and open() are const and keep no shared state; safe
// to call concurrently on one SecretBox. The key is wiped when the object is
// destroyed or moved from.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::auth {

inline constexpr size_t kSecretBoxKeyBytes = 32;
// Upper bound on plaintext and associated data: secrets are small, and GCM's
// per-call lengths are ints in OpenSSL's API.
inline constexpr size_t kSecretBoxMaxInputBytes = 1 << 20;

class SecretBox {
  public:
    // Reads the 32-byte key at path, or creates it (mode 0600, O_EXCL,
    // fsync'd) from fresh random bytes if no file exists there.
    // FailedPrecondition (naming the path) if the existing file is readable or
    // writable by group or others, is not a regular file, is not exactly 32
    // bytes, or if the file cannot be opened or created; Unavailable if no
    // entropy is available; Internal on an I/O error while reading or writing.
    static Result<SecretBox> load_or_create_key_file(const std::string& path);

    // InvalidArgument if the key is all zeros (an uninitialised buffer, not a
    // key).
    static Result<SecretBox> from_key(std::span<const uint8_t, kSecretBoxKeyBytes> key);

    SecretBox(SecretBox&& other) noexcept;
    SecretBox& operator=(SecretBox&& other) noexcept;
    SecretBox(const SecretBox&) = delete;
    SecretBox& operator=(const SecretBox&) = delete;
    ~SecretBox();

    // Encrypts plaintext bound to associated_data. InvalidArgument if either
    // is over kSecretBoxMaxInputBytes; Unavailable if no entropy for the nonce.
    Result<std::string> seal(std::string_view plaintext, std::string_view associated_data) const;

    // The plaintext seal() was given, or InvalidArgument("secret could not be
    // decrypted ...") if sealed is malformed, tampered with, sealed under a
    // different key or with different associated data.
    Result<std::string> open(std::string_view sealed, std::string_view associated_data) const;

  private:
    explicit SecretBox(std::span<const uint8_t, kSecretBoxKeyBytes> key);

    std::array<uint8_t, kSecretBoxKeyBytes> key_{};
};

}  // namespace yuzu::auth
