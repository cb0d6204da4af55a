// JsonSchema: the public face of json_schema_{compile,validate}.cpp.
#include "yuzu/jsonschema/json_schema.hpp"

#include <algorithm>

#include "jsonschema/json_schema_node.hpp"

namespace yuzu::jsonschema {

JsonSchema::JsonSchema(std::shared_ptr<const schema_detail::CompiledSchema> compiled)
    : compiled_(std::move(compiled)) {}

Result<JsonSchema> JsonSchema::compile(const nlohmann::json& schema) {
    try {
        auto compiled = schema_detail::compile_schema(schema);
        if (!compiled.ok()) return compiled.status();
        return JsonSchema(
            std::make_shared<const schema_detail::CompiledSchema>(std::move(compiled).value()));
    } catch (const std::exception& e) {
        // Only allocation failure can get here; it must not cross the module boundary.
        return Status::Internal(std::string("compiling a JSON schema failed: ") + e.what());
    }
}

std::optional<SchemaViolation> JsonSchema::validate(const nlohmann::json& instance) const {
    auto violations = validate_all(instance, 1);
    if (violations.empty()) return std::nullopt;
    return std::move(violations.front());
}

std::vector<SchemaViolation> JsonSchema::validate_all(const nlohmann::json& instance,
                                                      std::size_t max) const {
    assert(max > 0 && "ask for at least one violation");
    std::vector<SchemaViolation> out;
    try {
        schema_detail::evaluate(*compiled_, instance, std::max<std::size_t>(max, 1), out);
    } catch (const std::exception& e) {
        // Fail closed: an instance that could not be checked is not valid.
        out.assign(1, SchemaViolation{"", "internal",
                                      std::string("(root): could not be validated: ") + e.what()});
    }
    return out;
}

}  // namespace yuzu::jsonschema
