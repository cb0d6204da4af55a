// The normal form of a scope expression (see Expression::canonical()).
#include <cassert>
#include <string>

#include "scope/node.hpp"
#include "yuzu/scope/scope.hpp"

namespace yuzu::scope {
namespace {

void render(const Node& node, std::string* out);

void render_value(const Value& value, std::string* out) {
    if (value.kind != ValueKind::kString) {
        *out += value.text;
        return;
    }
    *out += '"';
    for (char c : value.text) {
        if (c == '"' || c == '\\') *out += '\\';
        *out += c;
    }
    *out += '"';
}

std::string_view op_text(PredicateOp op) {
    switch (op) {
        case PredicateOp::kEq:
            return "=";
        case PredicateOp::kNe:
            return "!=";
        case PredicateOp::kLt:
            return "<";
        case PredicateOp::kLe:
            return "<=";
        case PredicateOp::kGt:
            return ">";
        case PredicateOp::kGe:
            return ">=";
        case PredicateOp::kIn:
            return "IN";
        case PredicateOp::kLike:
            return "LIKE";
        case PredicateOp::kExists:
            return "EXISTS";
    }
    return "?";
}

void render_predicate(const Predicate& p, std::string* out) {
    *out += p.attribute;
    *out += ' ';
    if (p.negated) *out += "NOT ";
    *out += op_text(p.op);
    switch (p.op) {
        case PredicateOp::kExists:
            return;
        case PredicateOp::kIn:
            *out += " (";
            for (size_t i = 0; i < p.values.size(); ++i) {
                if (i > 0) *out += ", ";
                render_value(p.values[i], out);
            }
            *out += ')';
            return;
        default:
            *out += ' ';
            render_value(p.values.front(), out);
            return;
    }
}

// Parentheses only where precedence needs them: an OR under an AND, and an
// AND or OR under a NOT.
void render_operand(const Node& child, Node::Kind parent, std::string* out) {
    const bool needs_parens = (parent == Node::Kind::kAnd && child.kind == Node::Kind::kOr) ||
                              (parent == Node::Kind::kNot &&
                               (child.kind == Node::Kind::kOr || child.kind == Node::Kind::kAnd));
    if (needs_parens) *out += '(';
    render(child, out);
    if (needs_parens) *out += ')';
}

void render(const Node& node, std::string* out) {
    switch (node.kind) {
        case Node::Kind::kOr:
        case Node::Kind::kAnd: {
            const char* separator = node.kind == Node::Kind::kOr ? " OR " : " AND ";
            assert(node.children.size() >= 2);
            for (size_t i = 0; i < node.children.size(); ++i) {
                if (i > 0) *out += separator;
                render_operand(*node.children[i], node.kind, out);
            }
            return;
        }
        case Node::Kind::kNot:
            *out += "NOT ";
            render_operand(*node.children.front(), node.kind, out);
            return;
        case Node::Kind::kPredicate:
            render_predicate(node.predicate, out);
            return;
    }
}

}  // namespace

std::string render_canonical(const Node& node) {
    std::string out;
    render(node, &out);
    return out;
}

std::string Expression::canonical() const {
    return canonical_;
}

}  // namespace yuzu::scope
