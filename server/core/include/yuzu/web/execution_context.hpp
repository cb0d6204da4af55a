// What the execution REST routes need beyond WebContext: the execution
// services, and the parameter checks of the MCP module's JSON Schema
// validator, handed in by the app because the web module does not link the
// MCP module. Both surfaces so check instruction parameters identically.
//
// Thread-safety: built once by the app; the services and checks are safe to
// call from any thread.
#pragma once

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::execution {
class Executions;
}

namespace yuzu::web {

struct ExecutionContext {
    execution::Executions& executions;
    // mcp::check_parameters: params against a definition's parameter_schema.
    std::function<Status(const std::string& schema_json, const nlohmann::json& params,
                         std::string_view what)>
        check_parameters;
    // mcp::check_parameter_schema: a schema the validator can enforce.
    std::function<Status(const std::string& schema_json)> check_parameter_schema;
};

}  // namespace yuzu::web
