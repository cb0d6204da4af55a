// The value comparisons behind predicates: LIKE, decimals, text order.
#include "scope/compare.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace yuzu::scope {
namespace {

TEST(ScopeLike, LiteralPatternsMatchWholeTextIgnoringCase) {
    EXPECT_TRUE(like_match("web-01", "web-01"));
    EXPECT_TRUE(like_match("WEB-01", "web-01"));
    EXPECT_FALSE(like_match("web-01", "web-0"));
    EXPECT_FALSE(like_match("web-0", "web-01"));
    EXPECT_TRUE(like_match("", ""));
    EXPECT_FALSE(like_match("a", ""));
}

TEST(ScopeLike, PercentMatchesAnyRunIncludingEmpty) {
    EXPECT_TRUE(like_match("", "%"));
    EXPECT_TRUE(like_match("", "%%%"));
    EXPECT_TRUE(like_match("abc", "%"));
    EXPECT_TRUE(like_match("abc", "a%"));
    EXPECT_TRUE(like_match("abc", "%c"));
    EXPECT_TRUE(like_match("abc", "a%c"));
    EXPECT_TRUE(like_match("ac", "a%c"));
    EXPECT_TRUE(like_match("abcbc", "a%bc"));
    EXPECT_TRUE(like_match("mississippi", "%iss%ppi"));
    EXPECT_FALSE(like_match("abcb", "a%c"));
    EXPECT_FALSE(like_match("abc", "%d%"));
    EXPECT_TRUE(like_match("a%b", "a%b"));  // '%' in text is just a byte
}

TEST(ScopeLike, UnderscoreMatchesExactlyOneByte) {
    EXPECT_TRUE(like_match("a", "_"));
    EXPECT_FALSE(like_match("", "_"));
    EXPECT_FALSE(like_match("ab", "_"));
    EXPECT_TRUE(like_match("abc", "_b_"));
    EXPECT_TRUE(like_match("a_c", "a_c"));
    EXPECT_TRUE(like_match("abc", "%_"));
    EXPECT_FALSE(like_match("", "%_"));
    EXPECT_TRUE(like_match("ab", "_%_"));
    EXPECT_FALSE(like_match("a", "_%_"));
    // Bytes, not characters: "é" is two bytes in UTF-8.
    EXPECT_TRUE(like_match("caf\xc3\xa9", "caf__"));
    EXPECT_FALSE(like_match("caf\xc3\xa9", "caf_"));
}

TEST(ScopeLike, PathologicalPatternsStayPolynomial) {
    // A backtracking matcher explores exponentially many splits here.
    const std::string text(4000, 'a');
    std::string pattern;
    for (int i = 0; i < 1000; ++i) pattern += "%a";
    pattern += "%b";
    const auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(like_match(text, pattern));
    EXPECT_TRUE(like_match(text + "b", pattern));
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_LT(elapsed, std::chrono::seconds(5));
}

TEST(ScopeDecimal, RecognisesTheDslNumberSyntax) {
    EXPECT_TRUE(is_decimal("0"));
    EXPECT_TRUE(is_decimal("-12"));
    EXPECT_TRUE(is_decimal("3.25"));
    EXPECT_TRUE(is_decimal("007.0"));
    EXPECT_FALSE(is_decimal(""));
    EXPECT_FALSE(is_decimal("-"));
    EXPECT_FALSE(is_decimal("1."));
    EXPECT_FALSE(is_decimal(".5"));
    EXPECT_FALSE(is_decimal("1.2.3"));
    EXPECT_FALSE(is_decimal("+1"));
    EXPECT_FALSE(is_decimal("1e5"));
    EXPECT_FALSE(is_decimal(" 1"));
}

TEST(ScopeDecimal, ComparesByExactValue) {
    EXPECT_EQ(compare_decimal("10", "9"), 1);
    EXPECT_EQ(compare_decimal("9", "10"), -1);
    EXPECT_EQ(compare_decimal("1.10", "1.1"), 0);
    EXPECT_EQ(compare_decimal("010", "10.000"), 0);
    EXPECT_EQ(compare_decimal("-0", "0.0"), 0);
    EXPECT_EQ(compare_decimal("-1", "0"), -1);
    EXPECT_EQ(compare_decimal("-2", "-10"), 1);
    EXPECT_EQ(compare_decimal("-2.5", "-2.45"), -1);
    EXPECT_EQ(compare_decimal("0.5", "0.45"), 1);
    EXPECT_EQ(compare_decimal("0.5", "0.51"), -1);
    EXPECT_EQ(compare_decimal("22.04", "14.2"), 1);
    // Beyond double precision: these differ only in the last digit.
    EXPECT_EQ(compare_decimal("12345678901234567890123", "12345678901234567890124"), -1);
    const std::string huge = "1" + std::string(400, '0');
    EXPECT_EQ(compare_decimal(huge, "9"), 1);
    EXPECT_EQ(compare_decimal("-" + huge, "-9"), -1);
}

TEST(ScopeText, ComparesIgnoringAsciiCase) {
    EXPECT_EQ(compare_ignore_case("Linux", "linux"), 0);
    EXPECT_EQ(compare_ignore_case("a", "B"), -1);
    EXPECT_EQ(compare_ignore_case("B", "a"), 1);
    EXPECT_EQ(compare_ignore_case("ab", "a"), 1);
    EXPECT_EQ(compare_ignore_case("", ""), 0);
    EXPECT_EQ(compare_ignore_case("\xc3\xa9", "\xc3\x89"), 1);  // non-ASCII is not folded
}

}  // namespace
}  // namespace yuzu::scope
