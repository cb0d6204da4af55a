// Value comparison for scope predicates: ASCII case-insensitive text,
// exact decimal numbers, and the LIKE wildcard matcher.
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

namespace yuzu::scope {

// True when `text` is -?[0-9]+(\.[0-9]+)? (the DSL's number syntax).
bool is_decimal(std::string_view text);

// <0, 0, >0 comparing two is_decimal() texts by exact value, without
// converting to floating point (so "1.10" == "1.1", "-0" == "0", and a
// 300-digit number neither overflows nor loses precision).
int compare_decimal(std::string_view a, std::string_view b);

// <0, 0, >0 comparing byte-wise after ASCII lower-casing.
int compare_ignore_case(std::string_view a, std::string_view b);

// SQL LIKE, ASCII case-insensitive: '%' matches any run of bytes (also
// empty), '_' exactly one byte; there is no escape character. Iterative with
// a single backtrack point, so O(|text| * |pattern|) in the worst case and
// never exponential.
bool like_match(std::string_view text, std::string_view pattern);

}  // namespace yuzu::scope
