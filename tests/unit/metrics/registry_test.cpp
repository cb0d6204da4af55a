#include "yuzu/metrics/registry.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "yuzu/metrics/builder.hpp"

namespace yuzu::metrics {
namespace {

size_t CountOccurrences(const std::string& text, const std::string& needle) {
    size_t count = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
        ++count;
    }
    return count;
}

TEST(Registry, EmptyRegistrySerializesToNothing) {
    Registry registry;
    EXPECT_EQ(registry.Serialize(), "");
}

TEST(Registry, FamilyWithoutSeriesStillPrintsHelpAndType) {
    Registry registry;
    BuildGauge().Name("yuzu_mcp_sessions_active").Help("Open MCP sessions.").Register(registry);
    EXPECT_EQ(registry.Serialize(),
              "# HELP yuzu_mcp_sessions_active Open MCP sessions.\n"
              "# TYPE yuzu_mcp_sessions_active gauge\n");
}

TEST(Registry, SerializesAllThreeTypesSortedByFamilyName) {
    Registry registry;
    auto& requests = BuildCounter()
                         .Name("yuzu_http_requests_total")
                         .Help("HTTP requests served.")
                         .Register(registry);
    auto& sessions =
        BuildGauge().Name("yuzu_mcp_sessions_active").Help("Open sessions.").Register(registry);
    auto& latency = BuildHistogram()
                        .Name("yuzu_http_request_duration_seconds")
                        .Help("Request latency.")
                        .Register(registry);
    requests.Add({{"method", "GET"}, {"code", "200"}}).Increment(3);
    sessions.Add({}).Set(2);
    latency.Add({}, {0.5, 1}).Observe(0.75);

    EXPECT_EQ(registry.Serialize(),
              "# HELP yuzu_http_request_duration_seconds Request latency.\n"
              "# TYPE yuzu_http_request_duration_seconds histogram\n"
              "yuzu_http_request_duration_seconds_bucket{le=\"0.5\"} 0\n"
              "yuzu_http_request_duration_seconds_bucket{le=\"1\"} 1\n"
              "yuzu_http_request_duration_seconds_bucket{le=\"+Inf\"} 1\n"
              "yuzu_http_request_duration_seconds_sum 0.75\n"
              "yuzu_http_request_duration_seconds_count 1\n"
              "# HELP yuzu_http_requests_total HTTP requests served.\n"
              "# TYPE yuzu_http_requests_total counter\n"
              "yuzu_http_requests_total{code=\"200\",method=\"GET\"} 3\n"
              "# HELP yuzu_mcp_sessions_active Open sessions.\n"
              "# TYPE yuzu_mcp_sessions_active gauge\n"
              "yuzu_mcp_sessions_active 2\n");
}

TEST(Registry, HelpAndTypeAppearOncePerFamily) {
    Registry registry;
    auto& family = BuildCounter().Name("x_total").Help("X.").Register(registry);
    for (int i = 0; i < 5; ++i) family.Add({{"i", std::to_string(i)}}).Increment();
    const std::string out = registry.Serialize();
    EXPECT_EQ(CountOccurrences(out, "# HELP x_total "), 1u) << out;
    EXPECT_EQ(CountOccurrences(out, "# TYPE x_total "), 1u) << out;
    EXPECT_EQ(CountOccurrences(out, "\nx_total{"), 5u) << out;
}

TEST(Registry, HelpEscapesBackslashAndNewline) {
    Registry registry;
    BuildCounter().Name("c_total").Help("Path C:\\tmp\nsecond line").Register(registry);
    EXPECT_EQ(registry.Serialize(),
              "# HELP c_total Path C:\\\\tmp\\nsecond line\n"
              "# TYPE c_total counter\n");
}

TEST(Registry, LabelValuesEscapeBackslashQuoteAndNewline) {
    Registry registry;
    auto& family = BuildCounter().Name("c_total").Help("C.").Register(registry);
    family.Add({{"v", "back\\slash \"quoted\"\nnext"}}).Increment();
    EXPECT_EQ(registry.Serialize(),
              "# HELP c_total C.\n"
              "# TYPE c_total counter\n"
              "c_total{v=\"back\\\\slash \\\"quoted\\\"\\nnext\"} 1\n");
}

TEST(Registry, CounterNamesArePrintedAsGiven) {
    Registry registry;
    BuildCounter().Name("ends_total").Help("A.").Register(registry).Add({}).Increment();
    BuildCounter().Name("no_suffix").Help("B.").Register(registry).Add({}).Increment();
    const std::string out = registry.Serialize();
    EXPECT_NE(out.find("\nends_total 1\n"), std::string::npos) << out;
    EXPECT_NE(out.find("# TYPE no_suffix counter\nno_suffix 1\n"), std::string::npos) << out;
    EXPECT_EQ(out.find("ends_total_total"), std::string::npos) << out;
    EXPECT_EQ(out.find("no_suffix_total"), std::string::npos) << out;
}

TEST(Registry, ConstantLabelsFromTheBuilderAppearOnEverySeries) {
    Registry registry;
    auto& family =
        BuildGauge().Name("g").Help("G.").Labels({{"listener", "mgmt"}}).Register(registry);
    family.Add({{"a", "1"}}).Set(1);
    family.Add({{"z", "2"}}).Set(2);
    EXPECT_EQ(registry.Serialize(),
              "# HELP g G.\n"
              "# TYPE g gauge\n"
              "g{a=\"1\",listener=\"mgmt\"} 1\n"
              "g{listener=\"mgmt\",z=\"2\"} 2\n");
}

TEST(Registry, SpecialValuesAreSpelledForPrometheus) {
    Registry registry;
    auto& family = BuildGauge().Name("g").Help("G.").Register(registry);
    family.Add({{"v", "nan"}}).Set(std::numeric_limits<double>::quiet_NaN());
    family.Add({{"v", "neg"}}).Set(-std::numeric_limits<double>::infinity());
    family.Add({{"v", "pos"}}).Set(std::numeric_limits<double>::infinity());
    family.Add({{"v", "big"}}).Set(1000000);
    EXPECT_EQ(registry.Serialize(),
              "# HELP g G.\n"
              "# TYPE g gauge\n"
              "g{v=\"big\"} 1000000\n"
              "g{v=\"nan\"} NaN\n"
              "g{v=\"neg\"} -Inf\n"
              "g{v=\"pos\"} +Inf\n");
}

TEST(Registry, SameNameAndTypeReturnsTheSameFamily) {
    Registry registry;
    auto& a = BuildCounter().Name("c_total").Help("C.").Register(registry);
    auto& b = BuildCounter().Name("c_total").Help("C.").Register(registry);
    EXPECT_EQ(&a, &b);
    a.Add({}).Increment();
    EXPECT_EQ(CountOccurrences(registry.Serialize(), "# TYPE c_total"), 1u);
}

TEST(Registry, OutputIsDeterministicWhateverTheRegistrationOrder) {
    const auto fill = [](Registry& registry, bool reversed) {
        const std::vector<std::string> names = {"alpha_total", "mid_total", "zeta_total"};
        const std::vector<std::string> paths = {"/x", "/a", "/m", "/b"};
        for (size_t n = 0; n < names.size(); ++n) {
            const std::string& name = names[reversed ? names.size() - 1 - n : n];
            auto& family = BuildCounter().Name(name).Help("H.").Register(registry);
            for (size_t p = 0; p < paths.size(); ++p) {
                const std::string& path = paths[reversed ? paths.size() - 1 - p : p];
                family.Add({{"path", path}, {"code", "200"}}).Increment(2);
            }
        }
    };
    Registry forward;
    Registry backward;
    fill(forward, false);
    fill(backward, true);
    const std::string out = forward.Serialize();
    EXPECT_EQ(out, backward.Serialize());
    EXPECT_EQ(out, forward.Serialize());
    EXPECT_LT(out.find("alpha_total"), out.find("mid_total"));
    EXPECT_LT(out.find("mid_total"), out.find("zeta_total"));
    EXPECT_LT(out.find("alpha_total{code=\"200\",path=\"/a\"}"),
              out.find("alpha_total{code=\"200\",path=\"/b\"}"));
    EXPECT_LT(out.find("alpha_total{code=\"200\",path=\"/m\"}"),
              out.find("alpha_total{code=\"200\",path=\"/x\"}"));
}

TEST(RegistryDeathTest, SameNameWithAnotherTypeIsAProgrammingError) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    Registry registry;
    BuildCounter().Name("clash").Help("C.").Register(registry).Add({}).Increment();
    EXPECT_DEBUG_DEATH(BuildGauge().Name("clash").Help("G.").Register(registry), "different types");
    // In release builds the clashing family works but is never exported.
    EXPECT_EQ(registry.Serialize(),
              "# HELP clash C.\n"
              "# TYPE clash counter\n"
              "clash 1\n");
}

TEST(RegistryDeathTest, SameNameWithOtherConstantLabelsIsAProgrammingError) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    Registry registry;
    BuildCounter().Name("c_total").Help("C.").Labels({{"a", "1"}}).Register(registry);
    EXPECT_DEBUG_DEATH(
        BuildCounter().Name("c_total").Help("C.").Labels({{"a", "2"}}).Register(registry),
        "constant labels");
}

TEST(RegistryDeathTest, InvalidMetricNameIsAProgrammingError) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    Registry registry;
    EXPECT_DEBUG_DEATH(BuildCounter().Name("bad-name").Help("C.").Register(registry),
                       "metric names");
}

}  // namespace
}  // namespace yuzu::metrics
