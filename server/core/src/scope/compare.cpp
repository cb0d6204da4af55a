#include "scope/compare.hpp"

#include <cassert>
#include <cstddef>

namespace yuzu::scope {
namespace {

char lower(char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

// A decimal split into sign and magnitude, with leading zeros of the integer
// part and trailing zeros of the fraction removed.
struct Decimal {
    bool negative = false;
    std::string_view integer;   // "" for zero
    std::string_view fraction;  // "" for none
};

Decimal split(std::string_view text) {
    Decimal d;
    if (!text.empty() && text.front() == '-') {
        d.negative = true;
        text.remove_prefix(1);
    }
    const size_t dot = text.find('.');
    std::string_view integer = text.substr(0, dot);
    std::string_view fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1);
    while (!integer.empty() && integer.front() == '0') integer.remove_prefix(1);
    while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
    d.integer = integer;
    d.fraction = fraction;
    if (integer.empty() && fraction.empty()) d.negative = false;  // -0 is 0
    return d;
}

int compare_magnitude(const Decimal& a, const Decimal& b) {
    if (a.integer.size() != b.integer.size()) return a.integer.size() < b.integer.size() ? -1 : 1;
    if (int c = a.integer.compare(b.integer); c != 0) return c < 0 ? -1 : 1;
    // Trailing zeros are gone, so plain string order is numeric order here.
    if (int c = a.fraction.compare(b.fraction); c != 0) return c < 0 ? -1 : 1;
    return 0;
}

}  // namespace

bool is_decimal(std::string_view text) {
    size_t i = 0;
    if (i < text.size() && text[i] == '-') ++i;
    const size_t int_start = i;
    while (i < text.size() && is_digit(text[i])) ++i;
    if (i == int_start) return false;
    if (i == text.size()) return true;
    if (text[i] != '.') return false;
    const size_t frac_start = ++i;
    while (i < text.size() && is_digit(text[i])) ++i;
    return i > frac_start && i == text.size();
}

int compare_decimal(std::string_view a, std::string_view b) {
    assert(is_decimal(a) && is_decimal(b));
    const Decimal x = split(a);
    const Decimal y = split(b);
    if (x.negative != y.negative) return x.negative ? -1 : 1;
    const int magnitude = compare_magnitude(x, y);
    return x.negative ? -magnitude : magnitude;
}

int compare_ignore_case(std::string_view a, std::string_view b) {
    const size_t n = a.size() < b.size() ? a.size() : b.size();
    for (size_t i = 0; i < n; ++i) {
        const auto x = static_cast<unsigned char>(lower(a[i]));
        const auto y = static_cast<unsigned char>(lower(b[i]));
        if (x != y) return x < y ? -1 : 1;
    }
    if (a.size() == b.size()) return 0;
    return a.size() < b.size() ? -1 : 1;
}

bool like_match(std::string_view text, std::string_view pattern) {
    size_t t = 0;
    size_t p = 0;
    // Where the last '%' was and which text position it is currently
    // assumed to stop at; on a mismatch it swallows one more byte. Only the
    // last '%' needs remembering: an earlier one can never help more.
    size_t star = std::string_view::npos;
    size_t star_text = 0;
    while (t < text.size()) {
        if (p < pattern.size() && pattern[p] == '%') {
            star = p++;
            star_text = t;
        } else if (p < pattern.size() &&
                   (pattern[p] == '_' || lower(pattern[p]) == lower(text[t]))) {
            ++p;
            ++t;
        } else if (star != std::string_view::npos) {
            p = star + 1;
            t = ++star_text;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == '%') ++p;
    return p == pattern.size();
}

}  // namespace yuzu::scope
