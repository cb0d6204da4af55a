// Recursive-descent parser for the scope DSL (grammar in scope.hpp).
//
// Each parse_* function returns the node it parsed, or nullptr after
// recording the first error; the caller then unwinds without parsing more.
#include <array>
#include <cassert>
#include <set>
#include <string>
#include <utility>

#include "scope/lexer.hpp"
#include "scope/node.hpp"
#include "yuzu/scope/scope.hpp"

namespace yuzu::scope {
namespace {

constexpr std::array<std::string_view, 8> kAttributes = {
    "agent_id", "hostname", "os", "os_version", "arch", "version", "online", kGroupAttribute,
};

constexpr std::array<std::string_view, 8> kKeywords = {
    "and", "or", "not", "in", "like", "exists", "true", "false",
};

std::string to_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

std::string to_upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    return out;
}

template <size_t N>
bool contains(const std::array<std::string_view, N>& list, std::string_view s) {
    for (std::string_view item : list) {
        if (item == s) return true;
    }
    return false;
}

// ", found 'x'" or " but the expression ended", completing "expected ...".
std::string found(const Token& token) {
    if (token.kind == TokenKind::kEnd) return " but the expression ended";
    return ", found " + describe(token);
}

class Parser {
  public:
    explicit Parser(std::string_view text) : text_(text), lexer_(text) {}

    // The whole expression, or nullptr with error() set.
    std::unique_ptr<Node> parse_all();

    const ParseError& error() const { return error_; }
    std::set<std::string> take_attributes() { return std::move(attributes_); }

  private:
    bool advance();
    std::nullptr_t fail(size_t position, std::string message);
    bool is_keyword(std::string_view keyword) const;

    std::unique_ptr<Node> parse_or();
    std::unique_ptr<Node> parse_and();
    std::unique_ptr<Node> parse_unary();
    std::unique_ptr<Node> parse_predicate();
    bool parse_attribute(std::string* name);
    bool parse_value(std::string_view after, Value* out);
    bool parse_in_list(Predicate* predicate);

    std::string_view text_;
    Lexer lexer_;
    Token token_;  // the current (not yet consumed) token
    ParseError error_;
    int depth_ = 0;
    std::set<std::string> attributes_;
};

bool Parser::advance() {
    token_ = lexer_.next();
    if (token_.kind != TokenKind::kError) return true;
    fail(token_.position, token_.text);
    return false;
}

std::nullptr_t Parser::fail(size_t position, std::string message) {
    error_.position = position;
    error_.message = std::move(message);
    return nullptr;
}

bool Parser::is_keyword(std::string_view keyword) const {
    return token_.kind == TokenKind::kWord && to_lower(token_.text) == keyword;
}

// Appends `child` to an AND / OR node, splicing in the children of a child
// of the same kind: a OR (b OR c) is one three-way OR.
void adopt(Node* parent, std::unique_ptr<Node> child) {
    if (child->kind == parent->kind) {
        for (auto& grandchild : child->children) parent->children.push_back(std::move(grandchild));
        return;
    }
    parent->children.push_back(std::move(child));
}

std::unique_ptr<Node> Parser::parse_all() {
    if (text_.size() > kMaxExpressionBytes) {
        return fail(kMaxExpressionBytes, "expression longer than " +
                                             std::to_string(kMaxExpressionBytes) + " bytes (" +
                                             std::to_string(text_.size()) + " bytes)");
    }
    if (!advance()) return nullptr;
    if (token_.kind == TokenKind::kEnd) return fail(token_.position, "empty scope expression");
    auto root = parse_or();
    if (!root) return nullptr;
    if (token_.kind == TokenKind::kRParen) {
        return fail(token_.position, "unexpected ')' without a matching '('");
    }
    if (token_.kind != TokenKind::kEnd) {
        return fail(token_.position, "unexpected " + describe(token_) +
                                         " after a complete expression (expected AND, OR or the "
                                         "end of the expression)");
    }
    return root;
}

std::unique_ptr<Node> Parser::parse_or() {
    auto first = parse_and();
    if (!first || !is_keyword("or")) return first;
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::kOr;
    adopt(node.get(), std::move(first));
    while (is_keyword("or")) {
        if (!advance()) return nullptr;
        auto next = parse_and();
        if (!next) return nullptr;
        adopt(node.get(), std::move(next));
    }
    return node;
}

std::unique_ptr<Node> Parser::parse_and() {
    auto first = parse_unary();
    if (!first || !is_keyword("and")) return first;
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::kAnd;
    adopt(node.get(), std::move(first));
    while (is_keyword("and")) {
        if (!advance()) return nullptr;
        auto next = parse_unary();
        if (!next) return nullptr;
        adopt(node.get(), std::move(next));
    }
    return node;
}

std::unique_ptr<Node> Parser::parse_unary() {
    const bool is_not = is_keyword("not");
    if (!is_not && token_.kind != TokenKind::kLParen) return parse_predicate();

    // Checked before recursing, so "((((..." fails at the 33rd level instead
    // of exhausting the stack.
    if (depth_ >= kMaxDepth) {
        return fail(token_.position, "nesting deeper than " + std::to_string(kMaxDepth) +
                                         " levels of parentheses and NOT");
    }
    const size_t open_position = token_.position;
    ++depth_;
    if (!advance()) return nullptr;
    std::unique_ptr<Node> result;
    if (is_not) {
        auto operand = parse_unary();
        if (!operand) return nullptr;
        result = std::make_unique<Node>();
        result->kind = Node::Kind::kNot;
        result->children.push_back(std::move(operand));
    } else {
        result = parse_or();
        if (!result) return nullptr;
        if (token_.kind != TokenKind::kRParen) {
            return fail(token_.position, "expected ')' to close the '(' at position " +
                                             std::to_string(open_position) + found(token_));
        }
        if (!advance()) return nullptr;
    }
    --depth_;
    return result;
}

bool Parser::parse_attribute(std::string* name) {
    if (token_.kind == TokenKind::kTag) {
        *name = "tag:" + token_.text;
        return advance();
    }
    if (token_.kind == TokenKind::kWord) {
        std::string lower = to_lower(token_.text);
        if (contains(kAttributes, lower)) {
            *name = std::move(lower);
            return advance();
        }
        if (contains(kKeywords, lower)) {
            fail(token_.position,
                 "expected an attribute, '(' or NOT, found keyword " + to_upper(token_.text));
            return false;
        }
        std::string hint = lower == "tag" ? " (tags are written tag:<key>)" : "";
        fail(token_.position, "unknown attribute '" + token_.text + "'" + hint +
                                  "; known: agent_id, hostname, os, os_version, arch, version, "
                                  "online, group, tag:<key>");
        return false;
    }
    if (token_.kind == TokenKind::kRParen) {
        fail(token_.position, "unexpected ')' where an attribute, '(' or NOT was expected");
        return false;
    }
    fail(token_.position, "expected an attribute, '(' or NOT" + found(token_));
    return false;
}

std::unique_ptr<Node> Parser::parse_predicate() {
    auto node = std::make_unique<Node>();
    Predicate& p = node->predicate;
    if (!parse_attribute(&p.attribute)) return nullptr;

    const size_t op_position = token_.position;
    if (token_.kind == TokenKind::kOperator) {
        static constexpr std::pair<std::string_view, PredicateOp> kOps[] = {
            {"=", PredicateOp::kEq},  {"==", PredicateOp::kEq}, {"!=", PredicateOp::kNe},
            {"<", PredicateOp::kLt},  {"<=", PredicateOp::kLe}, {">", PredicateOp::kGt},
            {">=", PredicateOp::kGe},
        };
        const std::string op_text = token_.text;
        bool known = false;
        for (const auto& [text, op] : kOps) {
            if (text == op_text) {
                p.op = op;
                known = true;
            }
        }
        assert(known && "the lexer only produces the comparison operators above");
        (void)known;
        if (!advance()) return nullptr;
        p.values.emplace_back();
        if (!parse_value("'" + op_text + "'", &p.values.back())) return nullptr;
    } else {
        if (is_keyword("not")) {
            p.negated = true;
            if (!advance()) return nullptr;
        }
        if (is_keyword("in")) {
            p.op = PredicateOp::kIn;
            if (!advance() || !parse_in_list(&p)) return nullptr;
        } else if (is_keyword("like")) {
            p.op = PredicateOp::kLike;
            if (!advance()) return nullptr;
            if (token_.kind != TokenKind::kString) {
                return fail(token_.position,
                            "expected a quoted pattern after 'LIKE'" + found(token_));
            }
            p.values.push_back(Value{ValueKind::kString, token_.text});
            if (!advance()) return nullptr;
        } else if (is_keyword("exists")) {
            p.op = PredicateOp::kExists;
            if (!advance()) return nullptr;
        } else if (p.negated) {
            return fail(token_.position, "expected IN, LIKE or EXISTS after NOT" + found(token_));
        } else {
            return fail(token_.position,
                        "expected an operator (=, !=, <, <=, >, >=, IN, LIKE, EXISTS) after '" +
                            p.attribute + "'" + found(token_));
        }
    }

    // Group membership is a set the source can only be asked about member
    // by member, so only (in)equality and IN can be answered.
    if (p.attribute == kGroupAttribute && p.op != PredicateOp::kEq && p.op != PredicateOp::kNe &&
        p.op != PredicateOp::kIn) {
        return fail(op_position, "'group' supports only =, !=, IN and NOT IN");
    }
    attributes_.insert(p.attribute);
    return node;
}

bool Parser::parse_value(std::string_view after, Value* out) {
    if (token_.kind == TokenKind::kString) {
        out->kind = ValueKind::kString;
        out->text = token_.text;
    } else if (token_.kind == TokenKind::kNumber) {
        out->kind = ValueKind::kNumber;
        out->text = token_.text;
    } else if (is_keyword("true") || is_keyword("false")) {
        out->kind = ValueKind::kBool;
        out->text = to_lower(token_.text);
    } else {
        fail(token_.position, "expected a value after " + std::string(after) + found(token_));
        return false;
    }
    return advance();
}

bool Parser::parse_in_list(Predicate* predicate) {
    if (token_.kind != TokenKind::kLParen) {
        fail(token_.position, "expected '(' after 'IN'" + found(token_));
        return false;
    }
    if (!advance()) return false;
    std::string_view after = "'('";
    while (true) {
        if (predicate->values.size() == kMaxInListValues) {
            fail(token_.position,
                 "IN list longer than " + std::to_string(kMaxInListValues) + " values");
            return false;
        }
        predicate->values.emplace_back();
        if (!parse_value(after, &predicate->values.back())) return false;
        if (token_.kind == TokenKind::kRParen) return advance();
        if (token_.kind != TokenKind::kComma) {
            fail(token_.position, "expected ',' or ')' in the IN list" + found(token_));
            return false;
        }
        if (!advance()) return false;
        after = "','";
    }
}

}  // namespace

std::string ParseError::to_string() const {
    return "position " + std::to_string(position) + ": " + message;
}

Result<Expression> parse(std::string_view text, ParseError* error) {
    Parser parser(text);
    std::unique_ptr<Node> root = parser.parse_all();
    ParseError failure = parser.error();
    Expression expression;
    if (root) {
        expression.canonical_ = render_canonical(*root);
        // Normalising adds spaces ("os=1" -> "os = 1"); refusing what would
        // not re-parse keeps parse(canonical()) total.
        if (expression.canonical_.size() > kMaxExpressionBytes) {
            failure.position = 0;
            failure.message = "expression longer than " + std::to_string(kMaxExpressionBytes) +
                              " bytes once normalised (" +
                              std::to_string(expression.canonical_.size()) + " bytes)";
            root.reset();
        }
    }
    if (!root) {
        if (error) *error = failure;
        return Status::InvalidArgument(failure.to_string());
    }
    expression.root_ = std::move(root);
    expression.attributes_ = parser.take_attributes();
    return expression;
}

}  // namespace yuzu::scope
