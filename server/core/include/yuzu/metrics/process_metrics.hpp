// Process metrics in the names every Prometheus client library uses
// (process_cpu_seconds_total, process_resident_memory_bytes, ...), read from
// Linux's /proc/self at scrape time, plus process_threads.
//
// Thread-safety: the collector runs under the Registry's scrape lock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace yuzu::metrics {

class Registry;

// One reading of /proc/self. A field that could not be read is nullopt, so
// a partly readable /proc (a hardened container) still exports the rest.
struct ProcessSample {
    std::optional<double> cpu_seconds;  // user + system
    std::optional<double> resident_bytes;
    std::optional<double> virtual_bytes;
    std::optional<double> open_fds;
    std::optional<double> max_fds;
    std::optional<double> start_time_seconds;  // since the Unix epoch
    std::optional<double> threads;
};

// Reads the current process. Never throws.
ProcessSample read_process_sample();

// Parses the text of /proc/<pid>/stat (the fields after the parenthesised
// command name, which may itself hold spaces and parentheses). Exposed for
// tests. `ticks_per_second` is sysconf(_SC_CLK_TCK); `boot_time_seconds` is
// the btime line of /proc/stat; `page_size` is sysconf(_SC_PAGESIZE).
ProcessSample parse_proc_stat(const std::string& stat_text, double ticks_per_second,
                              std::optional<double> boot_time_seconds, double page_size);

// Registers the process_* families on `registry` and a collector that
// refreshes them on every scrape.
void register_process_metrics(Registry& registry);

}  // namespace yuzu::metrics
