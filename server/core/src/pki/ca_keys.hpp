// The CA's own keys: making a generation, opening a sealed one. Private to
// the pki module.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pki/openssl_util.hpp"
#include "pki/pki_store.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::auth {
class SecretBox;
}

namespace yuzu::pki::detail {

inline constexpr char kStateRoot[] = "root";
inline constexpr char kStateActive[] = "active";
inline constexpr char kStatePending[] = "pending";
inline constexpr char kStateRetired[] = "retired";

// A generation's certificate and its unsealed key (freed with the object;
// OpenSSL clears EC key material on free).
struct OpenedKeys {
    X509Ptr certificate;
    PkeyPtr key;
    std::string key_id;
    int generation = 0;
};

// The associated data a generation's key is sealed under.
std::string key_aad(int generation);

Result<OpenedKeys> open_keys(const KeyRow& row, const auth::SecretBox& box);

// A fresh key and certificate for `generation` (0: the self-signed root;
// n: a signing CA under root), the key sealed.
Result<KeyRow> make_generation(int generation, X509* root, EVP_PKEY* root_key,
                               const std::string& ca_name, const auth::SecretBox& box,
                               int64_t now_ms, const std::string& by);

const KeyRow* find_state(const std::vector<KeyRow>& rows, std::string_view state);
const KeyRow* find_generation(const std::vector<KeyRow>& rows, int generation);

}  // namespace yuzu::pki::detail
