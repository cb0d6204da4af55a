// The parsed form of a scope expression: a tree of AND / OR / NOT over
// predicates. AND and OR nodes are flattened at parse time (an OR never has
// an OR child), which keeps canonical() a fixed point.
//
// Thread-safety: immutable once built; shared read-only by Expressions.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace yuzu::scope {

enum class ValueKind { kString, kNumber, kBool };

struct Value {
    ValueKind kind = ValueKind::kString;
    // kString: decoded contents; kNumber: digits as written; kBool: "true" or
    // "false".
    std::string text;
};

enum class PredicateOp { kEq, kNe, kLt, kLe, kGt, kGe, kIn, kLike, kExists };

struct Predicate {
    // Lower-case name ("os"), or "tag:" followed by the key as written.
    std::string attribute;
    PredicateOp op = PredicateOp::kEq;
    // "NOT IN", "NOT LIKE", "NOT EXISTS"; never set for comparisons.
    bool negated = false;
    // One value for comparisons and LIKE, 1..kMaxInListValues for IN, none
    // for EXISTS.
    std::vector<Value> values;
};

class Node {
  public:
    enum class Kind { kOr, kAnd, kNot, kPredicate };

    Kind kind = Kind::kPredicate;
    // kOr / kAnd: two or more; kNot: exactly one; kPredicate: none.
    std::vector<std::unique_ptr<const Node>> children;
    Predicate predicate;  // kPredicate only
};

// The attribute name `group` is answered by AttributeSource::has_group.
inline constexpr const char* kGroupAttribute = "group";

// Re-prints a tree in the normal form Expression::canonical() documents.
std::string render_canonical(const Node& node);

}  // namespace yuzu::scope
