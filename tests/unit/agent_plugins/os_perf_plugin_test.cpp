#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <climits>

#include "plugin_test_support.hpp"

namespace yuzu::agent {
namespace {

using testing::output_of;
using testing::run;
using testing::write_file;

int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

TEST(OsInfoTest, RealHostMatchesUname) {
    const auto registry = PluginRegistry::builtin();
    const auto out = output_of(run(registry, "os", "info", nlohmann::json::object()));
    struct utsname uts {};
    ASSERT_EQ(::uname(&uts), 0);
    char host[HOST_NAME_MAX + 1] = {};
    ASSERT_EQ(::gethostname(host, sizeof(host) - 1), 0);
    EXPECT_EQ(out.at("kernel"), uts.release);
    EXPECT_EQ(out.at("kernel_version"), uts.version);
    EXPECT_EQ(out.at("arch"), uts.machine);
    EXPECT_EQ(out.at("hostname"), host);
    EXPECT_EQ(out.at("os"), "linux");
    for (const char* key : {"os_name", "pretty_name", "os_version"}) {
        ASSERT_TRUE(out.contains(key)) << key;
        EXPECT_TRUE(out.at(key).is_string() || out.at(key).is_null()) << key;
    }
    if (::access("/etc/os-release", R_OK) == 0) {
        EXPECT_TRUE(out.at("os_name").is_string());
    }
    const int64_t uptime = out.at("uptime_s");
    const int64_t boot = out.at("boot_time");
    EXPECT_GT(uptime, 0);
    EXPECT_GT(boot, 946684800);  // after 2000-01-01
    EXPECT_NEAR(static_cast<double>(boot + uptime), static_cast<double>(unix_now()), 120);
}

TEST(OsInfoTest, ReadsInjectedOsReleaseAndProc) {
    yuzu::testing::TempDir dir;
    write_file(dir / "os-release",
               "# comment\nNAME=\"Example Linux\"\nPRETTY_NAME='Example Linux 9 \\\"Q\\\"'\n"
               "VERSION_ID=9.1\n\n");
    write_file(dir / "proc" / "uptime", "12345.67 999.00\n");
    write_file(dir / "proc" / "stat", "cpu  1 2 3 4 5 6 7 8 0 0\nbtime 1700000000\n");
    plugins::HostPaths paths;
    paths.proc = (dir / "proc").string();
    paths.os_release_files = {(dir / "missing").string(), (dir / "os-release").string()};
    PluginRegistry registry;
    plugins::register_os_plugins(registry, paths);
    const auto out = output_of(run(registry, "os", "info", nlohmann::json::object()));
    EXPECT_EQ(out.at("os_name"), "Example Linux");
    EXPECT_EQ(out.at("pretty_name"), "Example Linux 9 \"Q\"");
    EXPECT_EQ(out.at("os_version"), "9.1");
    EXPECT_EQ(out.at("uptime_s"), 12345);
    EXPECT_EQ(out.at("boot_time"), 1700000000);
}

TEST(OsInfoTest, MissingProcIsAFailureNotPartialOutput) {
    yuzu::testing::TempDir dir;
    plugins::HostPaths paths;
    paths.proc = (dir / "nothing").string();
    PluginRegistry registry;
    plugins::register_os_plugins(registry, paths);
    const auto out = run(registry, "os", "info", nlohmann::json::object());
    EXPECT_EQ(out.status, "failure");
    EXPECT_NE(out.error.find("uptime"), std::string::npos) << out.error;
    EXPECT_EQ(out.output_json, "null");
}

TEST(PerfSnapshotTest, RealHostValuesArePlausible) {
    const auto registry = PluginRegistry::builtin();
    const auto start = std::chrono::steady_clock::now();
    const auto out = output_of(run(registry, "perf", "snapshot", nlohmann::json::object()));
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(190));
    for (const char* key : {"cpu_pct", "mem_used_pct", "disk_used_pct"}) {
        const double v = out.at(key);
        EXPECT_GE(v, 0.0) << key;
        EXPECT_LE(v, 100.0) << key;
    }
    EXPECT_GT(out.at("mem_total_bytes").get<uint64_t>(), uint64_t{64} * 1024 * 1024);
    for (const char* key : {"load1", "load5", "load15"}) EXPECT_GE(out.at(key).get<double>(), 0);
}

TEST(PerfSnapshotTest, ReadsInjectedProc) {
    yuzu::testing::TempDir dir;
    write_file(dir / "proc" / "stat", "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 1 1 1 1\n");
    write_file(dir / "proc" / "meminfo",
               "MemTotal:        1000 kB\nMemFree:          100 kB\nMemAvailable:     250 kB\n");
    write_file(dir / "proc" / "loadavg", "0.50 0.25 0.10 1/100 1234\n");
    plugins::HostPaths paths;
    paths.proc = (dir / "proc").string();
    paths.root_fs = dir.str();
    PluginRegistry registry;
    plugins::register_perf_plugins(registry, paths);
    const auto out = output_of(run(registry, "perf", "snapshot", nlohmann::json::object()));
    EXPECT_EQ(out.at("cpu_pct"), 0.0);  // the two samples are identical
    EXPECT_EQ(out.at("mem_used_pct"), 75.0);
    EXPECT_EQ(out.at("mem_total_bytes"), 1024000);
    EXPECT_EQ(out.at("load1"), 0.5);
    EXPECT_EQ(out.at("load5"), 0.25);
    EXPECT_EQ(out.at("load15"), 0.1);
}

TEST(PerfSnapshotTest, TooShortATimeoutReportsTimeout) {
    const auto registry = PluginRegistry::builtin();
    const auto out =
        registry.run("perf", "snapshot", "{}", testing::limits_of(std::chrono::milliseconds(50)));
    EXPECT_EQ(out.status, "timeout");
    EXPECT_EQ(out.output_json, "null");
}

}  // namespace
}  // namespace yuzu::agent
