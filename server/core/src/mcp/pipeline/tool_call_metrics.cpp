#include "yuzu/mcp/tool_call_metrics.hpp"

#include "yuzu/mcp/catalogue.hpp"
#include "yuzu/metrics/builder.hpp"

namespace yuzu::mcp {
namespace {

constexpr size_t kErrorOutcome = 3;
static_assert(kToolCallOutcomes[kErrorOutcome] == "error");

size_t outcome_index(std::string_view outcome) {
    for (size_t i = 0; i < kToolCallOutcomes.size(); ++i) {
        if (kToolCallOutcomes[i] == outcome) return i;
    }
    return kErrorOutcome;
}

// From a schema-rejected call (well under a millisecond) to a fleet-wide
// dispatch that waits on SQLite commits.
metrics::BucketBoundaries tool_call_buckets() {
    return {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};
}

}  // namespace

ToolCallMetrics::ToolCallMetrics(const ToolCatalogue& tools, metrics::Registry& registry)
    : calls_(metrics::BuildCounter()
                 .Name("yuzu_mcp_tool_calls_total")
                 .Help("MCP tools/call requests by tool and outcome (success, failure, denied, "
                       "error, pending).")
                 .Register(registry)),
      seconds_(metrics::BuildHistogram()
                   .Name("yuzu_mcp_tool_call_duration_seconds")
                   .Help("MCP tools/call latency in seconds through the whole pipeline, by tool "
                         "and outcome.")
                   .Register(registry)),
      unknown_(metrics::BuildCounter()
                   .Name("yuzu_mcp_unknown_tool_calls_total")
                   .Help("MCP tools/call requests that named no tool this server offers.")
                   .Register(registry)
                   .Add({})) {
    for (const ToolSpec& spec : tools.tools()) {
        auto& row = counters_[spec.name];
        for (size_t i = 0; i < kToolCallOutcomes.size(); ++i) {
            row[i] =
                &calls_.Add({{"tool", spec.name}, {"outcome", std::string(kToolCallOutcomes[i])}});
        }
    }
}

void ToolCallMetrics::observe(const std::string& tool, std::string_view outcome,
                              double seconds) const {
    const auto it = counters_.find(tool);
    if (it == counters_.end()) {
        observe_unknown_tool();
        return;
    }
    const size_t i = outcome_index(outcome);
    it->second[i]->Increment();
    seconds_
        .Add({{"tool", tool}, {"outcome", std::string(kToolCallOutcomes[i])}}, tool_call_buckets())
        .Observe(seconds);
}

void ToolCallMetrics::observe_unknown_tool() const {
    unknown_.Increment();
}

}  // namespace yuzu::mcp
