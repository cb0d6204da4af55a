#include "yuzu/metrics/family.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace yuzu::metrics {
namespace {

TEST(Family, SameLabelsReturnTheSameObject) {
    Family<Counter> family("requests_total", "Requests.", {});
    Counter& a = family.Add({{"method", "GET"}, {"code", "200"}});
    Counter& b = family.Add({{"code", "200"}, {"method", "GET"}});
    EXPECT_EQ(&a, &b);
    a.Increment();
    EXPECT_EQ(b.Value(), 1.0);
}

TEST(Family, DifferentLabelsReturnDifferentObjects) {
    Family<Gauge> family("g", "G.", {});
    Gauge& get = family.Add({{"method", "GET"}});
    Gauge& post = family.Add({{"method", "POST"}});
    Gauge& none = family.Add({});
    EXPECT_NE(&get, &post);
    EXPECT_NE(&get, &none);
    EXPECT_TRUE(family.Has({{"method", "GET"}}));
    EXPECT_FALSE(family.Has({{"method", "PUT"}}));
}

TEST(Family, ReferencesStayValidWhileManySeriesAreAdded) {
    Family<Counter> family("c_total", "C.", {});
    Counter& first = family.Add({{"i", "first"}});
    std::vector<Counter*> all;
    for (int i = 0; i < 1000; ++i) all.push_back(&family.Add({{"i", std::to_string(i)}}));
    first.Increment(7);
    EXPECT_EQ(&family.Add({{"i", "first"}}), &first);
    EXPECT_EQ(family.Add({{"i", "first"}}).Value(), 7.0);
    for (int i = 0; i < 1000; ++i) EXPECT_EQ(&family.Add({{"i", std::to_string(i)}}), all[i]);
}

TEST(Family, HistogramSeriesUseTheirOwnBuckets) {
    Family<Histogram> family("latency_seconds", "L.", {});
    Histogram& fast = family.Add({{"route", "a"}}, {0.1, 0.2});
    Histogram& slow = family.Add({{"route", "b"}}, Histogram::DefaultLatencyBuckets());
    EXPECT_EQ(fast.Bounds(), (std::vector<double>{0.1, 0.2}));
    EXPECT_EQ(slow.Bounds(), Histogram::DefaultLatencyBuckets());
    // An existing series keeps the buckets it was created with.
    EXPECT_EQ(&family.Add({{"route", "a"}}, {5.0}), &fast);
    EXPECT_EQ(fast.Bounds(), (std::vector<double>{0.1, 0.2}));
}

TEST(Family, SerializesHeaderThenSeriesInLabelOrder) {
    Family<Counter> family("hits_total", "Hits.", {});
    family.Add({{"path", "/z"}}).Increment(1);
    family.Add({{"path", "/a"}}).Increment(2);
    family.Add({}).Increment(3);
    std::string out;
    family.SerializeTo(out);
    EXPECT_EQ(out,
              "# HELP hits_total Hits.\n"
              "# TYPE hits_total counter\n"
              "hits_total 3\n"
              "hits_total{path=\"/a\"} 2\n"
              "hits_total{path=\"/z\"} 1\n");
}

TEST(Family, ConstantLabelsMergeIntoEverySeriesInNameOrder) {
    Family<Gauge> family("g", "G.", {{"instance", "i1"}, {"zone", "z"}});
    family.Add({{"kind", "k"}}).Set(1);
    family.Add({}).Set(2);
    std::string out;
    family.SerializeTo(out);
    EXPECT_EQ(out,
              "# HELP g G.\n"
              "# TYPE g gauge\n"
              "g{instance=\"i1\",zone=\"z\"} 2\n"
              "g{instance=\"i1\",kind=\"k\",zone=\"z\"} 1\n");
}

TEST(Family, RemoveStopsExportingButKeepsTheObjectAlive) {
    Family<Counter> family("c_total", "C.", {});
    Counter& doomed = family.Add({{"k", "old"}});
    doomed.Increment(5);
    family.Add({{"k", "kept"}}).Increment(1);
    family.Remove(&doomed);
    EXPECT_FALSE(family.Has({{"k", "old"}}));
    doomed.Increment();  // still valid memory: a racing thread may hold it
    EXPECT_EQ(doomed.Value(), 6.0);

    std::string out;
    family.SerializeTo(out);
    EXPECT_EQ(out.find("old"), std::string::npos) << out;
    EXPECT_NE(out.find("c_total{k=\"kept\"} 1\n"), std::string::npos) << out;

    Counter& fresh = family.Add({{"k", "old"}});
    EXPECT_NE(&fresh, &doomed);
    EXPECT_EQ(fresh.Value(), 0.0);
}

TEST(Family, RemoveOfAnUnknownMetricIsIgnored) {
    Family<Counter> family("c_total", "C.", {});
    family.Add({}).Increment();
    Counter stranger;
    family.Remove(&stranger);
    family.Remove(nullptr);
    EXPECT_TRUE(family.Has({}));
}

TEST(Family, HistogramSeriesPrintBucketsSumAndCount) {
    Family<Histogram> family("d_seconds", "D.", {});
    Histogram& h = family.Add({{"m", "GET"}}, {0.005, 1, 2.5});
    h.Observe(0.00390625);  // 2^-8: keeps the sum exact in binary
    h.Observe(0.5);
    h.Observe(2.5);
    h.Observe(30);
    std::string out;
    family.SerializeTo(out);
    EXPECT_EQ(out,
              "# HELP d_seconds D.\n"
              "# TYPE d_seconds histogram\n"
              "d_seconds_bucket{m=\"GET\",le=\"0.005\"} 1\n"
              "d_seconds_bucket{m=\"GET\",le=\"1\"} 2\n"
              "d_seconds_bucket{m=\"GET\",le=\"2.5\"} 3\n"
              "d_seconds_bucket{m=\"GET\",le=\"+Inf\"} 4\n"
              "d_seconds_sum{m=\"GET\"} 33.00390625\n"
              "d_seconds_count{m=\"GET\"} 4\n");
}

TEST(FamilyDeathTest, InvalidLabelNamesAreAProgrammingError) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    Family<Counter> counters("c_total", "C.", {{"const", "x"}});
    Family<Histogram> histograms("h", "H.", {});
    EXPECT_DEBUG_DEATH(counters.Add({{"bad-name", "x"}}), "label names");
    EXPECT_DEBUG_DEATH(counters.Add({{"__reserved", "x"}}), "label names");
    EXPECT_DEBUG_DEATH(counters.Add({{"const", "again"}}), "constant label");
    EXPECT_DEBUG_DEATH(histograms.Add({{"le", "1"}}, {1.0}), "le");
    EXPECT_DEBUG_DEATH(Family<Gauge>("g", "G.", {{"9lives", "x"}}), "label names");
    EXPECT_DEBUG_DEATH(Family<Histogram>("h2", "H.", {{"le", "x"}}), "le");
    EXPECT_DEBUG_DEATH(Family<Gauge>("bad name", "G.", {}), "metric names");
}

}  // namespace
}  // namespace yuzu::metrics
