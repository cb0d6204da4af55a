// Compliance rules are data, not code: a JSON object that names one
// inventory source, filters its elements and states what must hold.
//
//   {"source": "disks",
//    "select": [{"field": "mount", "op": "eq", "value": "/"}],
//    "assert": {"field": "used_pct", "op": "lt", "value": 90},
//    "mode":   "all"}
//
// An object source (reboot_pending, memory, ...) is one element; an array
// source (disks, listening_sockets, ...) is many. "select" keeps the elements
// on which every condition holds. Modes:
//   all  — at least one element is selected and every selected element
//          satisfies "assert" (required);
//   any  — some selected element satisfies "assert" (null: some element is
//          selected at all);
//   none — no element is selected ("assert" must be null).
// A condition compares one top-level field of an element with a JSON
// scalar: eq and ne for strings, numbers and booleans; lt, le, gt and ge for
// numbers only. Fields are checked against the known shape of each source
// (docs/agent-protocol.md), so a typo is refused when the policy is written,
// not discovered as "unknown" on every agent later.
//
// Thread-safety: pure functions over immutable tables; safe from any thread.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::compliance {

inline constexpr size_t kMaxSelectConditions = 16;
inline constexpr size_t kMaxRuleStringValueBytes = 256;

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };
enum class RuleMode { kAll, kAny, kNone };
enum class FieldType { kString, kNumber, kBoolean };

// A JSON scalar. Integers stay integers so a rule round-trips unchanged.
using RuleValue = std::variant<bool, int64_t, double, std::string>;

struct Condition {
    std::string field;
    CompareOp op = CompareOp::kEq;
    RuleValue value;
};

struct Rule {
    std::string source;
    std::vector<Condition> select;
    std::optional<Condition> assertion;  // the JSON key is "assert"
    RuleMode mode = RuleMode::kAll;
};

std::string_view op_name(CompareOp op);
std::string_view mode_name(RuleMode mode);

// What a rule may read: one inventory source and the fields of its elements.
struct FieldSpec {
    std::string_view name;
    FieldType type;
};
struct SourceSpec {
    std::string_view name;
    bool is_array = false;
    std::span<const FieldSpec> fields;
    // os_release: any [a-z0-9_] key, always a string (keys vary by distro).
    bool any_string_field = false;
};

// Every source a rule may name, in the order of docs/agent-protocol.md.
std::span<const SourceSpec> rule_sources();
const SourceSpec* find_source(std::string_view name);

// Strict: unknown keys, sources, fields and operators are refused, and so is
// a value whose type does not fit the field or the operator. The message
// names the offending path, e.g. "rule.select[0].value: ...".
Result<Rule> parse_rule(const nlohmann::json& rule);
// The same from JSON text (as stored).
Result<Rule> parse_rule_text(std::string_view text);
nlohmann::json to_json(const Rule& rule);

// "used_pct lt 90", "address eq \"0.0.0.0\"".
std::string describe(const Condition& condition);
// "port eq 22 and address eq \"0.0.0.0\"" ("" for no conditions).
std::string describe(const std::vector<Condition>& conditions);

}  // namespace yuzu::compliance
