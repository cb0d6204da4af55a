// The compiled form of a JSON Schema and the value helpers its keywords need.
// Private to the mcp module; the public surface is yuzu/jsonschema/json_schema.hpp.
//
// Thread-safety: a CompiledSchema is built once by compile_schema() and never
// mutated afterwards, so any number of threads may read it at once. Pattern
// shares an immutable std::wregex, which std::regex_match only reads.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "yuzu/common/status.hpp"
#include "yuzu/jsonschema/json_schema.hpp"

namespace yuzu::jsonschema::schema_detail {

using NodeId = std::uint32_t;
inline constexpr NodeId kNoNode = UINT32_MAX;

// The `type` keyword as a bit set; 0 means the keyword is absent.
enum TypeBit : std::uint8_t {
    kTypeNull = 1 << 0,
    kTypeBoolean = 1 << 1,
    kTypeObject = 1 << 2,
    kTypeArray = 1 << 3,
    kTypeNumber = 1 << 4,
    kTypeString = 1 << 5,
    kTypeInteger = 1 << 6,
};

// An ECMAScript regex compiled once, matched with search semantics over the
// subject's Unicode code points in time linear in the subject's length.
class Pattern {
  public:
    // kTooLong: over kMaxPatternSubjectCodePoints; kError: the executor failed
    // (e.g. out of memory). Neither may be treated as a match.
    enum class Outcome { kMatch, kNoMatch, kTooLong, kError };

    // InvalidArgument when the source is not a valid ECMAScript regex or uses
    // a feature that cannot run in linear time (back-references).
    static Result<Pattern> compile(std::string_view source);

    Outcome search(std::string_view utf8_subject) const;
    const std::string& source() const { return source_; }

  private:
    Pattern(std::string source, std::shared_ptr<const std::wregex> regex)
        : source_(std::move(source)), regex_(std::move(regex)) {}

    std::string source_;
    std::shared_ptr<const std::wregex> regex_;
};

struct PatternProperty {
    Pattern pattern;
    NodeId schema;
};

// One schema object (or boolean schema) with its keywords decoded.
struct SchemaNode {
    std::string location;  // "#/properties/steps", for messages
    std::optional<bool> boolean_schema;

    NodeId ref = kNoNode;
    std::uint8_t types = 0;
    std::vector<nlohmann::json> enum_values;  // empty: no enum keyword
    std::optional<nlohmann::json> const_value;

    // Numbers stay JSON values so integer limits compare exactly.
    std::optional<nlohmann::json> minimum;
    std::optional<nlohmann::json> maximum;
    std::optional<nlohmann::json> exclusive_minimum;
    std::optional<nlohmann::json> exclusive_maximum;
    std::optional<nlohmann::json> multiple_of;

    std::optional<std::uint64_t> min_length;
    std::optional<std::uint64_t> max_length;
    std::optional<Pattern> pattern;

    std::vector<std::string> required;
    std::optional<std::uint64_t> min_properties;
    std::optional<std::uint64_t> max_properties;
    std::map<std::string, NodeId, std::less<>> properties;
    std::vector<PatternProperty> pattern_properties;
    NodeId additional_properties = kNoNode;

    std::vector<NodeId> prefix_items;
    NodeId items = kNoNode;
    std::optional<std::uint64_t> min_items;
    std::optional<std::uint64_t> max_items;
    bool unique_items = false;

    std::vector<NodeId> all_of;
    std::vector<NodeId> any_of;
    std::vector<NodeId> one_of;
    NodeId not_schema = kNoNode;
};

struct CompiledSchema {
    std::vector<SchemaNode> nodes;
    NodeId root = kNoNode;
};

// Builds the node graph for `schema`, resolving every $ref (json_schema_compile.cpp).
Result<CompiledSchema> compile_schema(const nlohmann::json& schema);

// Appends up to `max` violations of `instance` to `out`, the depth bound
// first (json_schema_validate.cpp). May throw only std::bad_alloc.
void evaluate(const CompiledSchema& schema, const nlohmann::json& instance, std::size_t max,
              std::vector<SchemaViolation>& out);

// --- Value helpers (json_schema_values.cpp) ---------------------------------

// Numeric comparison, exact across int64, uint64 and double; unordered for NaN.
std::partial_ordering compare_numbers(const nlohmann::json& a, const nlohmann::json& b);

// A total order consistent with JSON Schema equality: numbers compare by value
// (1 == 1.0), booleans never equal numbers, objects ignore member order.
int compare_values(const nlohmann::json& a, const nlohmann::json& b);
inline bool values_equal(const nlohmann::json& a, const nlohmann::json& b) {
    return compare_values(a, b) == 0;
}

// True for integers and for finite floats without a fractional part (1.0).
bool is_integral_number(const nlohmann::json& value);

// Exact decimal check that `value` is an integer multiple of `divisor` (> 0),
// reading floats as the shortest decimal that round-trips (0.0075 / 0.0001).
bool is_multiple_of(const nlohmann::json& value, const nlohmann::json& divisor);

// JSON Schema's name for the instance's type ("integer" for 1 and 1.0).
std::string_view instance_type_name(const nlohmann::json& value);

// Unicode code points in a UTF-8 string; each malformed byte counts as one.
std::size_t count_code_points(std::string_view utf8);

// UTF-8 to code points, malformed bytes becoming U+FFFD.
std::u32string decode_utf8(std::string_view utf8);

// A compact rendering for messages: dump() with invalid UTF-8 replaced,
// cut to about max_chars.
std::string render_value(const nlohmann::json& value, std::size_t max_chars = 80);

}  // namespace yuzu::jsonschema::schema_detail
