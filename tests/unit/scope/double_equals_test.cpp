// `==` (the original Yuzu's spelling of equality) is the same operator as
// `=`: same tokens to the parser, same tree, same canonical form (`=`), same
// agents selected. `!=`, `<=` and `>=` are untouched and `===` is an error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scope/lexer.hpp"
#include "test_fleet.hpp"
#include "yuzu/scope/scope.hpp"

namespace yuzu::scope {
namespace {

using testing::FakeAgent;
using testing::make_fleet;
using testing::sample_expressions;

std::vector<Token> lex_all(std::string_view text) {
    Lexer lexer(text);
    std::vector<Token> tokens;
    while (true) {
        tokens.push_back(lexer.next());
        const TokenKind kind = tokens.back().kind;
        if (kind == TokenKind::kEnd || kind == TokenKind::kError) return tokens;
    }
}

// `text` with every equality operator `=` written `==` (outside strings; the
// `=` of `!=`, `<=` and `>=` left alone).
std::string doubled(const std::string& text) {
    std::string out;
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        out += c;
        if (in_string) {
            if (c == '\\' && i + 1 < text.size()) {
                out += text[++i];
            } else if (c == '"') {
                in_string = false;
            }
            continue;
        }
        if (c == '"') in_string = true;
        const bool part_of_other = i > 0 && (text[i - 1] == '!' || text[i - 1] == '<' ||
                                             text[i - 1] == '>' || text[i - 1] == '=');
        if (c == '=' && !part_of_other) out += '=';
    }
    return out;
}

TEST(ScopeDoubleEquals, LexesAsOneEqualityOperator) {
    const auto tokens = lex_all(R"(os=="linux" AND tag:env == 1 OR arch!="x" OR online>=1)");
    const std::vector<std::pair<TokenKind, std::string>> expected = {
        {TokenKind::kWord, "os"},     {TokenKind::kOperator, "=="}, {TokenKind::kString, "linux"},
        {TokenKind::kWord, "AND"},    {TokenKind::kTag, "env"},     {TokenKind::kOperator, "=="},
        {TokenKind::kNumber, "1"},    {TokenKind::kWord, "OR"},     {TokenKind::kWord, "arch"},
        {TokenKind::kOperator, "!="}, {TokenKind::kString, "x"},    {TokenKind::kWord, "OR"},
        {TokenKind::kWord, "online"}, {TokenKind::kOperator, ">="}, {TokenKind::kNumber, "1"},
        {TokenKind::kEnd, ""},
    };
    ASSERT_EQ(tokens.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(tokens[i].kind, expected[i].first);
        EXPECT_EQ(tokens[i].text, expected[i].second);
    }
    EXPECT_EQ(tokens[1].position, 2u);
    EXPECT_EQ(tokens[2].position, 4u);
    EXPECT_EQ(tokens[5].position, 24u);
}

TEST(ScopeDoubleEquals, SingleEqualsIsUnchanged) {
    const auto tokens = lex_all("os = 1");
    ASSERT_EQ(tokens.size(), 4u);
    EXPECT_EQ(tokens[1].kind, TokenKind::kOperator);
    EXPECT_EQ(tokens[1].text, "=");
}

TEST(ScopeDoubleEquals, NotEqualsStillLexesAsNotEqual) {
    for (const char* text : {"os != 1", "os!=1", "os !=1"}) {
        SCOPED_TRACE(text);
        const auto tokens = lex_all(text);
        ASSERT_EQ(tokens.size(), 4u);
        EXPECT_EQ(tokens[1].kind, TokenKind::kOperator);
        EXPECT_EQ(tokens[1].text, "!=");
    }
    auto parsed = parse(R"(os != "linux")");
    ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
    EXPECT_EQ(parsed->canonical(), R"(os != "linux")");
}

TEST(ScopeDoubleEquals, ThreeOrMoreEqualsSignsAreALexicalError) {
    auto tokens = lex_all(R"(os === "a")");
    ASSERT_EQ(tokens.back().kind, TokenKind::kError);
    EXPECT_EQ(tokens.back().position, 3u);
    EXPECT_EQ(tokens.back().text, "'===' is not an operator (equality is '=' or '==')");

    tokens = lex_all("os" + std::string(100, '=') + "1");
    ASSERT_EQ(tokens.back().kind, TokenKind::kError);
    EXPECT_EQ(tokens.back().position, 2u);
    EXPECT_EQ(tokens.back().text.find(std::string(33, '=')), std::string::npos)
        << "the run is shortened in the message: " << tokens.back().text;

    ParseError error;
    ASSERT_FALSE(parse(R"(os==="a")", &error).ok());
    EXPECT_EQ(error.position, 2u);
    EXPECT_NE(error.message.find("'===' is not an operator"), std::string::npos) << error.message;
}

TEST(ScopeDoubleEquals, CanonicalFormIsSingleEquals) {
    auto parsed = parse(R"(os=="linux")");
    ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
    EXPECT_EQ(parsed->canonical(), R"(os = "linux")");

    parsed = parse(R"(tag:env == "prod" and group == "g1" or online==true)");
    ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
    EXPECT_EQ(parsed->canonical(), R"(tag:env = "prod" AND group = "g1" OR online = true)");

    // An '=' inside a string is a character, not an operator.
    parsed = parse(R"(tag:k == "a==b")");
    ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
    EXPECT_EQ(parsed->canonical(), R"(tag:k = "a==b")");
}

TEST(ScopeDoubleEquals, GroupAcceptsDoubleEquals) {
    auto parsed = parse(R"(group == "g-web")");
    ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
    EXPECT_EQ(parsed->canonical(), R"(group = "g-web")");
}

TEST(ScopeDoubleEquals, EverySampleMeansTheSameWithDoubleEquals) {
    const auto fleet = make_fleet();
    int rewritten = 0;
    for (const std::string& text : sample_expressions()) {
        const std::string twice = doubled(text);
        SCOPED_TRACE(twice);
        if (twice != text) ++rewritten;
        auto single = parse(text);
        auto dbl = parse(twice);
        ASSERT_TRUE(single.ok()) << single.status().to_string();
        ASSERT_TRUE(dbl.ok()) << dbl.status().to_string();
        EXPECT_EQ(dbl->canonical(), single->canonical());
        EXPECT_EQ(dbl->attributes(), single->attributes());
        for (const FakeAgent& agent : fleet) {
            SCOPED_TRACE(agent.name());
            EXPECT_EQ(dbl->matches(agent), single->matches(agent));
        }
    }
    EXPECT_GT(rewritten, 10) << "the samples exercise '='";
}

TEST(ScopeDoubleEquals, DoublingHelperLeavesOtherOperatorsAlone) {
    EXPECT_EQ(doubled(R"(a = 1 AND b != 2 AND c <= 3 AND d >= 4 AND e = "x=y")"),
              R"(a == 1 AND b != 2 AND c <= 3 AND d >= 4 AND e == "x=y")");
}

}  // namespace
}  // namespace yuzu::scope
