// Malformed scope expressions: each must fail with InvalidArgument at the
// exact byte offset of the offending token (or the text length at the end).
#include <gtest/gtest.h>

#include <string>

#include "yuzu/scope/scope.hpp"

namespace yuzu::scope {
namespace {

struct BadInput {
    std::string text;
    size_t position;
    std::string message;  // a substring of the expected message
};

void PrintTo(const BadInput& bad, std::ostream* os) {
    *os << "'" << bad.text << "'";
}

class ScopeParseError : public ::testing::TestWithParam<BadInput> {};

TEST_P(ScopeParseError, ReportsPositionAndMessage) {
    const BadInput& bad = GetParam();
    ParseError error;
    auto parsed = parse(bad.text, &error);
    ASSERT_FALSE(parsed.ok()) << "parsed as: " << parsed->canonical();
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(error.position, bad.position) << error.to_string();
    EXPECT_NE(error.message.find(bad.message), std::string::npos) << error.to_string();
    EXPECT_EQ(parsed.status().message(), error.to_string());
    EXPECT_EQ(error.to_string().rfind("position " + std::to_string(bad.position) + ": ", 0), 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Malformed, ScopeParseError,
    ::testing::Values(
        BadInput{R"(colour = "red")", 0, "unknown attribute 'colour'"},
        BadInput{"os = ", 5, "expected a value after '=' but the expression ended"},
        BadInput{R"(hostname = "web-01" AND arch =)", 30, "expected a value after '='"},
        BadInput{R"(os = "linux)", 5, "unterminated string"},
        BadInput{R"(os = "linux\)", 5, "unterminated string"},
        BadInput{R"(os = "lin\x")", 9, "unknown escape"},
        BadInput{R"((os = "a")", 9, "expected ')' to close the '(' at position 0"},
        BadInput{R"(os = "a"))", 8, "unexpected ')'"}, BadInput{")", 0, "unexpected ')'"},
        BadInput{"()", 1, "unexpected ')'"}, BadInput{"", 0, "empty scope expression"},
        BadInput{"   \t ", 5, "empty scope expression"},
        BadInput{R"(os = "a" "b")", 9, "unexpected string \"b\" after a complete expression"},
        BadInput{R"(os = "a" AND)", 12, "expected an attribute, '(' or NOT but the expression"},
        BadInput{R"(os = "a" OR OR os = "b")", 12, "found keyword OR"},
        BadInput{R"(AND os = "a")", 0, "found keyword AND"},
        BadInput{"os LIKE 5", 8, "expected a quoted pattern after 'LIKE', found number 5"},
        BadInput{R"(os IN "a")", 6, "expected '(' after 'IN'"},
        BadInput{"os IN ()", 7, "expected a value after '(', found ')'"},
        BadInput{R"(os IN ("a",))", 11, "expected a value after ','"},
        BadInput{R"(os IN ("a" "b"))", 11, "expected ',' or ')' in the IN list"},
        BadInput{R"(os IN ("a", "b")", 15, "expected ',' or ')' in the IN list but the"},
        BadInput{R"(os NOT = "a")", 7, "expected IN, LIKE or EXISTS after NOT"},
        BadInput{R"(os "linux")", 3, "expected an operator"},
        BadInput{R"(os === "a")", 3, "'===' is not an operator"},
        BadInput{R"(os ==== "a")", 3, "'====' is not an operator"},
        BadInput{R"(os = = "a")", 5, "expected a value after '=', found '='"},
        BadInput{"os == ", 6, "expected a value after '==' but the expression ended"},
        BadInput{R"(os !== "a")", 5, "expected a value after '!=', found '='"},
        BadInput{R"(os <== 1)", 5, "expected a value after '<=', found '='"},
        BadInput{R"(group == "g" AND group LIKE "x")", 23, "'group' supports only"},
        BadInput{"os < ", 5, "expected a value after '<'"},
        BadInput{R"(os ! "a")", 3, "unexpected character '!'"},
        BadInput{"tag: = 1", 4, "expected a tag key after 'tag:'"},
        BadInput{"tag:" + std::string(65, 'k') + " EXISTS", 4, "tag key longer than 64"},
        BadInput{"version >= 1.2.3", 11, "malformed number '1.2.3'"},
        BadInput{"os = 12abc", 5, "malformed number '12abc'"},
        BadInput{"os = linux", 5, "expected a value after '=', found 'linux'"},
        BadInput{"os = -", 5, "unexpected character '-'"},
        BadInput{R"(group LIKE "g%")", 6, "'group' supports only =, !=, IN and NOT IN"},
        BadInput{"group NOT EXISTS", 6, "'group' supports only"},
        BadInput{R"(tag = "x")", 0, "unknown attribute 'tag' (tags are written tag:<key>)"},
        BadInput{R"(os = "a" AND #)", 13, "unexpected character '#'"},
        BadInput{std::string("os = \"a\" \x01"), 9, "unexpected character byte 0x01"},
        BadInput{"NOT", 3, "expected an attribute, '(' or NOT but the expression ended"},
        BadInput{R"(os = "a" AND (arch = "b")))", 25, "unexpected ')' without a matching '('"},
        BadInput{R"(os = "a" AND ()", 14, "expected an attribute"}));

TEST(ScopeParseLimits, LengthIsCheckedBeforeTokenizing) {
    // Unterminated quote at 0 would be the lexical error; the length wins.
    std::string text = "\"" + std::string(kMaxExpressionBytes, 'x');
    ParseError error;
    ASSERT_FALSE(parse(text, &error).ok());
    EXPECT_EQ(error.position, kMaxExpressionBytes);
    EXPECT_NE(error.message.find("expression longer than 4096 bytes"), std::string::npos);
}

TEST(ScopeParseLimits, ExactlyMaxBytesIsAccepted) {
    const std::string prefix = "os = \"";
    std::string text = prefix + std::string(kMaxExpressionBytes - prefix.size() - 1, 'x') + "\"";
    ASSERT_EQ(text.size(), kMaxExpressionBytes);
    auto parsed = parse(text);
    EXPECT_TRUE(parsed.ok()) << parsed.status().to_string();
}

std::string nested_parens(int depth) {
    return std::string(depth, '(') + "os = \"a\"" + std::string(depth, ')');
}

TEST(ScopeParseLimits, NestingUpToMaxDepthIsAccepted) {
    auto parsed = parse(nested_parens(kMaxDepth));
    ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
    EXPECT_EQ(parsed->canonical(), "os = \"a\"");

    std::string nots;
    for (int i = 0; i < kMaxDepth; ++i) nots += "NOT ";
    EXPECT_TRUE(parse(nots + "os EXISTS").ok());
}

TEST(ScopeParseLimits, NestingBeyondMaxDepthFailsAtTheOffendingToken) {
    ParseError error;
    ASSERT_FALSE(parse(nested_parens(kMaxDepth + 1), &error).ok());
    EXPECT_EQ(error.position, static_cast<size_t>(kMaxDepth));
    EXPECT_NE(error.message.find("nesting deeper than 32"), std::string::npos);

    std::string nots;
    for (int i = 0; i <= kMaxDepth; ++i) nots += "NOT ";
    ASSERT_FALSE(parse(nots + "os EXISTS", &error).ok());
    EXPECT_EQ(error.position, 4u * kMaxDepth);
    EXPECT_NE(error.message.find("nesting deeper than 32"), std::string::npos);

    // NOT and parentheses count together.
    std::string mixed;
    for (int i = 0; i < kMaxDepth / 2; ++i) mixed += "NOT (";
    ASSERT_FALSE(parse(mixed + "(os EXISTS)" + std::string(kMaxDepth / 2, ')'), &error).ok());
    EXPECT_EQ(error.position, mixed.size());
}

TEST(ScopeParseLimits, DeepNestingDoesNotRecurseUnbounded) {
    ParseError error;
    ASSERT_FALSE(parse(std::string(kMaxExpressionBytes, '('), &error).ok());
    EXPECT_EQ(error.position, static_cast<size_t>(kMaxDepth));
    ASSERT_FALSE(parse(std::string(kMaxExpressionBytes, ')'), &error).ok());
    EXPECT_EQ(error.position, 0u);
}

std::string in_list(size_t count) {
    std::string text = "os_version IN (";
    for (size_t i = 0; i < count; ++i) {
        if (i > 0) text += ",";
        text += std::to_string(i);
    }
    return text + ")";
}

TEST(ScopeParseLimits, InListUpToMaxIsAccepted) {
    auto parsed = parse(in_list(kMaxInListValues));
    EXPECT_TRUE(parsed.ok()) << parsed.status().to_string();
}

TEST(ScopeParseLimits, InListBeyondMaxFailsAtTheExtraValue) {
    const std::string text = in_list(kMaxInListValues + 1);
    ParseError error;
    ASSERT_FALSE(parse(text, &error).ok());
    EXPECT_EQ(error.position, text.rfind(',') + 1);
    EXPECT_NE(error.message.find("IN list longer than 256 values"), std::string::npos);
}

TEST(ScopeParseLimits, TextWhoseCanonicalFormIsTooLongIsRejected) {
    // Each unit grows by two spaces when normalised: 400 * 10 bytes fits,
    // 400 * 12 does not.
    std::string text;
    for (int i = 0; i < 400; ++i) text += "os=\"a\"OR ";
    text += "os=\"a\"";
    ASSERT_LE(text.size(), kMaxExpressionBytes);
    ParseError error;
    auto parsed = parse(text, &error);
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(error.position, 0u);
    EXPECT_NE(error.message.find("once normalised"), std::string::npos) << error.message;
}

TEST(ScopeParseLimits, TagKeyOfMaxLengthIsAccepted) {
    EXPECT_TRUE(parse("tag:" + std::string(64, 'k') + " EXISTS").ok());
}

TEST(ScopeParseLimits, ErrorPointerIsOptional) {
    auto parsed = parse("colour = 1");
    ASSERT_FALSE(parsed.ok());
    EXPECT_EQ(parsed.status().message().rfind("position 0: unknown attribute 'colour'", 0), 0u);
}

TEST(ScopeParseLimits, FirstErrorInTheTextWins) {
    // A syntax error at 3 is reported although a lexical error follows.
    ParseError error;
    ASSERT_FALSE(parse(R"(os os = "unterminated)", &error).ok());
    EXPECT_EQ(error.position, 3u);
}

}  // namespace
}  // namespace yuzu::scope
