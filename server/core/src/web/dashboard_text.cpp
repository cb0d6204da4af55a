#include "dashboard_text.hpp"

#include <nlohmann/json.hpp>

#include "yuzu/common/json_parse.hpp"
#include "yuzu/common/json_text.hpp"

namespace yuzu::web {

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string safe_local_path(std::string_view path, std::string_view fallback) {
    if (path.empty() || path[0] != '/') return std::string(fallback);
    if (path.size() > 1 && (path[1] == '/' || path[1] == '\\')) return std::string(fallback);
    for (char c : path) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\\' || u < 0x20 || u == 0x7f) return std::string(fallback);
    }
    return std::string(path);
}

std::string format_age(int64_t age_ms) {
    const int64_t s = age_ms > 0 ? age_ms / 1000 : 0;
    if (s < 60) return std::to_string(s) + "s";
    const int64_t m = s / 60;
    if (m < 60) return std::to_string(m) + "m";
    const int64_t h = m / 60;
    if (h < 24) return std::to_string(h) + "h " + std::to_string(m % 60) + "m";
    return std::to_string(h / 24) + "d " + std::to_string(h % 24) + "h";
}

std::string pretty_json(std::string_view text) {
    auto parsed = parse_json_or_discarded(text);
    if (parsed.is_discarded()) return std::string(text);
    // Keep UTF-8 as it is; a stray invalid byte becomes U+FFFD, never a throw.
    return dump_json(parsed, 2);
}

}  // namespace yuzu::web
