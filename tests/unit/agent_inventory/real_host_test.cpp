// Smoke tests against the machine the tests run on: the collectors read
// the real host and agree with the system calls they wrap.
#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "yuzu/agent/host_facts.hpp"
#include "yuzu/agent/inventory.hpp"
#include "yuzu/agent/perf_sample.hpp"

namespace yuzu::agent {
namespace {

TEST(RealHost, KernelReleaseMatchesUname) {
    utsname u{};
    ASSERT_EQ(::uname(&u), 0);
    const auto reading = collect_kernel(InventoryEnv{});
    ASSERT_TRUE(reading.available) << reading.reason;
    const auto data = nlohmann::json::parse(reading.data_json);
    EXPECT_EQ(data["release"], u.release);
    EXPECT_EQ(data["sysname"], u.sysname);
    EXPECT_EQ(data["machine"], u.machine);
}

TEST(RealHost, HostnameAndFactsMatchTheSystem) {
    char name[256] = {};
    ASSERT_EQ(::gethostname(name, sizeof name - 1), 0);
    const auto host = nlohmann::json::parse(collect_host(InventoryEnv{}).data_json);
    EXPECT_EQ(host["hostname"], name);
    EXPECT_GT(host["boot_time"].get<int64_t>(), 1'000'000'000);
    const HostFacts facts = read_host_facts(HostPaths{});
    EXPECT_EQ(facts.hostname, name);
    EXPECT_EQ(facts.os, "linux");
    EXPECT_FALSE(facts.arch.empty());
    ASSERT_TRUE(read_uptime_s(HostPaths{}).has_value());
    EXPECT_GE(*read_uptime_s(HostPaths{}), 0);
}

TEST(RealHost, MemoryAndProcessesAreReadable) {
    const auto memory = collect_memory(InventoryEnv{});
    ASSERT_TRUE(memory.available) << memory.reason;
    EXPECT_GT(nlohmann::json::parse(memory.data_json)["total_bytes"].get<uint64_t>(), 0u);
    const auto processes = collect_processes(InventoryEnv{});
    ASSERT_TRUE(processes.available) << processes.reason;
    const auto rows = nlohmann::json::parse(processes.data_json);
    const auto self = std::find_if(rows.begin(), rows.end(),
                                   [](const auto& row) { return row["pid"] == ::getpid(); });
    ASSERT_NE(self, rows.end()) << "this test process is missing from the list";
    EXPECT_GT((*self)["rss_bytes"].get<int64_t>(), 0);
}

TEST(RealHost, EverySourceIsReportedWithAStatus) {
    const auto sources = nlohmann::json::parse(collect_inventory_sources(InventoryEnv{}));
    ASSERT_EQ(sources.size(), inventory_source_names().size());
    for (const auto& name : inventory_source_names()) {
        ASSERT_TRUE(sources.contains(name)) << name;
        const auto& s = sources[name];
        if (s["status"] == "ok") {
            EXPECT_TRUE(s.contains("data")) << name;
        } else {
            EXPECT_EQ(s["status"], "unavailable") << name;
            EXPECT_FALSE(s["reason"].get<std::string>().empty()) << name;
        }
    }
    EXPECT_EQ(sources["kernel"]["status"], "ok");
    EXPECT_EQ(sources["os_release"]["status"], "ok");
}

TEST(InventoryBudget, OversizedSourcesBecomeUnavailableWithTheirSize) {
    InventoryBudget budget;
    budget.max_source_bytes = 64;  // every real processes list is bigger than this
    const auto sources = nlohmann::json::parse(collect_inventory_sources(InventoryEnv{}, budget));
    EXPECT_EQ(sources["processes"]["status"], "unavailable");
    EXPECT_NE(sources["processes"]["reason"].get<std::string>().find("per-source limit"),
              std::string::npos);
    budget.max_source_bytes = size_t{64} * 1024 * 1024;
    budget.max_total_bytes = 2048;
    const auto total = collect_inventory_sources(InventoryEnv{}, budget);
    EXPECT_LE(total.size(), 2048u + 16 * 160);  // what is left: one short reason per source
    EXPECT_EQ(nlohmann::json::parse(total).size(), inventory_source_names().size());
}

TEST(InventoryBudget, UnknownSourceIsUnavailable) {
    EXPECT_FALSE(collect_source("teleporter", InventoryEnv{}).available);
    EXPECT_TRUE(collect_source("kernel", InventoryEnv{}).available);
}

TEST(PerfSampler, FieldsAreInRange) {
    PerfSampler sampler{HostPaths{}};
    // Burn a little CPU so the second /proc/stat reading differs.
    volatile uint64_t sink = 0;
    for (int round = 0; round < 3; ++round) {
        for (uint64_t i = 0; i < 20'000'000; ++i) sink = sink + i;
        usleep(20'000);
    }
    const PerfSample s = sampler.sample();
    ASSERT_TRUE(s.cpu_pct.has_value());
    EXPECT_GE(*s.cpu_pct, 0.0);
    EXPECT_LE(*s.cpu_pct, 100.0);
    ASSERT_TRUE(s.mem_used_pct.has_value());
    EXPECT_GT(*s.mem_used_pct, 0.0);
    EXPECT_LE(*s.mem_used_pct, 100.0);
    ASSERT_TRUE(s.disk_used_pct.has_value());
    EXPECT_LE(*s.disk_used_pct, 100.0);
    ASSERT_TRUE(s.load1.has_value());
    EXPECT_GE(*s.load1, 0.0);
}

TEST(PerfSampler, UnreadableFilesLeaveFieldsUnset) {
    HostPaths nowhere;
    nowhere.proc_root = "/nonexistent-proc";
    nowhere.disk_path = "/nonexistent-disk";
    PerfSampler sampler{nowhere};
    const PerfSample s = sampler.sample();
    EXPECT_FALSE(s.cpu_pct.has_value());
    EXPECT_FALSE(s.mem_used_pct.has_value());
    EXPECT_FALSE(s.disk_used_pct.has_value());
    EXPECT_FALSE(s.load1.has_value());
}

}  // namespace
}  // namespace yuzu::agent
