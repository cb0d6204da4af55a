// ToolCallMetrics: yuzu_mcp_tool_calls_total{tool,outcome} and
// yuzu_mcp_tool_call_duration_seconds{tool,outcome} for every tools/call of
// a catalogued tool. `outcome` is the call's final audit result: success,
// failure, denied, error or pending (an approval ticket was minted or is
// still pending). Calls that name no catalogued tool are not counted by name
// (the label set stays the catalogue), only in
// yuzu_mcp_unknown_tool_calls_total.
//
// Thread-safety: safe to call from any thread once constructed.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace yuzu::metrics {
class Registry;
class Counter;
class Histogram;
template <typename T>
class Family;
}  // namespace yuzu::metrics

namespace yuzu::mcp {

class ToolCatalogue;

inline constexpr std::array<std::string_view, 5> kToolCallOutcomes = {"success", "failure",
                                                                      "denied", "error", "pending"};

class ToolCallMetrics {
  public:
    // Pre-registers the counter series of every tool × outcome, so a
    // dashboard sees zeros rather than gaps. Both must outlive this object.
    ToolCallMetrics(const ToolCatalogue& tools, metrics::Registry& registry);

    // `outcome` outside kToolCallOutcomes counts as "error".
    void observe(const std::string& tool, std::string_view outcome, double seconds) const;
    void observe_unknown_tool() const;

  private:
    metrics::Family<metrics::Counter>& calls_;
    metrics::Family<metrics::Histogram>& seconds_;
    metrics::Counter& unknown_;
    // tool → its counters by outcome index; built once, read-only after.
    std::map<std::string, std::array<metrics::Counter*, kToolCallOutcomes.size()>, std::less<>>
        counters_;
};

}  // namespace yuzu::mcp
