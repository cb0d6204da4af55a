// ASCII-only case folding for protocol text: HTTP field names and tokens,
// the scope language's keywords. Unlike std::tolower these ignore the
// process locale, so "content-length" never matches a look-alike byte.
#pragma once

#include <cstddef>
#include <string_view>

namespace yuzu {

constexpr char ascii_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// Whether `a` and `b` are equal ignoring ASCII case.
constexpr bool iequals_ascii(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
    }
    return true;
}

// Whether `text` begins with `prefix`, ignoring ASCII case.
constexpr bool istarts_with_ascii(std::string_view text, std::string_view prefix) {
    return text.size() >= prefix.size() && iequals_ascii(text.substr(0, prefix.size()), prefix);
}

}  // namespace yuzu
