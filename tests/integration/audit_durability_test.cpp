// The audit row is on disk before the answer: yuzu-server killed with
// SIGKILL in the middle of a tools/call load keeps, in audit.db, the row of
// every call a client saw answered (group commit writes several callers'
// rows in one fsynced transaction, and each caller answers only after it).
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fleet_test_helpers.hpp"

namespace yuzu::testing {
namespace {

using fleet::FleetFixture;
using nlohmann::json;
using namespace std::chrono_literals;

// Every correlation id audit.db holds for mcp.validate_scope, read with the
// sqlite3 shell as an operator would after the crash.
std::set<std::string> audited_correlation_ids(const std::string& data_dir) {
    std::string out;
    const int rc = run_command({"/usr/bin/sqlite3", data_dir + "/audit.db",
                                "SELECT correlation_id FROM audit_events "
                                "WHERE action = 'mcp.validate_scope'"},
                               &out);
    EXPECT_EQ(rc, 0) << out;
    std::set<std::string> ids;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty()) ids.insert(line);
    }
    return ids;
}

TEST(AuditDurability, KillNineUnderLoadLosesNoAnsweredRow) {
    FleetFixture f;
    const std::string token = f.mcp_tokens["readonly"];
    const std::string data_dir = f.server->data_dir();
    constexpr int kClients = 8;
    constexpr int kAnsweredBeforeKill = 200;

    std::atomic<int> answered{0};
    std::atomic<bool> stop{false};
    std::mutex mu;
    std::vector<std::string> answered_ids;  // guarded by mu
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c) {
        clients.emplace_back([&, c] {
            httplib::Client client(f.server->base_url());
            client.set_read_timeout(10, 0);
            const httplib::Headers h{{"Accept", "application/json, text/event-stream"},
                                     {"Authorization", "Bearer " + token}};
            for (int i = 0; !stop.load(); ++i) {
                const json body = {{"jsonrpc", "2.0"},
                                   {"id", c * 1'000'000 + i},
                                   {"method", "tools/call"},
                                   {"params",
                                    {{"name", "validate_scope"},
                                     {"arguments", {{"expression", "os = \"linux\""}}}}}};
                auto res = client.Post("/mcp/v1/", h, body.dump(), "application/json");
                if (!res) return;  // the server is gone
                if (res->status != 200) continue;
                const json answer = json::parse(res->body, nullptr, false);
                if (!answer.is_object() || !answer.contains("result")) continue;
                const std::string cid = res->get_header_value("X-Correlation-Id");
                if (cid.empty()) continue;
                std::lock_guard<std::mutex> lock(mu);
                answered_ids.push_back(cid);
                ++answered;
            }
        });
    }
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (answered.load() < kAnsweredBeforeKill && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(5ms);
    }
    ASSERT_GE(answered.load(), kAnsweredBeforeKill) << f.server->log();
    // Mid-load: requests are in flight on every client connection.
    EXPECT_EQ(f.server->signal_and_wait(SIGKILL), 128 + SIGKILL);
    stop = true;
    for (auto& t : clients) t.join();

    const std::set<std::string> on_disk = audited_correlation_ids(data_dir);
    std::vector<std::string> lost;
    {
        std::lock_guard<std::mutex> lock(mu);
        for (const auto& cid : answered_ids) {
            if (on_disk.count(cid) == 0) lost.push_back(cid);
        }
        EXPECT_GE(answered_ids.size(), static_cast<size_t>(kAnsweredBeforeKill));
    }
    EXPECT_TRUE(lost.empty()) << lost.size() << " answered call(s) have no audit row, e.g. "
                              << lost.front();

    // The store opens cleanly after the crash and the server serves again.
    auto o = identity::server_options();
    o.data_dir = data_dir;
    ServerProcess restarted(o);
    ASSERT_TRUE(restarted.wait_ready()) << restarted.log();
    httplib::Client probe(restarted.base_url());
    auto live = probe.Get("/livez");
    ASSERT_TRUE(live);
    EXPECT_EQ(live->status, 200);
    EXPECT_GE(audited_correlation_ids(data_dir).size(), on_disk.size());
}

}  // namespace
}  // namespace yuzu::testing
