// /metrics against the real server: the documented families are exactly the
// exported ones, and the gauges and counters move with what really happens
// (agents enrolling, MCP calls, audit writes, the process itself).
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "fleet_test_helpers.hpp"

namespace yuzu::testing {
namespace {

using fleet::FleetFixture;
using nlohmann::json;

std::string scrape(httplib::Client& client) {
    auto res = client.Get("/metrics");
    EXPECT_TRUE(res);
    return res ? res->body : "";
}

// family name → type, from the "# TYPE name type" lines.
std::map<std::string, std::string> exported_families(const std::string& text) {
    std::map<std::string, std::string> out;
    static const std::regex kType(R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$)");
    std::istringstream lines(text);
    std::string line;
    std::smatch m;
    while (std::getline(lines, line)) {
        if (std::regex_match(line, m, kType)) out[m[1]] = m[2];
    }
    return out;
}

// family name → type, from the table rows of docs/user-manual/metrics.md:
// "| `name` | type | ...".
std::map<std::string, std::string> documented_families() {
    std::ifstream in(std::string(YUZU_SOURCE_DIR) + "/docs/user-manual/metrics.md");
    EXPECT_TRUE(in) << "docs/user-manual/metrics.md is missing";
    std::map<std::string, std::string> out;
    static const std::regex kRow(R"(^\| `([a-zA-Z_:][a-zA-Z0-9_:]*)` \| (\w+) \|.*)");
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_match(line, m, kRow)) out[m[1]] = m[2];
    }
    return out;
}

// The value of the sample line that starts with `series` + " ", or -1.
double sample(const std::string& text, const std::string& series) {
    const std::string key = "\n" + series + " ";
    const auto at = text.find(key);
    if (at == std::string::npos) return -1;
    return std::stod(text.substr(at + key.size()));
}

TEST(Metrics, TheDocumentedFamiliesAreExactlyTheExportedOnesWithTheirTypes) {
    FleetFixture f;
    const auto exported = exported_families(scrape(*f.client));
    const auto documented = documented_families();
    ASSERT_GT(exported.size(), 20u);
    for (const auto& [name, type] : exported) {
        auto it = documented.find(name);
        EXPECT_NE(it, documented.end()) << name << " is exported but not in metrics.md";
        if (it != documented.end()) {
            EXPECT_EQ(it->second, type) << name;
        }
    }
    for (const auto& [name, type] : documented) {
        EXPECT_TRUE(exported.count(name)) << name << " is in metrics.md but not exported";
    }
}

TEST(Metrics, GaugesAndCountersFollowTheLiveFleetAndMcpCalls) {
    FleetFixture f;
    std::string text = scrape(*f.client);
    EXPECT_EQ(sample(text, R"(yuzu_build_info{version=")" YUZU_VERSION R"("})"), 1) << text;
    EXPECT_GE(sample(text, "process_threads"), 2);
    EXPECT_GT(sample(text, "process_resident_memory_bytes"), 1e6);
    EXPECT_GT(sample(text, "process_open_fds"), 3);
    EXPECT_GT(sample(text, "process_max_fds"), sample(text, "process_open_fds"));
    EXPECT_GT(sample(text, "process_start_time_seconds"), 1.7e9);
    EXPECT_EQ(sample(text, R"(yuzu_agents{state="online"})"), 0);
    EXPECT_EQ(sample(text, "yuzu_executions_in_flight"), 0);
    EXPECT_EQ(sample(text, "yuzu_command_queue_depth"), 0);
    const double audit_writes = sample(text, "yuzu_audit_write_duration_seconds_count");
    EXPECT_GT(audit_writes, 0);  // the bootstrap and the fixture's token creations

    auto agents = f.start_agents(2, f.enrollment_token());
    ASSERT_TRUE(fleet::wait_for([&] { return f.online_count(f.mcp_tokens["readonly"]) == 2; },
                                std::chrono::seconds(20)));
    const json denied = f.mcp(f.mcp_tokens["readonly"], "quarantine_device",
                              {{"agent_id", "x"}, {"reason", "metrics test"}});
    ASSERT_TRUE(denied.contains("error")) << denied.dump();

    text = scrape(*f.client);
    EXPECT_EQ(sample(text, R"(yuzu_agents{state="online"})"), 2) << text;
    EXPECT_EQ(sample(text, R"(yuzu_agents{state="offline"})"), 0);
    EXPECT_GE(sample(text, R"(yuzu_mcp_tool_calls_total{outcome="success",tool="list_agents"})"),
              1);
    EXPECT_EQ(
        sample(text, R"(yuzu_mcp_tool_calls_total{outcome="denied",tool="quarantine_device"})"), 1);
    EXPECT_GT(sample(text, "yuzu_audit_write_duration_seconds_count"), audit_writes);
    EXPECT_EQ(sample(text, "yuzu_audit_write_failures_total"), 0);
    EXPECT_EQ(sample(text, R"(yuzu_store_busy_timeouts_total{db="audit.db"})"), 0) << text;
    // Held long-polls are timed apart from ordinary requests.
    EXPECT_EQ(
        text.find(
            R"(yuzu_http_request_duration_seconds_count{listener="agent",method="GET",route="/agent/v1/commands"})"),
        std::string::npos);
}

}  // namespace
}  // namespace yuzu::testing
