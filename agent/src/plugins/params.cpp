#include "plugins/params.hpp"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

#include "yuzu/common/json_parse.hpp"

namespace yuzu::agent::plugins {
namespace {

constexpr size_t kMaxQuotedKeyChars = 64;

Status bad(std::string_view key, std::string_view what) {
    return Status::InvalidArgument("parameter " + quoted_key(key) + " " + std::string(what));
}

}  // namespace

std::string quoted_key(std::string_view key) {
    std::string out = "'";
    for (char c : key.substr(0, kMaxQuotedKeyChars)) {
        const auto u = static_cast<unsigned char>(c);
        out.push_back(u < 0x20 || u == 0x7f ? '?' : c);
    }
    if (key.size() > kMaxQuotedKeyChars) out += "...";
    out += "'";
    return out;
}

Result<Params> Params::parse(const std::string& params_json,
                             std::initializer_list<std::string_view> allowed) {
    std::string text = params_json;
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) text = "{}";
    auto parsed = yuzu::parse_json_or_discarded(text);
    if (parsed.is_discarded()) return Status::InvalidArgument("params are not valid JSON");
    if (parsed.is_null()) parsed = nlohmann::json::object();
    if (!parsed.is_object()) return Status::InvalidArgument("params must be a JSON object");
    for (const auto& [key, value] : parsed.items()) {
        if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
            return Status::InvalidArgument("unknown parameter " + quoted_key(key));
        }
    }
    return Params(std::move(parsed));
}

const nlohmann::json* Params::find(std::string_view key) const {
    const auto it = object_.find(std::string(key));
    return it == object_.end() ? nullptr : &*it;
}

Result<std::optional<std::string>> Params::text(std::string_view key, size_t max_chars) const {
    const nlohmann::json* value = find(key);
    if (value == nullptr) return std::optional<std::string>();
    if (!value->is_string()) return bad(key, "must be a string");
    const auto& s = value->get_ref<const std::string&>();
    if (s.empty()) return bad(key, "must not be empty");
    if (s.size() > max_chars) {
        return bad(key, "exceeds " + std::to_string(max_chars) + " characters");
    }
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) return bad(key, "contains a control character");
    }
    return std::optional<std::string>(s);
}

Result<std::string> Params::required_text(std::string_view key, size_t max_chars) const {
    auto value = text(key, max_chars);
    if (!value.ok()) return value.status();
    if (!value->has_value()) return bad(key, "is required");
    return std::move(**value);
}

Result<std::optional<int64_t>> Params::integer(std::string_view key, int64_t min,
                                               int64_t max) const {
    const nlohmann::json* value = find(key);
    if (value == nullptr) return std::optional<int64_t>();
    const std::string range =
        "must be an integer from " + std::to_string(min) + " to " + std::to_string(max);
    if (value->is_number_unsigned()) {
        const auto u = value->get<uint64_t>();
        if (max < 0 || u > static_cast<uint64_t>(max)) return bad(key, range);
        const auto v = static_cast<int64_t>(u);
        if (v < min) return bad(key, range);
        return std::optional<int64_t>(v);
    }
    if (value->is_number_integer()) {
        const auto v = value->get<int64_t>();
        if (v < min || v > max) return bad(key, range);
        return std::optional<int64_t>(v);
    }
    return bad(key, range);
}

Result<std::optional<std::string>> Params::choice(
    std::string_view key, std::initializer_list<std::string_view> choices) const {
    const nlohmann::json* value = find(key);
    if (value == nullptr) return std::optional<std::string>();
    std::string expected = "must be one of";
    for (const auto c : choices) expected += " '" + std::string(c) + "'";
    if (!value->is_string()) return bad(key, expected);
    const auto& s = value->get_ref<const std::string&>();
    if (std::find(choices.begin(), choices.end(), s) == choices.end()) return bad(key, expected);
    return std::optional<std::string>(s);
}

Status check_absolute_path(std::string_view key, const std::string& path) {
    if (path.empty() || path.front() != '/') return bad(key, "must be an absolute path");
    if (path.size() > kMaxPathChars) {
        return bad(key, "exceeds " + std::to_string(kMaxPathChars) + " characters");
    }
    if (path.find('\0') != std::string::npos) return bad(key, "contains a NUL byte");
    if (path == "/") return Status::Ok();
    if (path.back() == '/') return bad(key, "must not end with '/'");
    size_t start = 1;
    while (start <= path.size()) {
        size_t end = path.find('/', start);
        if (end == std::string::npos) end = path.size();
        const std::string_view part(path.data() + start, end - start);
        if (part == "..") return bad(key, "must not contain '..' components");
        if (part == ".") return bad(key, "must be normalized (no '.' components)");
        if (part.empty()) return bad(key, "must be normalized (no empty components)");
        start = end + 1;
    }
    return Status::Ok();
}

bool only_chars(std::string_view text, std::string_view extra, bool allow_utf8) {
    return std::all_of(text.begin(), text.end(), [&](char c) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x80) return allow_utf8;
        return std::isalnum(u) != 0 || extra.find(c) != std::string_view::npos;
    });
}

bool wildcard_match(std::string_view pattern, std::string_view text) {
    // Iterative glob with single-'*' backtracking: linear in practice and
    // never recursive, so a hostile pattern cannot blow the stack.
    size_t p = 0;
    size_t t = 0;
    size_t star = std::string_view::npos;
    size_t resume = 0;
    while (t < text.size()) {
        if (p < pattern.size() && pattern[p] == '*') {
            star = p++;
            resume = t;
        } else if (p < pattern.size() && pattern[p] == text[t]) {
            ++p;
            ++t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++resume;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '*') ++p;
    return p == pattern.size();
}

}  // namespace yuzu::agent::plugins
