// What the execution REST routes need beyond WebContext: the execution
// services. Parameters are checked by the services themselves
// (ExecutionTracker::check_dispatchable, the jsonschema module), the same
// check the MCP tools run.
//
// Thread-safety: built once by the app; the services are safe to call from
// any thread.
#pragma once

namespace yuzu::execution {
class Executions;
}

namespace yuzu::web {

struct ExecutionContext {
    execution::Executions& executions;
};

}  // namespace yuzu::web
