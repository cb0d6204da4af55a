// Expression::matches: evaluates the parsed tree against one agent.
#include <cassert>

#include "scope/compare.hpp"
#include "scope/node.hpp"
#include "yuzu/scope/scope.hpp"

namespace yuzu::scope {
namespace {

// A number literal against a numeric attribute compares by value; anything
// else compares as ASCII case-insensitive text.
int compare_to(std::string_view actual, const Value& literal) {
    if (literal.kind == ValueKind::kNumber && is_decimal(actual)) {
        return compare_decimal(actual, literal.text);
    }
    return compare_ignore_case(actual, literal.text);
}

bool equals_any(std::string_view actual, const std::vector<Value>& values) {
    for (const Value& v : values) {
        if (compare_to(actual, v) == 0) return true;
    }
    return false;
}

bool in_any_group(const AttributeSource& agent, const std::vector<Value>& values) {
    for (const Value& v : values) {
        if (agent.has_group(v.text)) return true;
    }
    return false;
}

bool evaluate_group(const Predicate& p, const AttributeSource& agent) {
    switch (p.op) {
        case PredicateOp::kEq:
            return agent.has_group(p.values.front().text);
        case PredicateOp::kNe:
            return !agent.has_group(p.values.front().text);
        case PredicateOp::kIn:
            return in_any_group(agent, p.values) != p.negated;
        default:
            assert(false && "the parser rejects other operators on 'group'");
            return false;
    }
}

bool evaluate_predicate(const Predicate& p, const AttributeSource& agent) {
    if (p.attribute == kGroupAttribute) return evaluate_group(p, agent);

    const std::optional<std::string> actual = agent.attribute(p.attribute);
    // A missing attribute fails every test except "NOT EXISTS".
    if (!actual) return p.op == PredicateOp::kExists && p.negated;

    switch (p.op) {
        case PredicateOp::kEq:
            return compare_to(*actual, p.values.front()) == 0;
        case PredicateOp::kNe:
            return compare_to(*actual, p.values.front()) != 0;
        case PredicateOp::kLt:
            return compare_to(*actual, p.values.front()) < 0;
        case PredicateOp::kLe:
            return compare_to(*actual, p.values.front()) <= 0;
        case PredicateOp::kGt:
            return compare_to(*actual, p.values.front()) > 0;
        case PredicateOp::kGe:
            return compare_to(*actual, p.values.front()) >= 0;
        case PredicateOp::kIn:
            return equals_any(*actual, p.values) != p.negated;
        case PredicateOp::kLike:
            return like_match(*actual, p.values.front().text) != p.negated;
        case PredicateOp::kExists:
            return !p.negated;
    }
    return false;
}

bool evaluate(const Node& node, const AttributeSource& agent) {
    switch (node.kind) {
        case Node::Kind::kOr:
            for (const auto& child : node.children) {
                if (evaluate(*child, agent)) return true;
            }
            return false;
        case Node::Kind::kAnd:
            for (const auto& child : node.children) {
                if (!evaluate(*child, agent)) return false;
            }
            return true;
        case Node::Kind::kNot:
            return !evaluate(*node.children.front(), agent);
        case Node::Kind::kPredicate:
            return evaluate_predicate(node.predicate, agent);
    }
    return false;
}

}  // namespace

bool Expression::matches(const AttributeSource& agent) const {
    // A default-constructed Expression selects nothing.
    return root_ != nullptr && evaluate(*root_, agent);
}

}  // namespace yuzu::scope
