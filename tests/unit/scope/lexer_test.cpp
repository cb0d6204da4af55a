// The tokenizer: kinds, positions, decoded text and lexical errors.
#include "scope/lexer.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace yuzu::scope {
namespace {

std::vector<Token> lex_all(std::string_view text) {
    Lexer lexer(text);
    std::vector<Token> tokens;
    while (true) {
        tokens.push_back(lexer.next());
        const TokenKind kind = tokens.back().kind;
        if (kind == TokenKind::kEnd || kind == TokenKind::kError) return tokens;
    }
}

TEST(ScopeLexer, TokenizesEveryKindWithPositions) {
    const auto tokens = lex_all(R"(Tag:a.b-c NOT IN ("x\"y", -1.5, 7),<=>=!=>< = )");
    const std::vector<std::pair<TokenKind, std::string>> expected = {
        {TokenKind::kTag, "a.b-c"},   {TokenKind::kWord, "NOT"},    {TokenKind::kWord, "IN"},
        {TokenKind::kLParen, ""},     {TokenKind::kString, "x\"y"}, {TokenKind::kComma, ""},
        {TokenKind::kNumber, "-1.5"}, {TokenKind::kComma, ""},      {TokenKind::kNumber, "7"},
        {TokenKind::kRParen, ""},     {TokenKind::kComma, ""},      {TokenKind::kOperator, "<="},
        {TokenKind::kOperator, ">="}, {TokenKind::kOperator, "!="}, {TokenKind::kOperator, ">"},
        {TokenKind::kOperator, "<"},  {TokenKind::kOperator, "="},  {TokenKind::kEnd, ""},
    };
    ASSERT_EQ(tokens.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(tokens[i].kind, expected[i].first);
        if (!expected[i].second.empty()) {
            EXPECT_EQ(tokens[i].text, expected[i].second);
        }
    }
    EXPECT_EQ(tokens[0].position, 0u);
    EXPECT_EQ(tokens[1].position, 10u);
    EXPECT_EQ(tokens[4].position, 18u);
    EXPECT_EQ(tokens[6].position, 26u);
    EXPECT_EQ(tokens.back().position, 46u);
}

TEST(ScopeLexer, WordsStopAtNonWordCharacters) {
    const auto tokens = lex_all("os_version>1");
    ASSERT_EQ(tokens.size(), 4u);
    EXPECT_EQ(tokens[0].text, "os_version");
    EXPECT_EQ(tokens[1].position, 10u);
    EXPECT_EQ(tokens[2].text, "1");
}

TEST(ScopeLexer, MinusStartsANumberOnlyBeforeADigit) {
    const auto tokens = lex_all("- 1");
    ASSERT_EQ(tokens.back().kind, TokenKind::kError);
    EXPECT_EQ(tokens.back().position, 0u);
}

TEST(ScopeLexer, StringErrorsPointAtTheirCause) {
    auto tokens = lex_all(R"(  "abc)");
    EXPECT_EQ(tokens.back().kind, TokenKind::kError);
    EXPECT_EQ(tokens.back().position, 2u);
    EXPECT_EQ(tokens.back().text, "unterminated string");

    tokens = lex_all(R"("ab\nc")");
    EXPECT_EQ(tokens.back().kind, TokenKind::kError);
    EXPECT_EQ(tokens.back().position, 3u);
}

TEST(ScopeLexer, DescribesTokensForMessages) {
    Token t;
    t.kind = TokenKind::kString;
    t.text = std::string(40, 'x');
    EXPECT_EQ(describe(t), "string \"" + std::string(32, 'x') + "...\"");
    t.kind = TokenKind::kEnd;
    EXPECT_EQ(describe(t), "the end of the expression");
    t.kind = TokenKind::kOperator;
    t.text = "<=";
    EXPECT_EQ(describe(t), "'<='");
}

}  // namespace
}  // namespace yuzu::scope
