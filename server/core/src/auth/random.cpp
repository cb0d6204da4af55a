#include "yuzu/auth/random.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <algorithm>
#include <climits>
#include <string_view>

namespace yuzu::auth {
namespace {

constexpr std::string_view kBase62Alphabet =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
static_assert(kBase62Alphabet.size() == 62);

// The largest multiple of 62 that fits in a byte is 248: bytes in [248, 256)
// are rejected so that `byte % 62` is uniform.
constexpr unsigned kBase62RejectFrom = 256 - (256 % 62);
static_assert(kBase62RejectFrom == 248);

Status fill_random(uint8_t* out, size_t n) {
    // RAND_bytes takes an int length; feed it in chunks.
    while (n > 0) {
        const size_t chunk = std::min<size_t>(n, INT_MAX);
        if (RAND_bytes(out, static_cast<int>(chunk)) != 1) {
            return Status::Unavailable("entropy source unavailable");
        }
        out += chunk;
        n -= chunk;
    }
    return Status::Ok();
}

}  // namespace

Result<std::vector<uint8_t>> random_bytes(size_t n) {
    std::vector<uint8_t> out(n);
    if (n == 0) return out;
    Status s = fill_random(out.data(), n);
    if (!s.ok()) return s;
    return out;
}

Result<std::string> random_base62(size_t n) {
    std::string out;
    out.reserve(n);
    // About 3% of bytes are rejected, so draw a little more than needed each
    // round; the loop tops up the rare shortfall.
    std::vector<uint8_t> pool;
    while (out.size() < n) {
        const size_t missing = n - out.size();
        pool.resize(missing + missing / 16 + 4);
        Status s = fill_random(pool.data(), pool.size());
        if (!s.ok()) return s;
        for (uint8_t b : pool) {
            if (out.size() == n) break;
            if (b >= kBase62RejectFrom) continue;
            out.push_back(kBase62Alphabet[b % 62]);
        }
    }
    if (!pool.empty()) OPENSSL_cleanse(pool.data(), pool.size());
    return out;
}

Result<std::string> random_hex(size_t nbytes) {
    static constexpr char kHex[] = "0123456789abcdef";
    auto bytes = random_bytes(nbytes);
    if (!bytes.ok()) return bytes.status();
    std::string out;
    out.reserve(nbytes * 2);
    for (uint8_t b : *bytes) {
        out.push_back(kHex[b >> 4]);
        out.push_back(kHex[b & 0x0f]);
    }
    if (!bytes->empty()) OPENSSL_cleanse(bytes->data(), bytes->size());
    return out;
}

}  // namespace yuzu::auth
