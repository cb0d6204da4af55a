#include "yuzu/auth/token_codec.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "yuzu/auth/random.hpp"

namespace yuzu::auth {
namespace {

constexpr std::string_view kStdAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrlAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// OpenSSL failing to hash a buffer in memory means allocation failure or a
// broken provider: nothing an input can cause and nothing a caller can fix.
[[noreturn]] void crypto_failure(const char* what) {
    std::fprintf(stderr, "yuzu auth: OpenSSL %s failed; aborting\n", what);
    std::abort();
}

// A non-null pointer for OpenSSL calls even when the view is empty.
const unsigned char* bytes_of(std::string_view s) {
    static const unsigned char kEmpty = 0;
    return s.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(s.data());
}

std::string to_hex(const unsigned char* data, size_t n) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out(n * 2, '\0');
    for (size_t i = 0; i < n; ++i) {
        out[2 * i] = kHex[data[i] >> 4];
        out[2 * i + 1] = kHex[data[i] & 0x0f];
    }
    return out;
}

bool is_base62(char c) {
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

std::string encode_base64(std::string_view bytes, std::string_view alphabet, bool pad) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) |
                           (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                           static_cast<uint8_t>(bytes[i + 2]);
        out.push_back(alphabet[(v >> 18) & 63]);
        out.push_back(alphabet[(v >> 12) & 63]);
        out.push_back(alphabet[(v >> 6) & 63]);
        out.push_back(alphabet[v & 63]);
    }
    const size_t rest = bytes.size() - i;
    if (rest == 1) {
        const uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
        out.push_back(alphabet[(v >> 18) & 63]);
        out.push_back(alphabet[(v >> 12) & 63]);
        if (pad) out.append("==");
    } else if (rest == 2) {
        const uint32_t v =
            (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8);
        out.push_back(alphabet[(v >> 18) & 63]);
        out.push_back(alphabet[(v >> 12) & 63]);
        out.push_back(alphabet[(v >> 6) & 63]);
        if (pad) out.push_back('=');
    }
    return out;
}

int base64_value(char c, std::string_view alphabet) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == alphabet[62]) return 62;
    if (c == alphabet[63]) return 63;
    return -1;
}

// Decodes unpadded text (padding, if any, already stripped by the caller).
Result<std::string> decode_base64(std::string_view text, std::string_view alphabet,
                                  const char* name) {
    if (text.size() % 4 == 1) {
        return Status::InvalidArgument(std::string(name) + " text has an impossible length");
    }
    std::string out;
    out.reserve(text.size() * 3 / 4);
    uint32_t acc = 0;
    int bits = 0;
    for (char c : text) {
        const int v = base64_value(c, alphabet);
        if (v < 0)
            return Status::InvalidArgument(std::string(name) + " text has an invalid character");
        acc = (acc << 6) | static_cast<uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xff));
        }
    }
    // Leftover bits must be zero, so every byte string has exactly one encoding.
    if ((acc & ((1u << bits) - 1)) != 0) {
        return Status::InvalidArgument(std::string(name) + " text is not canonically encoded");
    }
    return out;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
    // Fetched once: EVP_sha256() makes EVP_Digest look the implementation up
    // again on every call, which costs as much as hashing a token. Never
    // freed; it lives as long as the process.
    static const EVP_MD* const kSha256 = [] {
        const EVP_MD* fetched = EVP_MD_fetch(nullptr, "SHA2-256", nullptr);
        return fetched != nullptr ? fetched : EVP_sha256();
    }();
    // One context per thread, kept: EVP_Digest allocates and frees one,
    // with its provider state, on every call.
    struct CtxDeleter {
        void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
    };
    thread_local const std::unique_ptr<EVP_MD_CTX, CtxDeleter> ctx(EVP_MD_CTX_new());
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int len = 0;
    if (ctx == nullptr || EVP_DigestInit_ex2(ctx.get(), kSha256, nullptr) != 1 ||
        EVP_DigestUpdate(ctx.get(), bytes_of(data), data.size()) != 1 ||
        EVP_DigestFinal_ex(ctx.get(), md.data(), &len) != 1) {
        crypto_failure("SHA-256");
    }
    return to_hex(md.data(), len);
}

std::string hmac_sha256_hex(std::string_view key, std::string_view msg) {
    std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
    size_t len = 0;
    if (EVP_Q_mac(nullptr, "HMAC", nullptr, "SHA256", nullptr, bytes_of(key), key.size(),
                  bytes_of(msg), msg.size(), mac.data(), mac.size(), &len) == nullptr) {
        crypto_failure("HMAC-SHA256");
    }
    std::string hex = to_hex(mac.data(), len);
    OPENSSL_cleanse(mac.data(), mac.size());
    return hex;
}

bool constant_time_equal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) {
        // Still touch every byte of a, so a mismatch in length costs about
        // what a same-length comparison would; the answer is fixed anyway.
        (void)CRYPTO_memcmp(bytes_of(a), bytes_of(a), a.size());
        return false;
    }
    return CRYPTO_memcmp(bytes_of(a), bytes_of(b), a.size()) == 0;
}

Result<std::string> generate_api_token() {
    auto body = random_base62(kApiTokenRandomChars);
    if (!body.ok()) return body.status();
    std::string token(kApiTokenPrefix);
    token += *body;
    OPENSSL_cleanse(body->data(), body->size());
    return token;
}

std::string token_display_id(std::string_view raw) {
    return sha256_hex(raw).substr(0, kTokenDisplayIdLength);
}

bool looks_like_api_token(std::string_view raw) {
    if (raw.size() != kApiTokenLength) return false;
    if (raw.substr(0, kApiTokenPrefix.size()) != kApiTokenPrefix) return false;
    for (char c : raw.substr(kApiTokenPrefix.size())) {
        if (!is_base62(c)) return false;
    }
    return true;
}

std::string base64_encode(std::string_view bytes) {
    return encode_base64(bytes, kStdAlphabet, /*pad=*/true);
}

Result<std::string> base64_decode(std::string_view text) {
    if (text.size() % 4 != 0) {
        return Status::InvalidArgument("base64 text length is not a multiple of 4");
    }
    size_t padding = 0;
    while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') {
        ++padding;
    }
    return decode_base64(text.substr(0, text.size() - padding), kStdAlphabet, "base64");
}

std::string base64url_encode(std::string_view bytes) {
    return encode_base64(bytes, kUrlAlphabet, /*pad=*/false);
}

Result<std::string> base64url_decode(std::string_view text) {
    return decode_base64(text, kUrlAlphabet, "base64url");
}

}  // namespace yuzu::auth
