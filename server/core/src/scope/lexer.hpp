// The scope DSL tokenizer: turns expression text into tokens on demand, so a
// lexical error is reported only when the parser reaches it (the earliest
// error in the text wins).
//
// Thread-safety: a Lexer is used by one parse() call at a time.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace yuzu::scope {

enum class TokenKind {
    kWord,    // attribute name or keyword; text as written
    kTag,     // "tag:<key>"; text is the key as written
    kString,  // text is the decoded contents
    kNumber,  // text as written: -?[0-9]+(\.[0-9]+)?
    kLParen,
    kRParen,
    kComma,
    kOperator,  // = == != < <= > >=; text is the operator as written
    kEnd,
    kError,  // text is the message
};

struct Token {
    TokenKind kind = TokenKind::kEnd;
    size_t position = 0;  // byte offset of the token's first character
    std::string text;
};

// A short, user-facing description of a token for error messages:
// "'os'", "')'", "string \"abc\"", "the end of the expression".
std::string describe(const Token& token);

class Lexer {
  public:
    explicit Lexer(std::string_view text) : text_(text) {}

    // The next token; kEnd forever once the text is consumed. After a kError
    // token the lexer's state is unspecified: the caller stops.
    Token next();

  private:
    Token lex_word(size_t start);
    Token lex_tag_key(size_t start, size_t key_start);
    Token lex_string(size_t start);
    Token lex_number(size_t start);
    Token lex_operator(size_t start);

    std::string_view text_;
    size_t pos_ = 0;
};

}  // namespace yuzu::scope
