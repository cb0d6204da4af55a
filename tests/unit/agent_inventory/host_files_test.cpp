// os-release, meminfo, uptime/stat/loadavg: parsers and their collectors
// against fixture files.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fixture_tree.hpp"
#include "inventory/parsers.hpp"

namespace yuzu::agent {
namespace {

TEST(OsRelease, UnquotesAndLowerCasesKeys) {
    const auto data = parse_os_release(
        "# a comment\n"
        "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"
        "NAME='Debian GNU/Linux'\n"
        "VERSION_ID=\"12\"\n"
        "ID=debian\n"
        "\n"
        "HOME_URL=\"https://www.debian.org/\"\n"
        "ESCAPED=\"say \\\"hi\\\" for \\$5 \\\\ \\`x\\`\"\n"
        "SINGLE='no \\\"escapes\\\" here'\n"
        "  SPACED = \"padded\"  \n"
        "not a key value line\n"
        "=novalue\n");
    EXPECT_EQ(data["pretty_name"], "Debian GNU/Linux 12 (bookworm)");
    EXPECT_EQ(data["name"], "Debian GNU/Linux");
    EXPECT_EQ(data["version_id"], "12");
    EXPECT_EQ(data["id"], "debian");
    EXPECT_EQ(data["home_url"], "https://www.debian.org/");
    EXPECT_EQ(data["escaped"], "say \"hi\" for $5 \\ `x`");
    EXPECT_EQ(data["single"], "no \\\"escapes\\\" here");
    EXPECT_EQ(data["spaced"], "padded");
    EXPECT_EQ(data.size(), 8u) << data.dump();
}

TEST(OsReleaseCollector, ReadsEtcRoot) {
    testing::FixtureTree tree;
    tree.write("etc/os-release", "ID=fedora\nVERSION_ID=40\nNAME=\"Fedora Linux\"\n");
    const auto reading = collect_os_release(tree.env());
    ASSERT_TRUE(reading.available) << reading.reason;
    EXPECT_EQ(nlohmann::json::parse(reading.data_json),
              nlohmann::json({{"id", "fedora"}, {"version_id", "40"}, {"name", "Fedora Linux"}}));
}

TEST(OsReleaseCollector, MissingFileIsUnavailableNotInvented) {
    testing::FixtureTree tree;
    const auto reading = collect_os_release(tree.env());
    EXPECT_FALSE(reading.available);
    EXPECT_NE(reading.reason.find("os-release"), std::string::npos);
    const auto wire = nlohmann::json::parse(reading.to_json());
    EXPECT_EQ(wire["status"], "unavailable");
    EXPECT_EQ(wire["reason"], reading.reason);
}

constexpr const char* kMeminfo =
    "MemTotal:       16318256 kB\n"
    "MemFree:         1234567 kB\n"
    "MemAvailable:    8159128 kB\n"
    "Buffers:          123456 kB\n"
    "SwapTotal:       2097148 kB\n"
    "SwapFree:        2097000 kB\n"
    "HugePages_Total:       0\n";

TEST(Meminfo, ConvertsKibToBytes) {
    const auto data = parse_meminfo(kMeminfo);
    EXPECT_EQ(data, nlohmann::json({{"total_bytes", 16318256ull * 1024},
                                    {"available_bytes", 8159128ull * 1024},
                                    {"swap_total_bytes", 2097148ull * 1024},
                                    {"swap_free_bytes", 2097000ull * 1024}}));
}

TEST(MemoryCollector, OmitsWhatTheKernelDoesNotPrint) {
    testing::FixtureTree tree;
    tree.write("proc/meminfo", "MemTotal: 1000 kB\nMemFree: 10 kB\n");  // pre-3.14: no MemAvailable
    const auto reading = collect_memory(tree.env());
    ASSERT_TRUE(reading.available) << reading.reason;
    EXPECT_EQ(nlohmann::json::parse(reading.data_json), nlohmann::json({{"total_bytes", 1024000}}));
}

TEST(MemoryCollector, NoMemTotalIsUnavailable) {
    testing::FixtureTree tree;
    tree.write("proc/meminfo", "garbage\n");
    EXPECT_FALSE(collect_memory(tree.env()).available);
}

TEST(ProcTimes, UptimeBootTimeAndLoad) {
    EXPECT_EQ(parse_uptime("12345.67 54321.00\n"), 12345);
    EXPECT_FALSE(parse_uptime("soon"));
    EXPECT_EQ(parse_boot_time("cpu  1 2 3 4\nintr 5\nbtime 1764460800\nprocesses 99\n"),
              1764460800);
    EXPECT_FALSE(parse_boot_time("cpu 1 2 3\n"));
    const auto loads = parse_loadavg("0.12 0.34 0.56 2/345 6789\n");
    ASSERT_TRUE(loads);
    EXPECT_DOUBLE_EQ((*loads)[0], 0.12);
    EXPECT_DOUBLE_EQ((*loads)[2], 0.56);
    EXPECT_FALSE(parse_loadavg("0.12 0.34\n"));
}

TEST(HostAndCpuCollectors, ReadTheProcRoot) {
    testing::FixtureTree tree;
    tree.write("proc/uptime", "3600.50 100.00\n");
    tree.write("proc/stat", "cpu  1 2 3 4 5 6 7 8 0 0\nbtime 1700000000\n");
    tree.write("proc/loadavg", "1.50 0.75 0.25 1/100 42\n");
    tree.write("proc/cpuinfo", "processor\t: 0\nmodel name\t: Test CPU @ 1.00GHz\n");
    const auto host = nlohmann::json::parse(collect_host(tree.env()).data_json);
    EXPECT_EQ(host["uptime_s"], 3600);
    EXPECT_EQ(host["boot_time"], 1700000000);
    EXPECT_FALSE(host["hostname"].get<std::string>().empty());
    const auto cpu = nlohmann::json::parse(collect_cpu(tree.env()).data_json);
    EXPECT_GE(cpu["count"].get<int>(), 1);
    EXPECT_DOUBLE_EQ(cpu["load1"].get<double>(), 1.5);
    EXPECT_DOUBLE_EQ(cpu["load15"].get<double>(), 0.25);
    EXPECT_EQ(cpu["model"], "Test CPU @ 1.00GHz");
}

TEST(HostCollector, LeavesOutWhatItCannotRead) {
    testing::FixtureTree tree;  // empty proc root
    const auto host = nlohmann::json::parse(collect_host(tree.env()).data_json);
    EXPECT_TRUE(host.contains("hostname"));
    EXPECT_FALSE(host.contains("uptime_s"));
    EXPECT_FALSE(host.contains("boot_time"));
}

TEST(CpuJiffies, BusyExcludesIdleAndIowait) {
    const auto cpu = parse_cpu_jiffies("cpu  100 10 50 800 40 0 0 0 0 0\ncpu0 1 1 1 1\n");
    ASSERT_TRUE(cpu);
    EXPECT_EQ(cpu->total, 1000u);
    EXPECT_EQ(cpu->busy, 160u);
    EXPECT_FALSE(parse_cpu_jiffies("intr 1 2 3\n"));
}

}  // namespace
}  // namespace yuzu::agent
