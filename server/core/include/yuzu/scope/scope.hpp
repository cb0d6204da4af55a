// The scope DSL: a boolean expression over agent attributes that selects a
// set of agents, e.g.
//
//   os = "linux" AND tag:env = "prod" OR hostname LIKE "web-%"
//   NOT (arch IN ("aarch64", "armv7l")) AND tag:owner EXISTS
//
// Grammar (keywords and attribute names are case-insensitive; AND binds
// tighter than OR; NOT binds tightest):
//
//   expr       := or_expr
//   or_expr    := and_expr ("OR" and_expr)*
//   and_expr   := unary ("AND" unary)*
//   unary      := "NOT" unary | "(" expr ")" | predicate
//   predicate  := attribute op value
//               | attribute ["NOT"] "IN" "(" value ("," value)* ")"
//               | attribute ["NOT"] "LIKE" string
//               | attribute ["NOT"] "EXISTS"
//   op         := "=" | "==" | "!=" | "<" | "<=" | ">" | ">="
//                 ("==" is the same operator as "=", printed as "=")
//   attribute  := agent_id | hostname | os | os_version | arch | version
//               | online | group | "tag:" key          (key: [A-Za-z0-9_.-]{1,64})
//   value      := string ("..." with \" and \\ escapes) | number | true | false
//
// Equality and LIKE compare ASCII case-insensitively (LIKE: % any run, _ one
// character). Ordering compares numerically when both sides are numbers,
// otherwise lexicographically. A missing attribute (an absent tag) makes
// every predicate on it false except NOT EXISTS.
//
// Limits: kMaxExpressionBytes of text, kMaxDepth nesting, kMaxInListValues.
//
// Thread-safety: an Expression is immutable after parse() and may be shared
// and evaluated from any number of threads.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::scope {

inline constexpr size_t kMaxExpressionBytes = 4096;
inline constexpr int kMaxDepth = 32;
inline constexpr size_t kMaxInListValues = 256;

// Where and why parsing failed. `position` is a 0-based byte offset into the
// text (the offending token's start; the text length at end of input).
struct ParseError {
    size_t position = 0;
    std::string message;
    // "position 12: expected a value after '='"
    std::string to_string() const;
};

// What an expression is evaluated against: one agent's attributes. Returns
// nullopt for an attribute the agent does not have (an absent tag). The
// name is lower-case; tags are asked for as "tag:<key>" with the key as the
// expression wrote it. `group` is multi-valued: has_group() answers it.
class AttributeSource {
  public:
    virtual ~AttributeSource() = default;
    virtual std::optional<std::string> attribute(std::string_view name) const = 0;
    // True when the agent is in management group `group_id` (directly or by
    // inheritance); `group = "<id>"` and `group IN (...)` use this.
    virtual bool has_group(std::string_view group_id) const = 0;
};

class Node;

class Expression {
  public:
    bool matches(const AttributeSource& agent) const;
    // The expression re-printed in a normal form: upper-case keywords, one
    // space between tokens, strings double-quoted, minimal parentheses.
    // parse(canonical()) yields an equivalent expression.
    std::string canonical() const;
    // Attribute names the expression reads ("os", "tag:env", ...).
    const std::set<std::string>& attributes() const { return attributes_; }

  private:
    friend Result<Expression> parse(std::string_view, ParseError*);
    std::shared_ptr<const Node> root_;
    std::set<std::string> attributes_;
    std::string canonical_;  // rendered once by parse()
};

// Parses `text`. On failure returns InvalidArgument whose message is
// ParseError::to_string(), and fills *error when given. An empty or
// all-blank text is an error ("empty scope expression"), and so is text
// whose canonical() would exceed kMaxExpressionBytes (normalising adds
// spaces), so that parse(canonical()) always succeeds.
Result<Expression> parse(std::string_view text, ParseError* error = nullptr);

}  // namespace yuzu::scope
