// Step 4 of a tools/call: the arguments checked against the tool's compiled
// inputSchema (JsonSchema::validate), and mcp::check_arguments() around it.
// Schemas come from ToolCatalogue::add, as in the server; query_audit_log's is
// registered by register_audit_tools itself.
#include <benchmark/benchmark.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "bench_support.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/common/readiness.hpp"
#include "yuzu/jsonschema/json_schema.hpp"
#include "yuzu/mcp/catalogue.hpp"
#include "yuzu/mcp/pipeline.hpp"
#include "yuzu/mcp/yuzu_catalogue.hpp"

namespace yuzu::bench {
namespace {

using nlohmann::json;

// Built once per process: validate_scope, plus the real audit tools over an
// Identity in a temp dir (register_audit_tools needs one).
struct SchemaFixture {
    TempDir dir;
    audit::MemoryAuditLog audit_log;
    Readiness readiness;
    std::unique_ptr<auth::Identity> identity;
    mcp::ToolCatalogue tools;
    Status status;  // why set-up failed; Ok when it did not

    SchemaFixture() { status = build(); }

    Status build() {
        if (!dir.ok()) return Status::Internal("cannot create a temp dir for auth.db");
        YUZU_RETURN_IF_ERROR(tools.add(validate_scope_spec()));
        auth::IdentityOptions options;
        options.data_dir = dir.str();
        options.bootstrap_password_value = "bench-bootstrap-password";
        options.user_options.password_log_n = 10;
        auto opened = auth::Identity::open(options, SystemClock::instance());
        if (!opened.ok()) return opened.status();
        identity = std::move(opened).value();
        const Clock& clock = SystemClock::instance();
        mcp::CatalogueDeps deps{audit_log, *identity, readiness, clock, "bench", 0};
        return mcp::register_audit_tools(tools, deps);
    }
};

SchemaFixture& fixture() {
    static SchemaFixture f;
    return f;
}

const mcp::RequestInfo kInfo{"req-7", "127.0.0.1", "bench-client"};

// The tool's compiled schema, or null after SkipWithError.
const mcp::ToolSpec* find_tool(benchmark::State& state, const std::string& name) {
    SchemaFixture& f = fixture();
    if (!f.status.ok()) {
        state.SkipWithError(f.status.to_string().c_str());
        return nullptr;
    }
    const mcp::ToolSpec* tool = f.tools.find(name);
    if (tool == nullptr || !tool->compiled_input_schema) {
        state.SkipWithError(("tool not catalogued: " + name).c_str());
        return nullptr;
    }
    return tool;
}

void run_validate(benchmark::State& state, const std::string& name, const json& args,
                  bool expect_valid) {
    const mcp::ToolSpec* tool = find_tool(state, name);
    if (tool == nullptr) return;
    const jsonschema::JsonSchema& schema = *tool->compiled_input_schema;
    if (schema.validate(args).has_value() == expect_valid) {
        state.SkipWithError(expect_valid ? "arguments unexpectedly invalid"
                                         : "arguments unexpectedly valid");
        return;
    }
    for (auto _ : state) {
        auto violation = schema.validate(args);
        benchmark::DoNotOptimize(violation);
    }
}

// The request of kToolsCallBody: one string property with length bounds.
void BM_SchemaValidate_ValidateScope(benchmark::State& state) {
    run_validate(state, "validate_scope", tools_call_arguments(), true);
}
BENCHMARK(BM_SchemaValidate_ValidateScope);

// A wider object: several optional properties, an enum and integer bounds.
void BM_SchemaValidate_QueryAuditLog(benchmark::State& state) {
    const json args = {{"principal", "bench-owner"},
                       {"action", "mcp.*"},
                       {"result", "denied"},
                       {"since", 1700000000},
                       {"limit", 50}};
    run_validate(state, "query_audit_log", args, true);
}
BENCHMARK(BM_SchemaValidate_QueryAuditLog);

// An unexpected property: the violation and its message are built.
void BM_SchemaValidate_Violation(benchmark::State& state) {
    json args = tools_call_arguments();
    args["dry_run"] = true;
    run_validate(state, "validate_scope", args, false);
}
BENCHMARK(BM_SchemaValidate_Violation);

// The pipeline step as run_tool_call calls it (nullopt: the call goes on).
void BM_CheckArguments_ValidateScope(benchmark::State& state) {
    const mcp::ToolSpec* tool = find_tool(state, "validate_scope");
    if (tool == nullptr) return;
    const json args = tools_call_arguments();
    if (mcp::check_arguments(*tool, args, kInfo).has_value()) {
        state.SkipWithError("check_arguments refused the validate_scope arguments");
        return;
    }
    for (auto _ : state) {
        auto denial = mcp::check_arguments(*tool, args, kInfo);
        benchmark::DoNotOptimize(denial);
    }
}
BENCHMARK(BM_CheckArguments_ValidateScope);

}  // namespace
}  // namespace yuzu::bench
