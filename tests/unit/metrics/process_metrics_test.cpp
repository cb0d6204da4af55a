#include "yuzu/metrics/process_metrics.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <string>
#include <thread>

#include "yuzu/metrics/builder.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::metrics {
namespace {

// A /proc/<pid>/stat line whose command name holds ") (" and spaces.
// utime=250 stime=50 threads=7 starttime=1000 vsize=4096000 rss=300.
const char kStat[] =
    "4242 (yuzu ) (x) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 7 0 1000 4096000 300 "
    "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";

TEST(ProcessMetrics, ParsesStatFieldsAfterTheLastParenthesis) {
    const ProcessSample s = parse_proc_stat(kStat, 100.0, 1'700'000'000.0, 4096.0);
    ASSERT_TRUE(s.cpu_seconds && s.threads && s.start_time_seconds && s.virtual_bytes &&
                s.resident_bytes);
    EXPECT_DOUBLE_EQ(*s.cpu_seconds, 3.0);
    EXPECT_DOUBLE_EQ(*s.threads, 7.0);
    EXPECT_DOUBLE_EQ(*s.start_time_seconds, 1'700'000'010.0);
    EXPECT_DOUBLE_EQ(*s.virtual_bytes, 4096000.0);
    EXPECT_DOUBLE_EQ(*s.resident_bytes, 300.0 * 4096.0);
}

TEST(ProcessMetrics, AMalformedStatYieldsNoFieldsInsteadOfGarbage) {
    EXPECT_FALSE(parse_proc_stat("no parenthesis here", 100.0, 1.0, 4096.0).cpu_seconds);
    const ProcessSample truncated = parse_proc_stat("1 (x) S 1 2", 100.0, 1.0, 4096.0);
    EXPECT_FALSE(truncated.cpu_seconds);
    EXPECT_FALSE(truncated.resident_bytes);
    EXPECT_FALSE(parse_proc_stat(kStat, 0.0, 1.0, 4096.0).cpu_seconds);
    // Without the boot time there is no start time, but the rest is read.
    const ProcessSample no_boot = parse_proc_stat(kStat, 100.0, std::nullopt, 4096.0);
    EXPECT_FALSE(no_boot.start_time_seconds);
    EXPECT_TRUE(no_boot.cpu_seconds);
}

TEST(ProcessMetrics, TheLiveProcessReportsItsOwnThreadsAndDescriptors) {
    std::thread extra([] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); });
    const ProcessSample s = read_process_sample();
    extra.join();
    ASSERT_TRUE(s.threads);
    EXPECT_GE(*s.threads, 2.0);
    ASSERT_TRUE(s.open_fds);
    EXPECT_GE(*s.open_fds, 3.0);  // stdin, stdout, stderr
    ASSERT_TRUE(s.resident_bytes);
    EXPECT_GT(*s.resident_bytes, 0.0);
    ASSERT_TRUE(s.start_time_seconds);
    EXPECT_LE(*s.start_time_seconds, static_cast<double>(::time(nullptr)) + 1);
}

TEST(ProcessMetrics, EveryFamilyIsExportedWithAValueAtScrape) {
    Registry registry;
    register_process_metrics(registry);
    const std::string text = registry.Serialize();
    for (const char* name : {"process_cpu_seconds_total", "process_resident_memory_bytes",
                             "process_virtual_memory_bytes", "process_open_fds", "process_max_fds",
                             "process_start_time_seconds", "process_threads"}) {
        EXPECT_NE(text.find(std::string("# TYPE ") + name), std::string::npos) << name;
        EXPECT_NE(text.find(std::string("\n") + name + " "), std::string::npos) << name;
    }
    EXPECT_NE(text.find("# TYPE process_cpu_seconds_total counter"), std::string::npos);
}

TEST(RegistryCollector, RunsBeforeEveryScrapeSoGaugesAreCurrent) {
    Registry registry;
    Gauge& g = BuildGauge().Name("test_mirrored").Help("h").Register(registry).Add({});
    int scrapes = 0;
    registry.AddCollector([&] { g.Set(++scrapes * 10); });
    EXPECT_NE(registry.Serialize().find("test_mirrored 10"), std::string::npos);
    EXPECT_NE(registry.Serialize().find("test_mirrored 20"), std::string::npos);
    EXPECT_EQ(scrapes, 2);
}

}  // namespace
}  // namespace yuzu::metrics
