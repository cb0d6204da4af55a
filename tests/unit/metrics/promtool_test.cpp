// Feeds Registry::Serialize() output to Prometheus' own checker. Needs
// /usr/bin/promtool from Debian's `prometheus` package; without it the tests
// fail rather than skip, so a missing tool never passes silently.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "support/temp_dir.hpp"
#include "yuzu/metrics/builder.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::metrics {
namespace {

constexpr const char* kPromtool = "/usr/bin/promtool";

struct PromtoolRun {
    int exit_code = -1;
    std::string output;
};

// Runs `promtool check metrics < file` on `exposition` (which also lints).
PromtoolRun CheckMetrics(const std::string& exposition) {
    yuzu::testing::TempDir dir;
    const std::filesystem::path input = dir / "metrics.txt";
    const std::filesystem::path output = dir / "promtool.out";
    std::ofstream(input, std::ios::binary) << exposition;
    const std::string command = std::string(kPromtool) + " check metrics < '" + input.string() +
                                "' > '" + output.string() + "' 2>&1";
    const int status = std::system(command.c_str());
    PromtoolRun run;
    if (status != -1 && WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
    std::ostringstream text;
    text << std::ifstream(output).rdbuf();
    run.output = text.str();
    return run;
}

bool PromtoolInstalled() {
    return std::filesystem::exists(kPromtool);
}

constexpr const char* kInstallHint =
    "/usr/bin/promtool is missing: install Debian's prometheus package "
    "(apt-get install prometheus; scripts/test.sh does this)";

TEST(Promtool, AcceptsEveryTypeWithEscapedLabelsAndHelp) {
    ASSERT_TRUE(PromtoolInstalled()) << kInstallHint;

    Registry registry;
    auto& requests = BuildCounter()
                         .Name("yuzu_http_requests_total")
                         .Help(
                             "HTTP requests served.\nCounted when the response is written; "
                             "path C:\\srv \"quoted\".")
                         .Labels({{"listener", "mgmt"}})
                         .Register(registry);
    requests.Add({{"method", "GET"}, {"code", "200"}}).Increment(41);
    requests.Add({{"method", "POST"}, {"code", "400"}}).Increment();
    requests.Add({{"method", "a \"quoted\" back\\slash\nnewline"}, {"code", "500"}}).Increment(2);
    requests.Add({{"method", "bad utf8 \xFF\xC3"}, {"code", "500"}}).Increment();

    auto& sessions = BuildGauge()
                         .Name("yuzu_mcp_sessions_active")
                         .Help("MCP sessions currently open.")
                         .Register(registry);
    sessions.Add({}).Set(3);
    sessions.Add({{"kind", "nan"}}).Set(std::numeric_limits<double>::quiet_NaN());
    sessions.Add({{"kind", "inf"}}).Set(std::numeric_limits<double>::infinity());
    sessions.Add({{"kind", "tiny"}}).Set(1e-7);

    auto& latency = BuildHistogram()
                        .Name("yuzu_http_request_duration_seconds")
                        .Help("Time to answer an HTTP request, in seconds.")
                        .Register(registry);
    Histogram& get = latency.Add({{"route", "/mcp/v1/"}}, Histogram::DefaultLatencyBuckets());
    for (double v : {0.0004, 0.002, 0.02, 0.3, 1.0, 7.5, 42.0}) get.Observe(v);
    latency.Add({{"route", "/metrics"}}, {0.5, 1});

    BuildCounter()
        .Name("yuzu_mcp_stream_frames_dropped_total")
        .Help("Frames dropped before reaching a connection.")
        .Register(registry);

    const std::string exposition = registry.Serialize();
    ASSERT_NE(exposition.find("\\\"quoted\\\" back\\\\slash\\nnewline"), std::string::npos);
    ASSERT_NE(exposition.find("# HELP yuzu_mcp_stream_frames_dropped_total"), std::string::npos);
    ASSERT_NE(exposition.find("le=\"+Inf\""), std::string::npos);

    const PromtoolRun run = CheckMetrics(exposition);
    EXPECT_EQ(run.exit_code, 0) << "promtool said:\n"
                                << run.output << "\nfor input:\n"
                                << exposition;
}

// Shows the check above can fail: promtool rejects what Prometheus would.
TEST(Promtool, RejectsAMalformedExposition) {
    ASSERT_TRUE(PromtoolInstalled()) << kInstallHint;
    const PromtoolRun run =
        CheckMetrics("# HELP x_total X.\n# TYPE x_total counter\nx_total{a=\"unterminated} 1\n");
    EXPECT_NE(run.exit_code, 0) << run.output;
}

}  // namespace
}  // namespace yuzu::metrics
