#include "yuzu/common/json_parse.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

namespace yuzu {
namespace {

std::string nested(int levels, char open, char close) {
    return std::string(static_cast<size_t>(levels), open) +
           std::string(static_cast<size_t>(levels), close);
}

std::string nested_objects(int levels) {
    std::string text;
    for (int i = 0; i < levels; ++i) text += "{\"a\":";
    text += "1";
    text += std::string(static_cast<size_t>(levels), '}');
    return text;
}

TEST(ParseJson, ParsesOrdinaryDocuments) {
    auto j = parse_json(R"({"jsonrpc":"2.0","id":1,"params":{"a":[1,2,{"b":null}]}})");
    ASSERT_TRUE(j.ok()) << j.status().message();
    EXPECT_EQ((*j)["params"]["a"][2]["b"], nullptr);
    EXPECT_EQ(parse_json("3").value(), 3);
    EXPECT_EQ(parse_json("\"x\"").value(), "x");
}

TEST(ParseJson, AcceptsExactlyTheDepthLimitAndRefusesOneMore) {
    for (const char open : {'[', '{'}) {
        const auto at_limit =
            open == '[' ? nested(kMaxJsonDepth, '[', ']') : nested_objects(kMaxJsonDepth);
        const auto over =
            open == '[' ? nested(kMaxJsonDepth + 1, '[', ']') : nested_objects(kMaxJsonDepth + 1);
        EXPECT_TRUE(parse_json(at_limit).ok()) << open;
        auto refused = parse_json(over);
        ASSERT_FALSE(refused.ok()) << open;
        EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
        EXPECT_EQ(refused.status().message(), "JSON is nested deeper than 64 levels");
        EXPECT_TRUE(is_json_too_deep(refused.status()));
    }
    // Mixed nesting counts every level, objects and arrays alike.
    std::string mixed;
    for (int i = 0; i < 40; ++i) mixed += "[{\"k\":";
    mixed += "0";
    for (int i = 0; i < 40; ++i) mixed += "}]";
    EXPECT_FALSE(parse_json(mixed).ok());
    EXPECT_TRUE(parse_json(mixed, 80).ok());
}

TEST(ParseJson, BracketsInsideStringsAreNotNesting) {
    // Shallow texts skip the depth callback after a scan for brackets; the
    // scan must know where strings start and end, escaped quotes included.
    const std::string deep_text = "[\"" + nested(100, '[', ']') + "\"]";
    EXPECT_TRUE(parse_json(deep_text, 1).ok());
    EXPECT_TRUE(parse_json(R"(["a \"[[[[ quoted", "\\"])", 1).ok());
    // An escaped backslash ends before the quote: what follows is real nesting.
    auto refused = parse_json(R"(["\\", [[1]]])", 2);
    ASSERT_FALSE(refused.ok());
    EXPECT_TRUE(is_json_too_deep(refused.status()));
    EXPECT_TRUE(parse_json(R"(["\\", [[1]]])", 3).ok());
    // An escaped quote does not end its string: a scan that took it for the
    // end would see the next quote open a string to the end of the text, and
    // call four levels shallow.
    auto after_quote = parse_json(R"(["\"", [[[1]]]])", 3);
    ASSERT_FALSE(after_quote.ok());
    EXPECT_TRUE(is_json_too_deep(after_quote.status()));
    EXPECT_TRUE(parse_json(R"(["\"", [[[1]]]])", 4).ok());
}

TEST(ParseJson, AHostilelyDeepBodyIsRefusedAtOnceWithoutExhaustingTheStack) {
    // 140,000 levels, the size that overflowed the stack before the limit.
    const std::string hostile = nested(140'000, '[', ']');
    const auto start = std::chrono::steady_clock::now();
    auto refused = parse_json(hostile);
    EXPECT_FALSE(refused.ok());
    EXPECT_TRUE(parse_json_or_discarded(hostile).is_discarded());
    // An unterminated one is refused the same way, at the limit.
    EXPECT_FALSE(parse_json(std::string(1'000'000, '{')).ok());
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(ParseJson, MalformedTextSaysWhere) {
    auto bad = parse_json(R"({"a":1,})");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().message().rfind("malformed JSON at byte ", 0), 0u)
        << bad.status().message();
    EXPECT_FALSE(is_json_too_deep(bad.status()));
    EXPECT_FALSE(parse_json("").ok());
    EXPECT_FALSE(parse_json("{} trailing").ok());
    EXPECT_TRUE(parse_json_or_discarded("nope").is_discarded());
    EXPECT_FALSE(parse_json_or_discarded("[]").is_discarded());
}

TEST(ParseJson, ANulByteIsMalformedNotTheEndOfTheDocument) {
    using namespace std::string_literals;
    for (const std::string& text : {"{\"a\":1}\0{\"b\":2}"s, "{\"a\":\"x\0y\"}"s, "\0"s}) {
        auto parsed = parse_json(text);
        ASSERT_FALSE(parsed.ok()) << "a NUL byte let a document through";
        EXPECT_NE(parsed.status().message().find("malformed JSON at byte"), std::string::npos);
    }
}
}  // namespace
}  // namespace yuzu
