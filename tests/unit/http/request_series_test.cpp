// RequestSeries hands out the same series Family::Add would, with the
// listener label added, whether or not it remembers them.
#include "http/request_series.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "yuzu/metrics/builder.hpp"
#include "yuzu/metrics/family.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::http {
namespace {

class RequestSeriesTest : public ::testing::Test {
  protected:
    metrics::Registry registry_;
    metrics::Family<metrics::Counter>& total_ =
        metrics::BuildCounter().Name("requests_total").Help("Requests.").Register(registry_);
    metrics::Family<metrics::Histogram>& seconds_ =
        metrics::BuildHistogram().Name("request_seconds").Help("Latency.").Register(registry_);
    RequestSeries series_{total_, seconds_, "management"};

    metrics::Counter& counter_from_family(const std::string& route, const std::string& method,
                                          int status) {
        return total_.Add({{"listener", "management"},
                           {"route", route},
                           {"method", method},
                           {"status", std::to_string(status)}});
    }
};

TEST_F(RequestSeriesTest, CountersAreTheFamilysSeriesForTheFullLabels) {
    metrics::Counter& ok = series_.requests("/mcp/v1/", "POST", 200);
    EXPECT_EQ(&ok, &series_.requests("/mcp/v1/", "POST", 200));
    EXPECT_EQ(&ok, &counter_from_family("/mcp/v1/", "POST", 200));
    // Every label tells series apart.
    EXPECT_NE(&ok, &series_.requests("/mcp/v1/", "POST", 401));
    EXPECT_NE(&ok, &series_.requests("/mcp/v1/", "GET", 200));
    EXPECT_NE(&ok, &series_.requests("/livez", "POST", 200));
    EXPECT_EQ(&series_.requests("/mcp/v1/", "POST", 401),
              &counter_from_family("/mcp/v1/", "POST", 401));
}

TEST_F(RequestSeriesTest, LatencySeriesCarryNoStatus) {
    metrics::Histogram& h = series_.latency("/mcp/v1/", "POST");
    EXPECT_EQ(&h, &series_.latency("/mcp/v1/", "POST"));
    EXPECT_TRUE(
        seconds_.Has({{"listener", "management"}, {"route", "/mcp/v1/"}, {"method", "POST"}}));
    EXPECT_NE(&h, &series_.latency("/mcp/v1/", "GET"));
}

TEST_F(RequestSeriesTest, SeriesBeyondTheRememberedOnesAreStillTheRightOnes) {
    // Client-chosen methods fill the list; later ones go to the family.
    const int n = static_cast<int>(RequestSeries::kMaxRemembered) + 20;
    for (int i = 0; i < n; ++i) {
        const std::string method = "M" + std::to_string(i);
        metrics::Counter& c = series_.requests("/x", method, 405);
        EXPECT_EQ(&c, &counter_from_family("/x", method, 405)) << method;
        EXPECT_EQ(&c, &series_.requests("/x", method, 405)) << method;
    }
}

TEST_F(RequestSeriesTest, ThreadsMakingTheSameSeriesShareIt) {
    constexpr int kThreads = 8;
    std::vector<metrics::Counter*> got(kThreads, nullptr);
    std::vector<std::thread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) series_.requests("/shared", "POST", 200).Increment();
            got[static_cast<size_t>(t)] = &series_.requests("/shared", "POST", 200);
        });
    }
    for (auto& th : threads) th.join();
    for (metrics::Counter* c : got) EXPECT_EQ(c, got[0]);
    EXPECT_DOUBLE_EQ(got[0]->Value(), kThreads * 200.0);
}

}  // namespace
}  // namespace yuzu::http
