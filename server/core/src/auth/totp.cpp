#include "yuzu/auth/totp.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <array>
#include <cassert>
#include <cstdio>
#include <cstdlib>

#include "yuzu/auth/random.hpp"
#include "yuzu/auth/token_codec.hpp"

namespace yuzu::auth {
namespace {

constexpr std::string_view kBase32Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
constexpr size_t kSha1Bytes = 20;

// HMAC over an in-memory buffer fails only on allocation failure or a broken
// provider: nothing an input can cause and nothing a caller can fix.
[[noreturn]] void crypto_failure(const char* what) {
    std::fprintf(stderr, "yuzu auth: OpenSSL %s failed; aborting\n", what);
    std::abort();
}

int base32_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a';
    if (c >= '2' && c <= '7') return c - '2' + 26;
    return -1;
}

bool is_unreserved(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '.' || c == '_' || c == '~';
}

void append_percent_encoded(std::string& out, std::string_view text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    for (char c : text) {
        if (is_unreserved(c)) {
            out.push_back(c);
        } else {
            const auto b = static_cast<uint8_t>(c);
            out.push_back('%');
            out.push_back(kHex[b >> 4]);
            out.push_back(kHex[b & 0x0f]);
        }
    }
}

bool is_six_digits(std::string_view code) {
    if (code.size() != static_cast<size_t>(kTotpDigits)) return false;
    for (char c : code) {
        if (c < '0' || c > '9') return false;
    }
    return true;
}

}  // namespace

std::string base32_encode(std::span<const uint8_t> bytes) {
    std::string out;
    out.reserve((bytes.size() * 8 + 4) / 5);
    uint32_t acc = 0;
    int bits = 0;
    for (uint8_t b : bytes) {
        acc = (acc << 8) | b;
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            out.push_back(kBase32Alphabet[(acc >> bits) & 31]);
        }
    }
    if (bits > 0) out.push_back(kBase32Alphabet[(acc << (5 - bits)) & 31]);
    return out;
}

Result<std::vector<uint8_t>> base32_decode(std::string_view text) {
    // Drop spaces anywhere and '=' padding at the end (spaces may follow it).
    std::string symbols;
    symbols.reserve(text.size());
    bool in_padding = false;
    for (char c : text) {
        if (c == ' ') continue;
        if (c == '=') {
            in_padding = true;
            continue;
        }
        if (in_padding) {
            return Status::InvalidArgument("base32 text has data after '=' padding");
        }
        if (base32_value(c) < 0) {
            return Status::InvalidArgument(
                "base32 text has an invalid character (allowed: A-Z, 2-7)");
        }
        symbols.push_back(c);
    }
    // 8 symbols carry 5 bytes; a trailing group of 1, 3 or 6 symbols cannot
    // come from any byte string.
    const size_t tail = symbols.size() % 8;
    if (tail == 1 || tail == 3 || tail == 6) {
        return Status::InvalidArgument("base32 text has an impossible length");
    }
    std::vector<uint8_t> out;
    out.reserve(symbols.size() * 5 / 8);
    uint32_t acc = 0;
    int bits = 0;
    for (char c : symbols) {
        acc = (acc << 5) | static_cast<uint32_t>(base32_value(c));
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<uint8_t>((acc >> bits) & 0xff));
        }
    }
    OPENSSL_cleanse(symbols.data(), symbols.size());
    return out;
}

Result<std::string> generate_totp_secret() {
    auto bytes = random_bytes(kTotpSecretBytes);
    if (!bytes.ok()) return bytes.status();
    std::string secret = base32_encode(*bytes);
    OPENSSL_cleanse(bytes->data(), bytes->size());
    return secret;
}

std::string hotp(std::span<const uint8_t> key, uint64_t counter, int digits) {
    assert(digits >= 6 && digits <= 9);
    std::array<unsigned char, 8> message{};
    for (int i = 7; i >= 0; --i) {
        message[i] = static_cast<unsigned char>(counter & 0xff);
        counter >>= 8;
    }
    static const unsigned char kEmptyKey = 0;
    std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
    size_t mac_len = 0;
    if (EVP_Q_mac(nullptr, "HMAC", nullptr, "SHA1", nullptr, key.empty() ? &kEmptyKey : key.data(),
                  key.size(), message.data(), message.size(), mac.data(), mac.size(),
                  &mac_len) == nullptr ||
        mac_len != kSha1Bytes) {
        crypto_failure("HMAC-SHA1");
    }
    // RFC 4226 section 5.3: the low nibble of the last byte picks 4 bytes,
    // whose top bit is masked off.
    const unsigned offset = mac[kSha1Bytes - 1] & 0x0f;
    const uint32_t binary = (static_cast<uint32_t>(mac[offset] & 0x7f) << 24) |
                            (static_cast<uint32_t>(mac[offset + 1]) << 16) |
                            (static_cast<uint32_t>(mac[offset + 2]) << 8) |
                            static_cast<uint32_t>(mac[offset + 3]);
    OPENSSL_cleanse(mac.data(), mac.size());
    uint32_t modulus = 1;
    for (int i = 0; i < digits; ++i) modulus *= 10;
    std::string code(static_cast<size_t>(digits), '0');
    uint32_t value = binary % modulus;
    for (int i = digits - 1; i >= 0 && value > 0; --i) {
        code[static_cast<size_t>(i)] = static_cast<char>('0' + value % 10);
        value /= 10;
    }
    return code;
}

int64_t totp_step(int64_t unix_seconds) {
    assert(unix_seconds >= 0);
    return unix_seconds / kTotpStepSeconds;
}

std::string totp_at(std::span<const uint8_t> key, int64_t unix_seconds) {
    return hotp(key, static_cast<uint64_t>(totp_step(unix_seconds)), kTotpDigits);
}

std::optional<int64_t> totp_verify(std::span<const uint8_t> key, std::string_view code,
                                   int64_t unix_seconds, int64_t last_used_step) {
    if (!is_six_digits(code) || unix_seconds < 0) return std::nullopt;
    const int64_t now = totp_step(unix_seconds);
    // Compare against every candidate without stopping early, and keep the
    // latest match: should two steps share a code, accepting the later one
    // burns both, so the same digits cannot be replayed in the next window.
    std::optional<int64_t> matched;
    for (int64_t step = now - 1; step <= now + 1; ++step) {
        if (step < 0) continue;
        const std::string expected = hotp(key, static_cast<uint64_t>(step), kTotpDigits);
        if (constant_time_equal(expected, code)) matched = step;
    }
    if (!matched || *matched <= last_used_step) return std::nullopt;
    return matched;
}

std::string otpauth_uri(std::string_view issuer, std::string_view account,
                        std::string_view base32_secret) {
    std::string uri = "otpauth://totp/";
    append_percent_encoded(uri, issuer);
    uri.push_back(':');
    append_percent_encoded(uri, account);
    uri += "?secret=";
    append_percent_encoded(uri, base32_secret);
    uri += "&issuer=";
    append_percent_encoded(uri, issuer);
    uri += "&algorithm=SHA1&digits=" + std::to_string(kTotpDigits) +
           "&period=" + std::to_string(kTotpStepSeconds);
    return uri;
}

}  // namespace yuzu::auth
