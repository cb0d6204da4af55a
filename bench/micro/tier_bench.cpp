// Step 3 of a tools/call: the MCP tier decision. auth::tier_allows() and
// requires_approval() are the policy table; mcp::check_tier() is the pipeline
// step around it, whose refusal also builds the -32004 error and audit text.
#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include "bench_support.hpp"
#include "yuzu/auth/principal.hpp"
#include "yuzu/auth/tier_policy.hpp"
#include "yuzu/mcp/pipeline.hpp"

namespace yuzu::bench {
namespace {

using auth::Operation;
using auth::Securable;

constexpr std::array<std::string_view, 4> kTiers = {"", "readonly", "operator", "supervised"};

auth::Principal mcp_principal(std::string tier) {
    auth::Principal who;
    who.username = "bench-owner";
    who.kind = auth::PrincipalKind::kMcpToken;
    who.mcp_tier = std::move(tier);
    who.token_id = "0123456789abcdef01234567";
    return who;
}

const mcp::RequestInfo kInfo{"req-7", "127.0.0.1", "bench-client"};

// The table itself, per tier (the last row compares against every name).
void BM_TierAllows(benchmark::State& state) {
    const std::string tier(kTiers[static_cast<size_t>(state.range(0))]);
    for (auto _ : state) {
        bool allowed = auth::tier_allows(tier, Securable::kInfrastructure, Operation::kRead);
        benchmark::DoNotOptimize(allowed);
    }
    state.SetLabel(tier.empty() ? "(no tier)" : tier);
}
BENCHMARK(BM_TierAllows)->DenseRange(0, static_cast<int>(kTiers.size()) - 1);

// The approval question the gate asks next, on its longest path.
void BM_RequiresApproval(benchmark::State& state) {
    const std::string tier = "supervised";
    for (auto _ : state) {
        bool gated = auth::requires_approval(tier, Securable::kApiToken, Operation::kWrite);
        benchmark::DoNotOptimize(gated);
    }
}
BENCHMARK(BM_RequiresApproval);

// The pipeline step on validate_scope for an operator token: allowed.
void BM_CheckTier_Allowed(benchmark::State& state) {
    const mcp::ToolSpec tool = validate_scope_spec();
    const auth::Principal who = mcp_principal("operator");
    auto first = mcp::check_tier(tool, who, kInfo);
    if (first) {
        state.SkipWithError("check_tier refused validate_scope at the operator tier");
        return;
    }
    for (auto _ : state) {
        auto denial = mcp::check_tier(tool, who, kInfo);
        benchmark::DoNotOptimize(denial);
    }
}
BENCHMARK(BM_CheckTier_Allowed);

// A readonly token calling a dispatching tool: refused, with the denial's
// message, remediation and audit detail built each time.
void BM_CheckTier_Denied(benchmark::State& state) {
    mcp::ToolSpec tool = validate_scope_spec();
    tool.name = "execute_instruction";
    tool.tier_key = auth::Permission{Securable::kExecution, Operation::kExecute};
    const auth::Principal who = mcp_principal("readonly");
    auto first = mcp::check_tier(tool, who, kInfo);
    if (!first) {
        state.SkipWithError("check_tier allowed Execution:Execute at the readonly tier");
        return;
    }
    for (auto _ : state) {
        auto denial = mcp::check_tier(tool, who, kInfo);
        benchmark::DoNotOptimize(denial);
    }
}
BENCHMARK(BM_CheckTier_Denied);

}  // namespace
}  // namespace yuzu::bench
