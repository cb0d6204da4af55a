// Device performance from heartbeat samples: nearest-rank percentiles on a
// known sample, null when nobody reported, worst-first device lists.
#include "yuzu/compliance/dex_perf.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "compliance_fixture.hpp"
#include "yuzu/compliance/compliance_json.hpp"

namespace yuzu::compliance::testing {
namespace {

fleet::PerfSample sample(std::optional<double> cpu, std::optional<double> mem = std::nullopt,
                         std::optional<double> disk = std::nullopt,
                         std::optional<double> load = std::nullopt) {
    fleet::PerfSample s;
    s.cpu_pct = cpu;
    s.mem_used_pct = mem;
    s.disk_used_pct = disk;
    s.load1 = load;
    return s;
}

TEST(DexPerfMath, NearestRankOnAKnownSample) {
    const std::vector<double> v = {15, 20, 35, 40, 50};
    EXPECT_DOUBLE_EQ(nearest_rank(v, 5), 15);
    EXPECT_DOUBLE_EQ(nearest_rank(v, 30), 20);
    EXPECT_DOUBLE_EQ(nearest_rank(v, 40), 20);
    EXPECT_DOUBLE_EQ(nearest_rank(v, 50), 35);
    EXPECT_DOUBLE_EQ(nearest_rank(v, 90), 50);
    EXPECT_DOUBLE_EQ(nearest_rank(v, 100), 50);

    auto s = metric_stats({3, 1, 4, 1, 5, 9, 2, 6, 5, 3});
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->n, 10);
    EXPECT_DOUBLE_EQ(s->avg, 3.9);
    EXPECT_DOUBLE_EQ(s->p50, 3);  // sorted 1 1 2 3 3 4 5 5 6 9: rank 5
    EXPECT_DOUBLE_EQ(s->p90, 6);  // rank 9
    EXPECT_DOUBLE_EQ(s->max, 9);
    EXPECT_FALSE(metric_stats({}).has_value());
    auto one = metric_stats({42});
    EXPECT_DOUBLE_EQ(one->p50, 42);
    EXPECT_DOUBLE_EQ(one->p90, 42);
}

TEST_F(ComplianceTest, FleetStatsAreNullWhenNobodyReported) {
    const std::string a = enroll("web-01");
    heartbeat(a, std::nullopt);
    auto stats = compliance_->dex().fleet_stats(std::nullopt);
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(stats->reporting, 0);
    EXPECT_EQ(stats->online, 1);
    EXPECT_FALSE(stats->cpu_pct.has_value());
    nlohmann::json j = to_json(*stats);
    EXPECT_TRUE(j["cpu_pct"].is_null());
    EXPECT_TRUE(j["load1"].is_null());
    EXPECT_EQ(j["reporting"], 0);
}

TEST_F(ComplianceTest, FleetStatsOverReportingAgents) {
    const std::vector<double> cpu = {15, 50, 20, 40, 35};
    std::vector<std::string> agents;
    for (size_t i = 0; i < cpu.size(); ++i) {
        agents.push_back(enroll("web-0" + std::to_string(i)));
        // Only the first two measure memory; nobody measures load.
        heartbeat(agents.back(),
                  sample(cpu[i], i < 2 ? std::optional<double>(60.0 + i) : std::nullopt, 70.0));
    }
    const std::string quiet = enroll("quiet-01");
    heartbeat(quiet, std::nullopt);

    auto stats = compliance_->dex().fleet_stats(std::nullopt);
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(stats->reporting, 5);
    EXPECT_EQ(stats->online, 6);
    ASSERT_TRUE(stats->cpu_pct.has_value());
    EXPECT_EQ(stats->cpu_pct->n, 5);
    EXPECT_DOUBLE_EQ(stats->cpu_pct->avg, 32);
    EXPECT_DOUBLE_EQ(stats->cpu_pct->p50, 35);
    EXPECT_DOUBLE_EQ(stats->cpu_pct->p90, 50);
    EXPECT_DOUBLE_EQ(stats->cpu_pct->max, 50);
    ASSERT_TRUE(stats->mem_used_pct.has_value());
    EXPECT_EQ(stats->mem_used_pct->n, 2);
    EXPECT_DOUBLE_EQ(stats->mem_used_pct->max, 61);
    EXPECT_FALSE(stats->load1.has_value()) << "null, never 0, when nobody reported";

    auto scoped = compliance_->dex().fleet_stats(std::set<std::string>{agents[1], quiet});
    ASSERT_TRUE(scoped.ok());
    EXPECT_EQ(scoped->reporting, 1);
    EXPECT_EQ(scoped->online, 2);
    EXPECT_DOUBLE_EQ(scoped->cpu_pct->max, 50);
}

TEST_F(ComplianceTest, OfflineSamplesCountOnlyWhileYoung) {
    const std::string a = enroll("web-01");
    heartbeat(a, sample(80));
    ASSERT_TRUE(fleet_->registry().sign_off(a).ok());
    auto fresh = compliance_->dex().fleet_stats(std::nullopt);
    ASSERT_TRUE(fresh.ok());
    EXPECT_EQ(fresh->online, 0);
    EXPECT_EQ(fresh->reporting, 1);
    clock_.advance_ms(kDefaultPerfSampleMaxAgeMs + 1);
    auto old = compliance_->dex().fleet_stats(std::nullopt);
    ASSERT_TRUE(old.ok());
    EXPECT_EQ(old->reporting, 0);
    EXPECT_FALSE(old->cpu_pct.has_value());
}

TEST_F(ComplianceTest, DevicesWorstFirstWithFleetPercentile) {
    const std::vector<double> cpu = {15, 50, 20, 50, 35};
    std::vector<std::string> agents;
    for (size_t i = 0; i < cpu.size(); ++i) {
        agents.push_back(enroll("web-0" + std::to_string(i)));
        heartbeat(agents.back(), sample(cpu[i], 40, 50, 0.5 * static_cast<double>(i)));
    }
    auto devices = compliance_->dex().devices(PerfMetric::kCpu, 3, std::nullopt);
    ASSERT_TRUE(devices.ok());
    ASSERT_EQ(devices->size(), 3u);
    EXPECT_DOUBLE_EQ((*devices)[0].value, 50);
    EXPECT_DOUBLE_EQ((*devices)[1].value, 50);
    EXPECT_LT((*devices)[0].agent_id, (*devices)[1].agent_id) << "ties by agent_id";
    EXPECT_DOUBLE_EQ((*devices)[0].fleet_pctile, 100);
    EXPECT_DOUBLE_EQ((*devices)[1].fleet_pctile, 100);
    EXPECT_DOUBLE_EQ((*devices)[2].value, 35);
    EXPECT_DOUBLE_EQ((*devices)[2].fleet_pctile, 60);

    auto load = compliance_->dex().devices(PerfMetric::kLoad, 500, std::nullopt);
    ASSERT_TRUE(load.ok());
    ASSERT_EQ(load->size(), 5u);
    EXPECT_EQ(load->front().agent_id, agents[4]);
    EXPECT_DOUBLE_EQ(load->back().fleet_pctile, 20);
    nlohmann::json row = to_json(load->front());
    EXPECT_EQ(row["load1"], 2.0);
    EXPECT_EQ(row["cpu_pct"], 35.0);

    auto scoped =
        compliance_->dex().devices(PerfMetric::kCpu, 10, std::set<std::string>{agents[0]});
    ASSERT_TRUE(scoped.ok());
    ASSERT_EQ(scoped->size(), 1u);
    EXPECT_DOUBLE_EQ(scoped->front().fleet_pctile, 100) << "percentile within the view";

    EXPECT_EQ(compliance_->dex().devices(PerfMetric::kCpu, 0, std::nullopt).status().code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(compliance_->dex().devices(PerfMetric::kCpu, -3, std::nullopt).status().code(),
              StatusCode::kInvalidArgument);
    auto clamped = compliance_->dex().devices(PerfMetric::kMem, 100000, std::nullopt);
    ASSERT_TRUE(clamped.ok());
    EXPECT_EQ(clamped->size(), 5u);
}

TEST_F(ComplianceTest, NotReportingListsOnlineAgentsWithoutASample) {
    const std::string reporting = enroll("web-01");
    const std::string quiet = enroll("web-02");
    const std::string gone = enroll("web-03");
    heartbeat(reporting, sample(10));
    heartbeat(quiet, std::nullopt);
    ASSERT_TRUE(fleet_->registry().sign_off(gone).ok());
    auto silent = compliance_->dex().not_reporting(50, std::nullopt);
    ASSERT_TRUE(silent.ok());
    ASSERT_EQ(silent->size(), 1u);
    EXPECT_EQ(silent->front().agent_id, quiet);
    EXPECT_EQ(to_json(silent->front())["hostname"], "host-" + quiet.substr(0, 6));
    auto hidden = compliance_->dex().not_reporting(50, std::set<std::string>{reporting});
    ASSERT_TRUE(hidden.ok());
    EXPECT_TRUE(hidden->empty());
    EXPECT_FALSE(compliance_->dex().not_reporting(0, std::nullopt).ok());
}

TEST(DexPerfMath, MetricNames) {
    for (auto m : {PerfMetric::kCpu, PerfMetric::kMem, PerfMetric::kDisk, PerfMetric::kLoad}) {
        EXPECT_EQ(parse_perf_metric(perf_metric_name(m)), m);
    }
    EXPECT_EQ(perf_metric_field(PerfMetric::kMem), "mem_used_pct");
    EXPECT_FALSE(parse_perf_metric("commit").has_value());
}

}  // namespace
}  // namespace yuzu::compliance::testing
