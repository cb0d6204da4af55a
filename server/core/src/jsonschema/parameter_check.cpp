#include "yuzu/jsonschema/parameter_check.hpp"

#include <nlohmann/json.hpp>

#include "yuzu/common/json_parse.hpp"
#include "yuzu/jsonschema/json_schema.hpp"

namespace yuzu::jsonschema {
namespace {

Result<JsonSchema> compile_text(const std::string& schema_json) {
    nlohmann::json schema = parse_json_or_discarded(schema_json);
    if (schema.is_discarded()) {
        return Status::InvalidArgument("parameter_schema is not valid JSON");
    }
    return JsonSchema::compile(schema);
}

}  // namespace

Status check_parameters(const std::string& schema_json, const nlohmann::json& params,
                        std::string_view what) {
    auto schema = compile_text(schema_json);
    if (!schema.ok()) {
        return Status::FailedPrecondition("the definition's parameter_schema cannot be enforced (" +
                                          schema.status().message() +
                                          "); fix the definition before running it");
    }
    auto violation = schema->validate(params);
    if (!violation) return Status::Ok();
    return Status::InvalidArgument(std::string(what) + " do not match the definition's " +
                                   "parameter_schema: " + violation->message);
}

Status check_parameter_schema(const std::string& schema_json) {
    auto schema = compile_text(schema_json);
    if (schema.ok()) return Status::Ok();
    return Status::InvalidArgument("parameter_schema cannot be enforced: " +
                                   schema.status().message());
}

}  // namespace yuzu::jsonschema
