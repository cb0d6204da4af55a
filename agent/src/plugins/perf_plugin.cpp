// perf.snapshot: CPU (two /proc/stat samples), memory, root disk and load.
#include <sys/statvfs.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>

#include "plugins/builtin_plugins.hpp"
#include "plugins/outcome.hpp"
#include "plugins/params.hpp"

namespace yuzu::agent::plugins {
namespace {

constexpr std::chrono::milliseconds kCpuSampleGap{200};

struct CpuSample {
    uint64_t total = 0;
    uint64_t idle = 0;  // idle + iowait
};

// The aggregate "cpu" line: user nice system idle iowait irq softirq steal
// (guest time is already inside user/nice, so it is not added again).
Result<CpuSample> read_cpu(const HostPaths& paths) {
    auto text = read_host_file(paths.proc + "/stat");
    if (!text.ok()) return text.status();
    for (const auto line : split_lines(*text)) {
        const auto fields = split_fields(line);
        if (fields.size() < 5 || fields[0] != "cpu") continue;
        CpuSample sample;
        for (size_t i = 1; i < fields.size() && i <= 8; ++i) {
            const auto v = parse_u64(fields[i]);
            if (!v) return Status::Internal("cannot parse the cpu line of /proc/stat");
            sample.total += *v;
            if (i == 4 || i == 5) sample.idle += *v;
        }
        return sample;
    }
    return Status::Internal("no cpu line in /proc/stat");
}

struct Memory {
    uint64_t total_bytes = 0;
    uint64_t available_bytes = 0;
};

Result<Memory> read_memory(const HostPaths& paths) {
    auto text = read_host_file(paths.proc + "/meminfo");
    if (!text.ok()) return text.status();
    std::optional<uint64_t> total;
    std::optional<uint64_t> available;
    for (const auto line : split_lines(*text)) {
        const auto fields = split_fields(line);
        if (fields.size() < 2) continue;
        if (fields[0] == "MemTotal:") total = parse_u64(fields[1]);
        if (fields[0] == "MemAvailable:") available = parse_u64(fields[1]);
    }
    if (!total || !available || *total == 0) {
        return Status::Internal("no MemTotal/MemAvailable in /proc/meminfo");
    }
    return Memory{*total * 1024, *available * 1024};
}

Result<std::array<double, 3>> read_load(const HostPaths& paths) {
    auto text = read_host_file(paths.proc + "/loadavg");
    if (!text.ok()) return text.status();
    const auto fields = split_fields(trim(*text));
    if (fields.size() < 3) return Status::Internal("cannot parse /proc/loadavg");
    std::array<double, 3> load{};
    for (size_t i = 0; i < 3; ++i) {
        const std::string field(fields[i]);
        char* end = nullptr;
        load[i] = std::strtod(field.c_str(), &end);
        if (end == field.c_str()) return Status::Internal("cannot parse /proc/loadavg");
    }
    return load;
}

PluginOutcome perf_snapshot(const HostPaths& paths, const std::string& params_json,
                            const PluginLimits& limits) {
    auto params = Params::parse(params_json, {});
    if (!params.ok()) return failure_from(params.status());
    const Deadline deadline(limits.timeout);

    if (deadline.remaining() < kCpuSampleGap) {
        return timed_out("timeout is shorter than the 200 ms cpu sample");
    }
    auto first = read_cpu(paths);
    if (!first.ok()) return failure("cannot read cpu time: " + first.status().message());
    std::this_thread::sleep_for(kCpuSampleGap);
    if (deadline.passed()) return timed_out("timed out sampling cpu time");
    auto second = read_cpu(paths);
    if (!second.ok()) return failure("cannot read cpu time: " + second.status().message());
    const double d_total = static_cast<double>(second->total - first->total);
    const double d_idle = static_cast<double>(second->idle - first->idle);
    const double cpu_pct =
        second->total > first->total ? (d_total - std::min(d_idle, d_total)) / d_total * 100 : 0;

    auto memory = read_memory(paths);
    if (!memory.ok()) return failure("cannot read memory: " + memory.status().message());
    const auto mem_used =
        memory->total_bytes - std::min(memory->available_bytes, memory->total_bytes);

    struct statvfs vfs {};
    if (::statvfs(paths.root_fs.c_str(), &vfs) != 0) {
        return failure("cannot stat " + paths.root_fs + ": " + std::strerror(errno));
    }
    // Same formula as df: used / (used + available to unprivileged users).
    const double used = static_cast<double>(vfs.f_blocks - vfs.f_bfree);
    const double usable = used + static_cast<double>(vfs.f_bavail);
    const double disk_pct = usable > 0 ? used / usable * 100 : 0;

    auto load = read_load(paths);
    if (!load.ok()) return failure("cannot read load average: " + load.status().message());

    return success({
        {"cpu_pct", round_pct(cpu_pct)},
        {"mem_used_pct",
         round_pct(static_cast<double>(mem_used) / static_cast<double>(memory->total_bytes) * 100)},
        {"mem_total_bytes", memory->total_bytes},
        {"disk_used_pct", round_pct(disk_pct)},
        {"load1", (*load)[0]},
        {"load5", (*load)[1]},
        {"load15", (*load)[2]},
    });
}

}  // namespace

void register_perf_plugins(PluginRegistry& registry, const HostPaths& paths) {
    registry.add(PluginInfo{"perf", "snapshot",
                            "CPU, memory, root disk usage and load average right now", false},
                 [paths](const std::string& params_json, const PluginLimits& limits) {
                     return perf_snapshot(paths, params_json, limits);
                 });
}

}  // namespace yuzu::agent::plugins
