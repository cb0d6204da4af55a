#include "yuzu/compliance/dex_perf.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace yuzu::compliance {
namespace {

std::optional<double> metric_of(const fleet::PerfSample& s, PerfMetric m) {
    switch (m) {
        case PerfMetric::kCpu:
            return s.cpu_pct;
        case PerfMetric::kMem:
            return s.mem_used_pct;
        case PerfMetric::kDisk:
            return s.disk_used_pct;
        case PerfMetric::kLoad:
            return s.load1;
    }
    return std::nullopt;
}

bool has_any_metric(const fleet::PerfSample& s) {
    return s.cpu_pct || s.mem_used_pct || s.disk_used_pct || s.load1;
}

bool in_view(const std::optional<std::set<std::string>>& view, const std::string& id) {
    return !view || view->count(id) > 0;
}

double round1(double v) {
    return std::round(v * 10.0) / 10.0;
}

}  // namespace

std::optional<PerfMetric> parse_perf_metric(std::string_view name) {
    if (name == "cpu") return PerfMetric::kCpu;
    if (name == "mem") return PerfMetric::kMem;
    if (name == "disk") return PerfMetric::kDisk;
    if (name == "load") return PerfMetric::kLoad;
    return std::nullopt;
}

std::string_view perf_metric_name(PerfMetric metric) {
    switch (metric) {
        case PerfMetric::kCpu:
            return "cpu";
        case PerfMetric::kMem:
            return "mem";
        case PerfMetric::kDisk:
            return "disk";
        case PerfMetric::kLoad:
            return "load";
    }
    return "cpu";
}

std::string_view perf_metric_field(PerfMetric metric) {
    switch (metric) {
        case PerfMetric::kCpu:
            return "cpu_pct";
        case PerfMetric::kMem:
            return "mem_used_pct";
        case PerfMetric::kDisk:
            return "disk_used_pct";
        case PerfMetric::kLoad:
            return "load1";
    }
    return "cpu_pct";
}

double nearest_rank(const std::vector<double>& sorted, double p) {
    assert(!sorted.empty());
    assert(p > 0 && p <= 100);
    const double n = static_cast<double>(sorted.size());
    auto rank = static_cast<size_t>(std::ceil(p / 100.0 * n));
    rank = std::clamp<size_t>(rank, 1, sorted.size());
    return sorted[rank - 1];
}

std::optional<MetricStats> metric_stats(std::vector<double> values) {
    if (values.empty()) return std::nullopt;
    std::sort(values.begin(), values.end());
    double sum = 0;
    for (double v : values) sum += v;
    MetricStats s;
    s.n = static_cast<int64_t>(values.size());
    s.avg = sum / static_cast<double>(values.size());
    s.p50 = nearest_rank(values, 50);
    s.p90 = nearest_rank(values, 90);
    s.max = values.back();
    return s;
}

DexPerf::DexPerf(const fleet::AgentRegistry& registry, const Clock& clock,
                 int64_t sample_max_age_ms)
    : registry_(registry), clock_(clock), sample_max_age_ms_(sample_max_age_ms) {
    assert(sample_max_age_ms_ > 0);
}

bool DexPerf::counts(const fleet::AgentRecord& agent, int64_t now_ms, int64_t max_age_ms) {
    if (!agent.perf || !has_any_metric(*agent.perf)) return false;
    return agent.online || now_ms - agent.perf->at_ms <= max_age_ms;
}

PerfFleetStats DexPerf::stats_of(const std::vector<fleet::AgentRecord>& agents, int64_t now_ms,
                                 int64_t max_age_ms) {
    PerfFleetStats out;
    std::vector<double> cpu, mem, disk, load;
    for (const auto& a : agents) {
        if (a.online) ++out.online;
        if (!counts(a, now_ms, max_age_ms)) continue;
        ++out.reporting;
        const fleet::PerfSample& s = *a.perf;
        if (s.cpu_pct) cpu.push_back(*s.cpu_pct);
        if (s.mem_used_pct) mem.push_back(*s.mem_used_pct);
        if (s.disk_used_pct) disk.push_back(*s.disk_used_pct);
        if (s.load1) load.push_back(*s.load1);
    }
    out.cpu_pct = metric_stats(std::move(cpu));
    out.mem_used_pct = metric_stats(std::move(mem));
    out.disk_used_pct = metric_stats(std::move(disk));
    out.load1 = metric_stats(std::move(load));
    return out;
}

Result<std::vector<fleet::AgentRecord>> DexPerf::agents_in(
    const std::optional<std::set<std::string>>& view) const {
    auto agents = registry_.list();
    if (!agents.ok()) return agents.status();
    std::vector<fleet::AgentRecord> out;
    for (auto& a : *agents) {
        if (in_view(view, a.agent_id)) out.push_back(std::move(a));
    }
    return out;
}

Result<PerfFleetStats> DexPerf::fleet_stats(
    const std::optional<std::set<std::string>>& view) const {
    auto agents = agents_in(view);
    if (!agents.ok()) return agents.status();
    return stats_of(*agents, clock_.now_ms(), sample_max_age_ms_);
}

Result<std::vector<PerfDevice>> DexPerf::devices(
    PerfMetric metric, int limit, const std::optional<std::set<std::string>>& view) const {
    if (limit < 1) return Status::InvalidArgument("limit must be at least 1");
    limit = std::min(limit, kMaxPerfDeviceLimit);
    auto agents = agents_in(view);
    if (!agents.ok()) return agents.status();
    const int64_t now_ms = clock_.now_ms();
    std::vector<PerfDevice> out;
    for (const auto& a : *agents) {
        if (!counts(a, now_ms, sample_max_age_ms_)) continue;
        auto v = metric_of(*a.perf, metric);
        if (!v) continue;
        PerfDevice d;
        d.agent_id = a.agent_id;
        d.hostname = a.hostname;
        d.online = a.online;
        d.sample = *a.perf;
        d.value = *v;
        out.push_back(std::move(d));
    }
    std::sort(out.begin(), out.end(), [](const PerfDevice& x, const PerfDevice& y) {
        if (x.value != y.value) return x.value > y.value;
        return x.agent_id < y.agent_id;
    });
    // Worst first: the devices at or below a device's value are it and
    // everything after it (ties counted in full).
    const double n = static_cast<double>(out.size());
    size_t i = 0;
    while (i < out.size()) {
        size_t j = i;
        while (j < out.size() && out[j].value == out[i].value) ++j;
        const double at_or_below = static_cast<double>(out.size() - i);
        for (size_t k = i; k < j; ++k) out[k].fleet_pctile = round1(100.0 * at_or_below / n);
        i = j;
    }
    if (out.size() > static_cast<size_t>(limit)) out.resize(static_cast<size_t>(limit));
    return out;
}

Result<std::vector<SilentDevice>> DexPerf::not_reporting(
    int limit, const std::optional<std::set<std::string>>& view) const {
    if (limit < 1) return Status::InvalidArgument("limit must be at least 1");
    limit = std::min(limit, kMaxPerfDeviceLimit);
    auto agents = agents_in(view);
    if (!agents.ok()) return agents.status();
    const int64_t now_ms = clock_.now_ms();
    std::vector<SilentDevice> out;
    for (const auto& a : *agents) {
        if (!a.online || counts(a, now_ms, sample_max_age_ms_)) continue;
        if (out.size() == static_cast<size_t>(limit)) break;
        out.push_back(SilentDevice{a.agent_id, a.hostname, a.last_seen_ms});
    }
    return out;
}

}  // namespace yuzu::compliance
