#include "yuzu/metrics/process_metrics.hpp"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "yuzu/metrics/builder.hpp"

namespace yuzu::metrics {
namespace {

std::optional<std::string> read_small_file(const char* path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::optional<double> boot_time_seconds() {
    auto stat = read_small_file("/proc/stat");
    if (!stat) return std::nullopt;
    std::istringstream lines(*stat);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind("btime ", 0) == 0) return std::strtod(line.c_str() + 6, nullptr);
    }
    return std::nullopt;
}

std::optional<double> count_open_fds() {
    DIR* dir = ::opendir("/proc/self/fd");
    if (dir == nullptr) return std::nullopt;
    double count = 0;
    while (const dirent* entry = ::readdir(dir)) {
        if (entry->d_name[0] != '.') ++count;
    }
    ::closedir(dir);
    return count - 1;  // the descriptor opendir itself holds
}

}  // namespace

ProcessSample parse_proc_stat(const std::string& stat_text, double ticks_per_second,
                              std::optional<double> boot_time, double page_size) {
    ProcessSample sample;
    // The command name is in parentheses and may contain ") ", so the
    // fields start after the last ')'.
    const auto close = stat_text.rfind(')');
    if (close == std::string::npos || ticks_per_second <= 0) return sample;
    std::istringstream fields(stat_text.substr(close + 1));
    std::vector<std::string> f;  // f[0] is field 3 (state)
    std::string token;
    while (fields >> token) f.push_back(token);
    // Field numbers as in proc(5): utime 14, stime 15, num_threads 20,
    // starttime 22, vsize 23, rss 24.
    auto field = [&f](size_t number) -> std::optional<double> {
        if (number < 3 || number - 3 >= f.size()) return std::nullopt;
        char* end = nullptr;
        const double v = std::strtod(f[number - 3].c_str(), &end);
        if (end == f[number - 3].c_str()) return std::nullopt;
        return v;
    };
    if (auto utime = field(14), stime = field(15); utime && stime) {
        sample.cpu_seconds = (*utime + *stime) / ticks_per_second;
    }
    sample.threads = field(20);
    if (auto start = field(22); start && boot_time) {
        sample.start_time_seconds = *boot_time + *start / ticks_per_second;
    }
    sample.virtual_bytes = field(23);
    if (auto rss = field(24)) sample.resident_bytes = *rss * page_size;
    return sample;
}

ProcessSample read_process_sample() {
    ProcessSample sample;
    if (auto stat = read_small_file("/proc/self/stat")) {
        sample = parse_proc_stat(*stat, static_cast<double>(::sysconf(_SC_CLK_TCK)),
                                 boot_time_seconds(), static_cast<double>(::sysconf(_SC_PAGESIZE)));
    }
    sample.open_fds = count_open_fds();
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
        sample.max_fds = static_cast<double>(limit.rlim_cur);
    }
    return sample;
}

void register_process_metrics(Registry& registry) {
    auto gauge = [&registry](const char* name, const char* help) -> Gauge& {
        return BuildGauge().Name(name).Help(help).Register(registry).Add({});
    };
    Counter& cpu = BuildCounter()
                       .Name("process_cpu_seconds_total")
                       .Help("Total user and system CPU time spent in seconds.")
                       .Register(registry)
                       .Add({});
    Gauge& rss = gauge("process_resident_memory_bytes", "Resident memory size in bytes.");
    Gauge& vsize = gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.");
    Gauge& fds = gauge("process_open_fds", "Number of open file descriptors.");
    Gauge& max_fds = gauge("process_max_fds", "Maximum number of open file descriptors.");
    Gauge& start = gauge("process_start_time_seconds",
                         "Start time of the process since the Unix epoch in seconds.");
    Gauge& threads = gauge("process_threads", "Number of OS threads in the process.");
    // The counter only goes up: each scrape adds what the kernel's figure
    // grew by since the last one. Series live as long as the registry.
    auto last_cpu = std::make_shared<double>(0.0);
    registry.AddCollector([cpu = &cpu, rss = &rss, vsize = &vsize, fds = &fds, max_fds = &max_fds,
                           start = &start, threads = &threads, last_cpu] {
        const ProcessSample s = read_process_sample();
        if (s.cpu_seconds && *s.cpu_seconds > *last_cpu) {
            cpu->Increment(*s.cpu_seconds - *last_cpu);
            *last_cpu = *s.cpu_seconds;
        }
        if (s.resident_bytes) rss->Set(*s.resident_bytes);
        if (s.virtual_bytes) vsize->Set(*s.virtual_bytes);
        if (s.open_fds) fds->Set(*s.open_fds);
        if (s.max_fds) max_fds->Set(*s.max_fds);
        if (s.start_time_seconds) start->Set(*s.start_time_seconds);
        if (s.threads) threads->Set(*s.threads);
    });
}

}  // namespace yuzu::metrics
