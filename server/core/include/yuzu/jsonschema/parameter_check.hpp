// Instruction parameters checked against their definition's
// parameter_schema with the MCP JSON Schema validator (json_schema.hpp),
// before anything is dispatched. execute_instruction and execute_bundle call
// it directly; the app hands it to the REST routes, which do not link the
// MCP module.
//
// Thread-safety: stateless; safe from any thread.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::jsonschema {

// Ok when `params` satisfies the schema. InvalidArgument naming `what`
// (e.g. "params", "steps[2].params") and the first violation;
// FailedPrecondition when the stored schema uses something the validator
// cannot enforce (the dispatch is refused rather than left unchecked).
Status check_parameters(const std::string& schema_json, const nlohmann::json& params,
                        std::string_view what = "params");

// Ok when `schema_json` is a JSON Schema the validator can enforce;
// InvalidArgument naming the problem otherwise (for definition create and
// update, so a definition that could never run is refused up front).
Status check_parameter_schema(const std::string& schema_json);

}  // namespace yuzu::jsonschema
