// The value encoding of the 2026 routing headers (modern_headers.hpp),
// apart from the request checks so the fuzz target needs only this.
#include <nlohmann/json.hpp>

#include "mcp/transport/modern_headers.hpp"
#include "yuzu/auth/token_codec.hpp"
#include "yuzu/common/json_text.hpp"

namespace yuzu::mcp {
namespace {

constexpr std::string_view kBase64Open = "=?base64?";
constexpr std::string_view kBase64Close = "?=";

}  // namespace

std::string_view trim_header_ows(std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    return v;
}

std::optional<std::string> decode_mcp_header_value(std::string_view raw) {
    const std::string_view v = trim_header_ows(raw);
    if (v.size() < kBase64Open.size() + kBase64Close.size() ||
        v.substr(0, kBase64Open.size()) != kBase64Open ||
        v.substr(v.size() - kBase64Close.size()) != kBase64Close) {
        // A plain value is visible ASCII, spaces and tabs: anything else must
        // come base64-encoded, so obs-text and control bytes are refused.
        for (char c : v) {
            const auto u = static_cast<unsigned char>(c);
            if ((u < 0x21 || u > 0x7e) && u != ' ' && u != '\t') return std::nullopt;
        }
        return std::string(v);
    }
    auto decoded = auth::base64_decode(
        v.substr(kBase64Open.size(), v.size() - kBase64Open.size() - kBase64Close.size()));
    if (!decoded.ok()) return std::nullopt;
    return std::move(decoded).value();
}

std::optional<std::string> mcp_header_text_of(const nlohmann::json& argument) {
    if (argument.is_string()) return argument.get<std::string>();
    if (argument.is_boolean()) return argument.get<bool>() ? "true" : "false";
    if (argument.is_number()) return dump_json(argument);
    return std::nullopt;
}

}  // namespace yuzu::mcp
