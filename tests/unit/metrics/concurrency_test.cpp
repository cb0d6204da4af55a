// Registry, families and metrics used from many threads at once. These tests
// are meant to run under -DYUZU_SANITIZE=thread as well as address,undefined.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "yuzu/metrics/builder.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::metrics {
namespace {

constexpr int kThreads = 8;
constexpr int kIterations = 10'000;

// The sample value of the first line starting with `series + " "`, or -1.
double SampleValue(const std::string& exposition, const std::string& series) {
    std::istringstream lines(exposition);
    for (std::string line; std::getline(lines, line);) {
        if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
            line[series.size()] == ' ') {
            return std::stod(line.substr(series.size() + 1));
        }
    }
    return -1;
}

// Runs `serialize` in a loop on its own thread until `work` (run on kThreads
// threads, each given its index) is finished; returns how many scrapes ran.
template <typename Work, typename Serialize>
int RunWithConcurrentScrapes(Work work, Serialize serialize) {
    std::atomic<bool> done{false};
    std::atomic<int> scrapes{0};
    std::thread scraper([&] {
        do {
            serialize();
            scrapes.fetch_add(1);
        } while (!done.load());
    });
    std::vector<std::thread> workers;
    for (int t = 0; t < kThreads; ++t) workers.emplace_back([&work, t] { work(t); });
    for (auto& worker : workers) worker.join();
    done.store(true);
    scraper.join();
    return scrapes.load();
}

TEST(Concurrency, EightThreadsIncrementingOneSeriesLoseNothing) {
    Registry registry;
    auto& family = BuildCounter().Name("hits_total").Help("Hits.").Register(registry);
    Counter& held = family.Add({{"k", "v"}});
    double last_seen = 0;
    bool went_backwards = false;

    const int scrapes = RunWithConcurrentScrapes(
        [&](int t) {
            for (int i = 0; i < kIterations; ++i) {
                // Half the threads look the series up every time, half hold it.
                if (t % 2 == 0) {
                    family.Add({{"k", "v"}}).Increment();
                } else {
                    held.Increment();
                }
            }
        },
        [&] {
            const double seen = SampleValue(registry.Serialize(), "hits_total{k=\"v\"}");
            if (seen < last_seen) went_backwards = true;
            last_seen = seen;
        });

    EXPECT_GE(scrapes, 1);
    EXPECT_FALSE(went_backwards);
    EXPECT_EQ(held.Value(), 80000.0);
    EXPECT_NE(registry.Serialize().find("\nhits_total{k=\"v\"} 80000\n"), std::string::npos);
}

TEST(Concurrency, GaugeIncrementsAndDecrementsBalance) {
    Registry registry;
    Gauge& gauge = BuildGauge().Name("open").Help("Open.").Register(registry).Add({});
    RunWithConcurrentScrapes(
        [&](int) {
            for (int i = 0; i < kIterations; ++i) {
                gauge.Increment(2);
                gauge.Decrement();
            }
        },
        [&] { registry.Serialize(); });
    EXPECT_EQ(gauge.Value(), 80000.0);
}

TEST(Concurrency, HistogramScrapesStayConsistentWhileObserved) {
    Registry registry;
    auto& family = BuildHistogram().Name("d_seconds").Help("D.").Register(registry);
    Histogram& histogram = family.Add({}, {1.0});
    bool inconsistent = false;

    RunWithConcurrentScrapes(
        [&](int) {
            for (int i = 0; i < kIterations; ++i) histogram.Observe(i % 2 == 0 ? 0.5 : 2.0);
        },
        [&] {
            const std::string out = registry.Serialize();
            const double le_one = SampleValue(out, "d_seconds_bucket{le=\"1\"}");
            const double le_inf = SampleValue(out, "d_seconds_bucket{le=\"+Inf\"}");
            const double count = SampleValue(out, "d_seconds_count");
            if (le_one > le_inf || le_inf != count) inconsistent = true;
        });

    EXPECT_FALSE(inconsistent);
    const HistogramSnapshot s = histogram.Snapshot();
    EXPECT_EQ(s.count, 80000u);
    EXPECT_EQ(s.cumulative_counts, (std::vector<uint64_t>{40000, 80000}));
    EXPECT_EQ(s.sum, 40000 * 0.5 + 40000 * 2.0);
}

TEST(Concurrency, FamiliesAndSeriesCanBeAddedWhileSerializing) {
    Registry registry;
    std::vector<Family<Counter>*> shared(kThreads, nullptr);

    RunWithConcurrentScrapes(
        [&](int t) {
            // Every thread registers the same family and one of its own.
            shared[t] = &BuildCounter().Name("shared_total").Help("S.").Register(registry);
            auto& own = BuildGauge().Name("own_" + std::to_string(t)).Help("O.").Register(registry);
            for (int i = 0; i < 200; ++i) {
                shared[t]->Add({{"series", std::to_string(i)}}).Increment();
                own.Add({{"i", std::to_string(i)}}).Set(i);
            }
        },
        [&] { registry.Serialize(); });

    for (auto* family : shared) EXPECT_EQ(family, shared[0]);
    const std::string out = registry.Serialize();
    for (int i = 0; i < 200; ++i) {
        EXPECT_EQ(SampleValue(out, "shared_total{series=\"" + std::to_string(i) + "\"}"), kThreads);
    }
    for (int t = 0; t < kThreads; ++t) {
        EXPECT_EQ(SampleValue(out, "own_" + std::to_string(t) + "{i=\"199\"}"), 199);
    }
}

TEST(Concurrency, RemoveWhileOtherThreadsIncrementIsSafe) {
    Registry registry;
    auto& family = BuildCounter().Name("c_total").Help("C.").Register(registry);
    std::vector<Counter*> counters;
    for (int t = 0; t < kThreads; ++t) counters.push_back(&family.Add({{"t", std::to_string(t)}}));

    RunWithConcurrentScrapes(
        [&](int t) {
            for (int i = 0; i < kIterations; ++i) {
                counters[t]->Increment();
                if (i == kIterations / 2) family.Remove(counters[(t + 1) % kThreads]);
            }
        },
        [&] { registry.Serialize(); });

    for (Counter* counter : counters) EXPECT_EQ(counter->Value(), kIterations);
    EXPECT_EQ(registry.Serialize(), "# HELP c_total C.\n# TYPE c_total counter\n");
}

}  // namespace
}  // namespace yuzu::metrics
