#include "execution/identifiers.hpp"

#include <algorithm>

#include "yuzu/auth/random.hpp"

namespace yuzu::execution {
namespace {

bool is_lower_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}
bool is_lower_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

Result<std::string> prefixed_hex(std::string_view prefix, size_t nbytes) {
    auto hex = auth::random_hex(nbytes);
    if (!hex.ok()) return hex.status();
    std::string id(prefix);
    id += *hex;
    return id;
}

}  // namespace

Result<std::string> new_execution_id() {
    return prefixed_hex("", 16);
}
Result<std::string> new_agent_command_id() {
    return prefixed_hex("", 16);
}
Result<std::string> new_command_id(std::string_view plugin) {
    return prefixed_hex(std::string(plugin) + "-", 8);
}
Result<std::string> new_bundle_id() {
    return prefixed_hex("bundle-", 16);
}
Result<std::string> new_definition_id() {
    return prefixed_hex("def-", 8);
}

bool is_plugin_name(std::string_view name) {
    return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
        return is_lower_alnum(c) || c == '_';
    });
}

bool is_definition_id(std::string_view id) {
    if (id.empty() || id.size() > 128 || !is_lower_alnum(id.front())) return false;
    return std::all_of(id.begin(), id.end(), [](char c) {
        return is_lower_alnum(c) || c == '.' || c == '_' || c == '-';
    });
}

bool is_bundle_id(std::string_view id) {
    constexpr std::string_view kPrefix = "bundle-";
    if (id.size() != kPrefix.size() + 32 || id.substr(0, kPrefix.size()) != kPrefix) return false;
    id.remove_prefix(kPrefix.size());
    return std::all_of(id.begin(), id.end(), is_lower_hex);
}

bool is_printable_text(std::string_view text, size_t max_bytes) {
    if (text.empty() || text.size() > max_bytes) return false;
    return std::none_of(text.begin(), text.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
    });
}

bool is_free_text(std::string_view text, size_t max_bytes) {
    if (text.size() > max_bytes) return false;
    return std::none_of(text.begin(), text.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return (u < 0x20 && c != '\t' && c != '\n') || u == 0x7f;
    });
}

}  // namespace yuzu::execution
