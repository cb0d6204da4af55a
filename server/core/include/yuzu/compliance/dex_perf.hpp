// Device performance (DEX) from heartbeat samples: fleet now-stats and a
// worst-first device list, over the agents of a view.
//
// A sample counts when its agent is online, or when it is younger than the
// sample age bound (an agent that just went offline still tells us how it
// was). A metric nobody reported is null, never 0.
//
// Percentiles use the nearest-rank method: for p in (0, 100] over n sorted
// values, the value at rank ceil(p / 100 * n) (1-based). It always returns
// a value that was really observed. A device's fleet_pctile is the share of
// reporting devices whose value is at most its own, in percent.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/fleet/agent_registry.hpp"

namespace yuzu::compliance {

inline constexpr int kMaxPerfDeviceLimit = 500;
inline constexpr int64_t kDefaultPerfSampleMaxAgeMs = 5 * 60 * 1000;

struct MetricStats {
    double avg = 0;
    double p50 = 0;
    double p90 = 0;
    double max = 0;
    int64_t n = 0;
};

struct PerfFleetStats {
    std::optional<MetricStats> cpu_pct;
    std::optional<MetricStats> mem_used_pct;
    std::optional<MetricStats> disk_used_pct;
    std::optional<MetricStats> load1;
    int64_t reporting = 0;  // agents with a counted sample carrying any metric
    int64_t online = 0;     // online agents in the view
};

enum class PerfMetric { kCpu, kMem, kDisk, kLoad };
std::optional<PerfMetric> parse_perf_metric(std::string_view name);  // cpu|mem|disk|load
std::string_view perf_metric_name(PerfMetric metric);
std::string_view perf_metric_field(PerfMetric metric);  // "cpu_pct", ...

struct PerfDevice {
    std::string agent_id;
    std::string hostname;
    bool online = false;
    fleet::PerfSample sample;
    double value = 0;         // of the metric asked for
    double fleet_pctile = 0;  // 0..100, one decimal
};

struct SilentDevice {
    std::string agent_id;
    std::string hostname;
    int64_t last_seen_ms = 0;
};

// Nearest-rank percentile of ascending `sorted` (not empty), p in (0, 100].
double nearest_rank(const std::vector<double>& sorted, double p);
// avg, p50, p90, max and n of `values`; nullopt when there are none.
std::optional<MetricStats> metric_stats(std::vector<double> values);

class DexPerf {
  public:
    DexPerf(const fleet::AgentRegistry& registry, const Clock& clock,
            int64_t sample_max_age_ms = kDefaultPerfSampleMaxAgeMs);

    Result<PerfFleetStats> fleet_stats(const std::optional<std::set<std::string>>& view) const;
    // Devices reporting `metric`, worst (highest) first, at most `limit`
    // (InvalidArgument when < 1; clamped to kMaxPerfDeviceLimit).
    Result<std::vector<PerfDevice>> devices(PerfMetric metric, int limit,
                                            const std::optional<std::set<std::string>>& view) const;
    // Online agents without a counted sample, by agent_id.
    Result<std::vector<SilentDevice>> not_reporting(
        int limit, const std::optional<std::set<std::string>>& view) const;

    // The pure parts, for tests: which records count, and the stats of them.
    static bool counts(const fleet::AgentRecord& agent, int64_t now_ms, int64_t max_age_ms);
    static PerfFleetStats stats_of(const std::vector<fleet::AgentRecord>& agents, int64_t now_ms,
                                   int64_t max_age_ms);

  private:
    Result<std::vector<fleet::AgentRecord>> agents_in(
        const std::optional<std::set<std::string>>& view) const;

    const fleet::AgentRegistry& registry_;
    const Clock& clock_;
    const int64_t sample_max_age_ms_;
};

}  // namespace yuzu::compliance
