#include "yuzu/auth/password_hash.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <charconv>
#include <cstdint>
#include <optional>
#include <vector>

#include "yuzu/auth/random.hpp"
#include "yuzu/auth/token_codec.hpp"

namespace yuzu::auth {
namespace {

constexpr std::string_view kPrefix = "$scrypt$";
constexpr size_t kSaltBytes = 16;
constexpr size_t kKeyBytes = 32;
// What verify_password() accepts for rows written by other versions.
constexpr size_t kMinSaltBytes = 8;
constexpr size_t kMaxSaltBytes = 64;
constexpr size_t kMinKeyBytes = 16;
constexpr size_t kMaxKeyBytes = 64;

struct ScryptParams {
    int log_n = 0;
    int r = 0;
    int p = 0;
};

struct ParsedHash {
    ScryptParams params;
    std::string salt;
    std::string key;
};

// scrypt needs 128*r*N bytes for V plus 128*r*p for B; OpenSSL refuses to run
// when that exceeds maxmem, so ask for exactly that plus slack for its
// bookkeeping.
uint64_t scrypt_maxmem(const ScryptParams& params) {
    const uint64_t n = uint64_t{1} << params.log_n;
    const uint64_t r = static_cast<uint64_t>(params.r);
    const uint64_t p = static_cast<uint64_t>(params.p);
    return 128 * r * (n + 2) + 128 * r * p + (uint64_t{1} << 20);
}

bool params_within_limits(const ScryptParams& params) {
    return params.log_n >= 1 && params.log_n <= kScryptMaxLogN && params.r >= 1 &&
           params.r <= kScryptMaxR && params.p >= 1 && params.p <= kScryptMaxP;
}

// Derives key.size() bytes into key. False only if OpenSSL refuses the
// parameters or cannot allocate the memory.
bool derive(std::string_view password, std::string_view salt, const ScryptParams& params,
            std::vector<unsigned char>& key) {
    static const char kEmpty = 0;
    const char* pass = password.empty() ? &kEmpty : password.data();
    const unsigned char* salt_bytes =
        reinterpret_cast<const unsigned char*>(salt.empty() ? &kEmpty : salt.data());
    return EVP_PBE_scrypt(pass, password.size(), salt_bytes, salt.size(),
                          uint64_t{1} << params.log_n, static_cast<uint64_t>(params.r),
                          static_cast<uint64_t>(params.p), scrypt_maxmem(params), key.data(),
                          key.size()) == 1;
}

// Consumes "<name>=<decimal>" from the front of text. Decimal: 1-2 digits, no
// sign, no leading zero, so each parameter set has exactly one spelling.
std::optional<int> take_param(std::string_view& text, std::string_view name) {
    if (text.substr(0, name.size()) != name || text.size() <= name.size() ||
        text[name.size()] != '=') {
        return std::nullopt;
    }
    text.remove_prefix(name.size() + 1);
    size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0 || digits > 2 || (digits > 1 && text[0] == '0')) return std::nullopt;
    int value = 0;
    std::from_chars(text.data(), text.data() + digits, value);
    text.remove_prefix(digits);
    return value;
}

std::optional<ScryptParams> parse_params(std::string_view text) {
    ScryptParams params;
    auto log_n = take_param(text, "ln");
    if (!log_n || text.empty() || text.front() != ',') return std::nullopt;
    text.remove_prefix(1);
    auto r = take_param(text, "r");
    if (!r || text.empty() || text.front() != ',') return std::nullopt;
    text.remove_prefix(1);
    auto p = take_param(text, "p");
    if (!p || !text.empty()) return std::nullopt;
    params.log_n = *log_n;
    params.r = *r;
    params.p = *p;
    return params;
}

std::optional<ParsedHash> parse(std::string_view encoded) {
    if (encoded.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
    encoded.remove_prefix(kPrefix.size());
    // What remains: "<params>$<salt>$<key>".
    const size_t first = encoded.find('$');
    if (first == std::string_view::npos) return std::nullopt;
    const size_t second = encoded.find('$', first + 1);
    if (second == std::string_view::npos) return std::nullopt;
    if (encoded.find('$', second + 1) != std::string_view::npos) return std::nullopt;

    auto params = parse_params(encoded.substr(0, first));
    if (!params || !params_within_limits(*params)) return std::nullopt;
    auto salt = base64url_decode(encoded.substr(first + 1, second - first - 1));
    auto key = base64url_decode(encoded.substr(second + 1));
    if (!salt.ok() || !key.ok()) return std::nullopt;
    if (salt->size() < kMinSaltBytes || salt->size() > kMaxSaltBytes) return std::nullopt;
    if (key->size() < kMinKeyBytes || key->size() > kMaxKeyBytes) return std::nullopt;
    return ParsedHash{*params, std::move(*salt), std::move(*key)};
}

std::string encode(const ScryptParams& params, std::string_view salt, std::string_view key) {
    std::string out(kPrefix);
    out += "ln=" + std::to_string(params.log_n) + ",r=" + std::to_string(params.r) +
           ",p=" + std::to_string(params.p) + "$";
    out += base64url_encode(salt);
    out += "$";
    out += base64url_encode(key);
    return out;
}

}  // namespace

Result<std::string> hash_password(std::string_view password) {
    return hash_password_with_cost(password, kScryptDefaultLogN);
}

Result<std::string> hash_password_with_cost(std::string_view password, int log_n) {
    if (password.size() > kMaxPasswordBytes) {
        return Status::InvalidArgument("password is longer than " +
                                       std::to_string(kMaxPasswordBytes) + " bytes");
    }
    const ScryptParams params{log_n, kScryptDefaultR, kScryptDefaultP};
    if (log_n < kScryptMinLogN || !params_within_limits(params)) {
        return Status::InvalidArgument("scrypt cost ln=" + std::to_string(log_n) + " is outside " +
                                       std::to_string(kScryptMinLogN) + ".." +
                                       std::to_string(kScryptMaxLogN));
    }
    auto salt = random_bytes(kSaltBytes);
    if (!salt.ok()) return salt.status();
    const std::string_view salt_view(reinterpret_cast<const char*>(salt->data()), salt->size());

    std::vector<unsigned char> key(kKeyBytes);
    if (!derive(password, salt_view, params, key)) {
        return Status::Internal("scrypt key derivation failed (ln=" + std::to_string(log_n) +
                                "); the process may be out of memory");
    }
    std::string out = encode(
        params, salt_view, std::string_view(reinterpret_cast<const char*>(key.data()), key.size()));
    OPENSSL_cleanse(key.data(), key.size());
    return out;
}

bool verify_password(std::string_view password, std::string_view encoded) {
    if (password.size() > kMaxPasswordBytes) return false;
    auto parsed = parse(encoded);
    if (!parsed) return false;
    std::vector<unsigned char> key(parsed->key.size());
    if (!derive(password, parsed->salt, parsed->params, key)) return false;
    const bool match = constant_time_equal(
        std::string_view(reinterpret_cast<const char*>(key.data()), key.size()), parsed->key);
    OPENSSL_cleanse(key.data(), key.size());
    return match;
}

bool needs_rehash(std::string_view encoded) {
    auto parsed = parse(encoded);
    if (!parsed) return true;
    const ScryptParams& p = parsed->params;
    return p.log_n != kScryptDefaultLogN || p.r != kScryptDefaultR || p.p != kScryptDefaultP ||
           parsed->salt.size() != kSaltBytes || parsed->key.size() != kKeyBytes;
}

}  // namespace yuzu::auth
