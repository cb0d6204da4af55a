#include "execution/definition_validation.hpp"

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "execution/identifiers.hpp"
#include "execution/json_text.hpp"
#include "yuzu/common/json_parse.hpp"
#include "yuzu/execution/execution_tracker.hpp"

namespace yuzu::execution {
namespace {

using nlohmann::json;

bool is_column_name(const std::string& name) {
    if (name.empty() || name.size() > 64) return false;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                        (c >= '0' && c <= '9') || c == '_' || c == '.';
        if (!ok) return false;
    }
    return true;
}

bool is_column_type(const std::string& type) {
    static const std::set<std::string> kTypes = {"string",  "integer", "number",
                                                 "boolean", "object",  "array"};
    return kTypes.contains(type);
}

// The top level of a parameter schema: parameters are always a JSON object,
// so the schema must describe one. Keywords below the top level are the
// validator's business (the MCP layer's JSON Schema implementation).
Result<std::string> check_parameter_schema(const std::string& text) {
    if (text.size() > kParameterSchemaMaxBytes) {
        return Status::InvalidArgument("parameter_schema is larger than 64 KiB");
    }
    json schema = parse_json_or_discarded(text);
    if (schema.is_discarded() || !schema.is_object()) {
        return Status::InvalidArgument("parameter_schema must be a JSON object (a JSON Schema)");
    }
    if (auto type = schema.find("type"); type != schema.end() && *type != "object") {
        return Status::InvalidArgument(
            "parameter_schema must describe an object (\"type\": \"object\")");
    }
    if (auto props = schema.find("properties"); props != schema.end()) {
        if (!props->is_object()) {
            return Status::InvalidArgument("parameter_schema.properties must be an object");
        }
        if (props->size() > kMaxParams) {
            return Status::InvalidArgument("parameter_schema declares more than " +
                                           std::to_string(kMaxParams) + " parameters");
        }
        for (const auto& [name, sub] : props->items()) {
            if (!sub.is_object() && !sub.is_boolean()) {
                return Status::InvalidArgument("parameter_schema.properties." + valid_utf8(name) +
                                               " must be a schema (object or boolean)");
            }
        }
    }
    if (auto required = schema.find("required"); required != schema.end()) {
        if (!required->is_array()) {
            return Status::InvalidArgument("parameter_schema.required must be an array");
        }
        for (const auto& r : *required) {
            if (!r.is_string()) {
                return Status::InvalidArgument("parameter_schema.required must list strings");
            }
        }
    }
    return dump_json(schema);
}

Result<std::string> check_result_columns(const std::string& text) {
    json columns = parse_json_or_discarded(text);
    if (columns.is_discarded() || !columns.is_array()) {
        return Status::InvalidArgument("result_columns must be a JSON array");
    }
    if (columns.size() > kResultColumnsMax) {
        return Status::InvalidArgument("result_columns has more than " +
                                       std::to_string(kResultColumnsMax) + " columns");
    }
    std::set<std::string> seen;
    for (const auto& c : columns) {
        if (!c.is_object() || !c.contains("name") || !c["name"].is_string() ||
            !c.contains("type") || !c["type"].is_string()) {
            return Status::InvalidArgument(
                "each result column must be an object {\"name\": string, \"type\": string}");
        }
        const std::string name = c["name"].get<std::string>();
        if (!is_column_name(name)) {
            return Status::InvalidArgument(
                "result column names must be 1 to 64 characters of [A-Za-z0-9_.]");
        }
        if (!is_column_type(c["type"].get<std::string>())) {
            return Status::InvalidArgument("result column '" + name +
                                           "' has an unknown type; use string, integer, number, "
                                           "boolean, object or array");
        }
        if (!seen.insert(name).second) {
            return Status::InvalidArgument("result column '" + name + "' appears twice");
        }
    }
    return dump_json(columns);
}

}  // namespace

Result<DefinitionSpec> validate_definition(const DefinitionSpec& spec) {
    if (!spec.id.empty() && !is_definition_id(spec.id)) {
        return Status::InvalidArgument(
            "id must be 1 to 128 characters of [a-z0-9._-], starting with a letter or digit");
    }
    if (!is_printable_text(spec.name, kDefinitionNameMaxLength)) {
        return Status::InvalidArgument(
            "name must be 1 to 128 characters without control characters");
    }
    if (!is_plugin_name(spec.plugin)) {
        return Status::InvalidArgument("plugin must be 1 to 64 characters of [a-z0-9_]");
    }
    if (!is_plugin_name(spec.action)) {
        return Status::InvalidArgument("action must be 1 to 64 characters of [a-z0-9_]");
    }
    if (spec.type != "question" && spec.type != "action") {
        return Status::InvalidArgument("type must be \"question\" or \"action\"");
    }
    if (spec.destructive && spec.type != "action") {
        return Status::InvalidArgument(
            "a question cannot be destructive; make it type \"action\" or not destructive");
    }
    if (!is_free_text(spec.description, kDefinitionDescriptionMaxLength)) {
        return Status::InvalidArgument(
            "description must be at most 2048 bytes without control characters");
    }
    if (spec.approval_mode != "auto" && spec.approval_mode != "role-gated" &&
        spec.approval_mode != "always") {
        return Status::InvalidArgument(
            "approval_mode must be \"auto\", \"role-gated\" or \"always\"");
    }
    if (valid_utf8(spec.name) != spec.name || valid_utf8(spec.description) != spec.description) {
        return Status::InvalidArgument("name and description must be valid UTF-8");
    }
    DefinitionSpec out = spec;
    auto schema = check_parameter_schema(spec.parameter_schema_json);
    if (!schema.ok()) return schema.status();
    out.parameter_schema_json = std::move(schema).value();
    auto columns = check_result_columns(spec.result_columns_json);
    if (!columns.ok()) return columns.status();
    out.result_columns_json = std::move(columns).value();
    return out;
}

}  // namespace yuzu::execution
