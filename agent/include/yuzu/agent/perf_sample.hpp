// Performance figures for heartbeats. Each field is set only when it could
// be measured: cpu_pct needs two /proc/stat readings, so the first sample
// after construction has it only if some CPU time has passed since.
//
// Thread-safety: a PerfSampler keeps the previous /proc/stat reading; use
// one sampler from one thread at a time.
#pragma once

#include <cstdint>
#include <optional>

#include "yuzu/agent/host_paths.hpp"

namespace yuzu::agent {

struct PerfSample {
    std::optional<double> cpu_pct;        // busy share of all CPUs since the previous sample
    std::optional<double> mem_used_pct;   // (MemTotal - MemAvailable) / MemTotal
    std::optional<double> disk_used_pct;  // of paths.disk_path, as df computes it
    std::optional<double> load1;          // one-minute load average
};

class PerfSampler {
  public:
    explicit PerfSampler(HostPaths paths);
    PerfSample sample();

  private:
    struct CpuTimes {
        uint64_t busy = 0;
        uint64_t total = 0;
    };
    std::optional<CpuTimes> read_cpu_times() const;

    HostPaths paths_;
    std::optional<CpuTimes> previous_;
};

}  // namespace yuzu::agent
