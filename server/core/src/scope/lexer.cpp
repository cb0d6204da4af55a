#include "scope/lexer.hpp"

#include <cstdio>

#include "yuzu/common/ascii.hpp"

namespace yuzu::scope {
namespace {

constexpr size_t kMaxTagKeyBytes = 64;
constexpr size_t kMaxQuotedInMessage = 32;

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_alpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_word_char(char c) {
    return is_alpha(c) || is_digit(c) || c == '_';
}
bool is_tag_key_char(char c) {
    return is_word_char(c) || c == '.' || c == '-';
}

Token make(TokenKind kind, size_t position, std::string text = {}) {
    Token t;
    t.kind = kind;
    t.position = position;
    t.text = std::move(text);
    return t;
}

// Printable characters as themselves, anything else as a hex byte, so a
// message never carries raw control bytes.
std::string describe_char(char c) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", u);
    return buf;
}

std::string shorten(std::string_view s) {
    if (s.size() <= kMaxQuotedInMessage) return std::string(s);
    return std::string(s.substr(0, kMaxQuotedInMessage)) + "...";
}

}  // namespace

std::string describe(const Token& token) {
    switch (token.kind) {
        case TokenKind::kWord:
            return "'" + shorten(token.text) + "'";
        case TokenKind::kTag:
            return "'tag:" + shorten(token.text) + "'";
        case TokenKind::kString:
            return "string \"" + shorten(token.text) + "\"";
        case TokenKind::kNumber:
            return "number " + shorten(token.text);
        case TokenKind::kLParen:
            return "'('";
        case TokenKind::kRParen:
            return "')'";
        case TokenKind::kComma:
            return "','";
        case TokenKind::kOperator:
            return "'" + token.text + "'";
        case TokenKind::kEnd:
            return "the end of the expression";
        case TokenKind::kError:
            return token.text;
    }
    return "?";
}

Token Lexer::next() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
    if (pos_ >= text_.size()) return make(TokenKind::kEnd, text_.size());
    const size_t start = pos_;
    const char c = text_[pos_];
    if (is_alpha(c) || c == '_') return lex_word(start);
    if (c == '"') return lex_string(start);
    if (is_digit(c) || (c == '-' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))) {
        return lex_number(start);
    }
    switch (c) {
        case '(':
            ++pos_;
            return make(TokenKind::kLParen, start);
        case ')':
            ++pos_;
            return make(TokenKind::kRParen, start);
        case ',':
            ++pos_;
            return make(TokenKind::kComma, start);
        case '=':
        case '!':
        case '<':
        case '>':
            return lex_operator(start);
        default:
            return make(TokenKind::kError, start, "unexpected character " + describe_char(c));
    }
}

Token Lexer::lex_word(size_t start) {
    while (pos_ < text_.size() && is_word_char(text_[pos_])) ++pos_;
    std::string_view word = text_.substr(start, pos_ - start);
    if (iequals_ascii(word, "tag") && pos_ < text_.size() && text_[pos_] == ':') {
        ++pos_;
        return lex_tag_key(start, pos_);
    }
    return make(TokenKind::kWord, start, std::string(word));
}

Token Lexer::lex_tag_key(size_t start, size_t key_start) {
    while (pos_ < text_.size() && is_tag_key_char(text_[pos_])) ++pos_;
    const size_t length = pos_ - key_start;
    if (length == 0) {
        return make(TokenKind::kError, key_start,
                    "expected a tag key after 'tag:' (letters, digits, '_', '.', '-')");
    }
    if (length > kMaxTagKeyBytes) {
        return make(TokenKind::kError, key_start,
                    "tag key longer than " + std::to_string(kMaxTagKeyBytes) + " characters");
    }
    return make(TokenKind::kTag, start, std::string(text_.substr(key_start, length)));
}

Token Lexer::lex_string(size_t start) {
    ++pos_;  // opening quote
    std::string value;
    while (pos_ < text_.size()) {
        const char c = text_[pos_];
        if (c == '"') {
            ++pos_;
            return make(TokenKind::kString, start, std::move(value));
        }
        if (c == '\\') {
            if (pos_ + 1 >= text_.size()) break;  // unterminated
            const char escaped = text_[pos_ + 1];
            if (escaped != '"' && escaped != '\\') {
                return make(TokenKind::kError, pos_,
                            "unknown escape '\\' followed by " + describe_char(escaped) +
                                " in string (only \\\" and \\\\ are allowed)");
            }
            value += escaped;
            pos_ += 2;
            continue;
        }
        value += c;
        ++pos_;
    }
    return make(TokenKind::kError, start, "unterminated string");
}

Token Lexer::lex_number(size_t start) {
    if (text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    if (pos_ + 1 < text_.size() && text_[pos_] == '.' && is_digit(text_[pos_ + 1])) {
        ++pos_;
        while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    // "1.2.3" or "12abc": reject the whole run rather than splitting it into
    // a number and a confusing second token.
    if (pos_ < text_.size() && (is_word_char(text_[pos_]) || text_[pos_] == '.')) {
        size_t end = pos_;
        while (end < text_.size() && (is_word_char(text_[end]) || text_[end] == '.')) ++end;
        std::string run(text_.substr(start, end - start));
        return make(TokenKind::kError, start,
                    "malformed number '" + shorten(run) + "' (quote text values: \"" +
                        shorten(run) + "\")");
    }
    return make(TokenKind::kNumber, start, std::string(text_.substr(start, pos_ - start)));
}

Token Lexer::lex_operator(size_t start) {
    const char c = text_[pos_];
    const bool followed_by_eq = pos_ + 1 < text_.size() && text_[pos_ + 1] == '=';
    if (c == '=') {
        // "==" (the original Yuzu's spelling) is "=" written twice; a longer
        // run is a typo, refused here rather than as a missing value.
        size_t run = 1;
        while (pos_ + run < text_.size() && text_[pos_ + run] == '=') ++run;
        if (run > 2) {
            return make(TokenKind::kError, start,
                        "'" + shorten(text_.substr(start, run)) +
                            "' is not an operator (equality is '=' or '==')");
        }
        pos_ += run;
        return make(TokenKind::kOperator, start, std::string(run, '='));
    }
    if (c == '!') {
        if (!followed_by_eq) {
            return make(TokenKind::kError, start, "unexpected character '!' (did you mean '!='?)");
        }
        pos_ += 2;
        return make(TokenKind::kOperator, start, "!=");
    }
    // '<' or '>'
    pos_ += followed_by_eq ? 2 : 1;
    std::string op(1, c);
    if (followed_by_eq) op += '=';
    return make(TokenKind::kOperator, start, std::move(op));
}

}  // namespace yuzu::scope
