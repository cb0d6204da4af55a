#include "yuzu/agent/perf_sample.hpp"

#include <sys/statvfs.h>

#include <utility>

#include "inventory/parsers.hpp"
#include "inventory/text_files.hpp"

namespace yuzu::agent {

std::optional<CpuJiffies> parse_cpu_jiffies(std::string_view text) {
    for (std::string_view line : split_lines(text)) {
        const auto fields = split_fields(line);
        if (fields.empty() || fields[0] != "cpu") continue;
        // user nice system idle iowait irq softirq steal (guest time is inside user)
        if (fields.size() < 5) return std::nullopt;
        uint64_t values[8] = {};
        const size_t count = std::min<size_t>(fields.size() - 1, 8);
        for (size_t i = 0; i < count; ++i) {
            auto v = parse_u64(fields[i + 1]);
            if (!v) return std::nullopt;
            values[i] = *v;
        }
        CpuJiffies cpu;
        for (uint64_t v : values) cpu.total += v;
        const uint64_t idle = values[3] + values[4];  // idle + iowait
        cpu.busy = cpu.total - idle;
        return cpu;
    }
    return std::nullopt;
}

PerfSampler::PerfSampler(HostPaths paths) : paths_(std::move(paths)) {
    previous_ = read_cpu_times();
}

std::optional<PerfSampler::CpuTimes> PerfSampler::read_cpu_times() const {
    auto text = read_text_file(paths_.proc_root + "/stat");
    if (!text.ok()) return std::nullopt;
    auto jiffies = parse_cpu_jiffies(*text);
    if (!jiffies) return std::nullopt;
    return CpuTimes{jiffies->busy, jiffies->total};
}

PerfSample PerfSampler::sample() {
    PerfSample s;
    if (auto now = read_cpu_times()) {
        // Counters only grow; a smaller reading means a fresh baseline, not a measurement.
        if (previous_ && now->total > previous_->total && now->busy >= previous_->busy) {
            const double busy = static_cast<double>(now->busy - previous_->busy);
            const double total = static_cast<double>(now->total - previous_->total);
            s.cpu_pct = round1(100.0 * busy / total);
        }
        previous_ = now;
    }
    if (auto text = read_text_file(paths_.proc_root + "/meminfo"); text.ok()) {
        const nlohmann::json mem = parse_meminfo(*text);
        if (mem.contains("total_bytes") && mem.contains("available_bytes")) {
            const double total = mem["total_bytes"].get<double>();
            const double avail = mem["available_bytes"].get<double>();
            if (total > 0 && avail <= total)
                s.mem_used_pct = round1(100.0 * (total - avail) / total);
        }
    }
    struct statvfs st {};
    if (::statvfs(paths_.disk_path.c_str(), &st) == 0 && st.f_blocks > 0) {
        const double used = static_cast<double>(st.f_blocks - st.f_bfree);
        const double avail = static_cast<double>(st.f_bavail);
        if (used + avail > 0) s.disk_used_pct = round1(100.0 * used / (used + avail));
    }
    if (auto text = read_text_file(paths_.proc_root + "/loadavg"); text.ok()) {
        if (auto loads = parse_loadavg(*text)) s.load1 = (*loads)[0];
    }
    return s;
}

}  // namespace yuzu::agent
