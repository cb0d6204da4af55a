// JSON Schema (2020-12) validation for MCP tool arguments.
//
// The MCP server checks every tools/call's `arguments` against the tool's
// `inputSchema` before anything else happens; a violation becomes JSON-RPC
// -32602 with a field-specific remediation built from SchemaViolation.
//
// Only the keywords our tools use are supported, and compile() rejects any
// other assertion or applicator keyword so a tool can never advertise a
// constraint that is silently left unchecked. Supported (2020-12 semantics):
//   type enum const
//   required properties additionalProperties patternProperties
//   minProperties maxProperties
//   minimum maximum exclusiveMinimum exclusiveMaximum multipleOf
//   minLength maxLength pattern
//   items prefixItems minItems maxItems uniqueItems
//   $defs $ref allOf anyOf oneOf not, and the boolean schemas true/false.
// Accepted as annotations only (never asserted): title description default
// examples $schema $id (root only) $comment readOnly writeOnly deprecated format.
//
// $ref resolves within the same document only: "#", "#/$defs/name", any JSON
// pointer to a subschema ("~0"/"~1" and %-escapes decoded), or the root $id
// followed by such a fragment. Remote refs and $anchor refs are compile errors,
// as are $ref/allOf/anyOf/oneOf/not cycles that never consume input.
//
// Patterns use std::regex's ECMAScript grammar over Unicode code points, with
// search (not full-match) semantics, executed in linear time; strings longer
// than kMaxPatternSubjectCodePoints cannot be checked against a pattern and
// are reported as violations rather than waved through.
//
// Thread-safety: a JsonSchema is immutable after compile(); validate() and
// validate_all() may be called on the same object from any number of threads
// at once. Copies share the compiled form.
#pragma once

#include <cstddef>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::jsonschema {

// Instances nested deeper than this many levels are rejected outright.
inline constexpr std::size_t kMaxInstanceDepth = 64;
// Subschemas nested deeper than this in a schema document fail compile().
inline constexpr std::size_t kMaxSchemaDepth = 64;
// Bound on nested schema applications while validating (instance levels times
// $ref/allOf/anyOf/oneOf/not hops), so no schema can exhaust the stack.
inline constexpr std::size_t kMaxEvaluationDepth = 512;
// Longest string (or property name) checked against a `pattern` or
// `patternProperties` regex; longer ones are violations.
inline constexpr std::size_t kMaxPatternSubjectCodePoints = 16384;

struct SchemaViolation {
    // JSON Pointer into the instance, "" for the root, e.g. "/steps/2/plugin".
    // For `required` and `additionalProperties` it names the missing or the
    // unexpected property itself, so the remediation can point at the field.
    std::string instance_path;
    // The schema keyword that failed ("required", "type", ...); "false" for a
    // boolean false schema, "depth" for the nesting bounds above.
    std::string keyword;
    // For a person, prefixed with a readable path, e.g.
    // "steps[2].plugin: must match pattern ^[a-z0-9_]{1,64}$".
    std::string message;

    bool operator==(const SchemaViolation&) const = default;
};

namespace schema_detail {
struct CompiledSchema;
}  // namespace schema_detail

class JsonSchema {
  public:
    // InvalidArgument naming the offending keyword and its schema location
    // (e.g. "#/properties/x") for unsupported keywords, malformed keyword
    // values, invalid regexes, unresolvable or remote $refs and $ref cycles.
    static Result<JsonSchema> compile(const nlohmann::json& schema);

    // The first violation in a deterministic order, or nullopt when valid.
    std::optional<SchemaViolation> validate(const nlohmann::json& instance) const;

    // Up to `max` (> 0) violations in the same order; empty when valid.
    std::vector<SchemaViolation> validate_all(const nlohmann::json& instance,
                                              std::size_t max = 16) const;

  private:
    explicit JsonSchema(std::shared_ptr<const schema_detail::CompiledSchema> compiled);

    std::shared_ptr<const schema_detail::CompiledSchema> compiled_;
};

}  // namespace yuzu::jsonschema
