// Helpers for fleet integration tests: a server with fast agent timings,
// an admin session and tokens, enrollment tokens, yuzu-agent children, and
// MCP tool calls over real HTTP.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "identity_test_helpers.hpp"
#include "support/child_process.hpp"
#include "support/server_process.hpp"
#include "support/temp_dir.hpp"

namespace yuzu::testing::fleet {

using nlohmann::json;

// Heartbeats every second and offline after three, so tests see state
// changes quickly.
inline constexpr int kOfflineTimeoutS = 3;

inline std::string host_name() {
    char buf[256] = {};
    ::gethostname(buf, sizeof buf - 1);
    return buf;
}

inline std::string kernel_release() {
    utsname u{};
    ::uname(&u);
    return u.release;
}

// Polls `pred` every 100 ms until it holds or `timeout` passes.
inline bool wait_for(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (pred()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return pred();
}

struct FleetFixture {
    explicit FleetFixture(std::vector<std::string> extra_args = {}) {
        auto o = identity::server_options();
        o.args = {"--agent-heartbeat-interval", "1", "--agent-offline-timeout",
                  std::to_string(kOfflineTimeoutS)};
        o.args.insert(o.args.end(), extra_args.begin(), extra_args.end());
        server = std::make_unique<ServerProcess>(o);
        client = std::make_unique<httplib::Client>(server->base_url());
        client->set_read_timeout(30, 0);
        admin = identity::login(*client, "admin", identity::kAdminPassword);
        admin_token = identity::create_token(*client, admin, "fleet-admin");
        const int64_t expires = identity::now_s() + 7 * 86400;
        for (const char* tier : {"readonly", "operator", "supervised"}) {
            mcp_tokens[tier] =
                identity::create_token(*client, admin, std::string("mcp-") + tier, tier, expires);
        }
    }

    // A fresh enrollment token from POST /api/v1/enrollment-tokens.
    std::string enrollment_token(int max_uses = 0) {
        json body = json::object();
        if (max_uses > 0) body["max_uses"] = max_uses;
        auto res = client->Post("/api/v1/enrollment-tokens", identity::bearer(admin_token),
                                body.dump(), "application/json");
        EXPECT_TRUE(res);
        if (!res) return "";
        EXPECT_EQ(res->status, 201) << res->body;
        auto j = json::parse(res->body);
        EXPECT_TRUE(j.contains("id") && j.contains("expires_at"));
        return j.value("token", "");
    }

    // Enrolls one agent by hand on the agent plane (no yuzu-agent process)
    // and returns its device token, for tests that send their own bodies.
    std::string enroll_raw_agent(const std::string& hostname) {
        httplib::Client agent_plane(server->agent_url());
        auto res = agent_plane.Post("/agent/v1/enroll",
                                    json{{"enrollment_token", enrollment_token()},
                                         {"hostname", hostname},
                                         {"os", "linux"},
                                         {"arch", "x86_64"},
                                         {"agent_version", "test"}}
                                        .dump(),
                                    "application/json");
        EXPECT_TRUE(res);
        if (!res) return "";
        EXPECT_EQ(res->status, 201) << res->body;
        EXPECT_EQ(res->get_header_value("Cache-Control"), "no-store");
        return json::parse(res->body, nullptr, false).value("device_token", "");
    }

    // yuzu-agent --virtual n against this server, state under a temp dir.
    std::unique_ptr<ChildProcess> start_agents(int n, const std::string& token) {
        const std::string state =
            (dir.path() / ("agents-" + std::to_string(++agent_runs))).string();
        std::vector<std::string> argv = {bin_path("yuzu-agent"), "--server", server->agent_url(),
                                         "--state-dir",          state,      "--virtual",
                                         std::to_string(n)};
        return std::make_unique<ChildProcess>(
            argv, std::map<std::string, std::string>{{"YUZU_AGENT_ENROLLMENT_TOKEN", token}},
            state + ".log");
    }

    // One JSON-RPC tools/call; the whole response object.
    json mcp(const std::string& token, const std::string& tool, json args = json::object()) {
        json body = {{"jsonrpc", "2.0"},
                     {"id", ++rpc_id},
                     {"method", "tools/call"},
                     {"params", {{"name", tool}, {"arguments", std::move(args)}}}};
        httplib::Headers h{{"Accept", "application/json, text/event-stream"},
                           {"Authorization", "Bearer " + token}};
        auto res = client->Post("/mcp/v1/", h, body.dump(), "application/json");
        EXPECT_TRUE(res);
        if (!res) return json();
        EXPECT_EQ(res->status, 200) << res->body;
        return json::parse(res->body, nullptr, false);
    }

    // structuredContent of a successful call (fails the test otherwise).
    json mcp_ok(const std::string& token, const std::string& tool, json args = json::object()) {
        json r = mcp(token, tool, std::move(args));
        EXPECT_TRUE(r.contains("result")) << tool << ": " << r.dump();
        if (!r.contains("result")) return json();
        EXPECT_FALSE(r["result"].value("isError", false)) << r.dump();
        return r["result"]["structuredContent"];
    }

    // The agents list_agents shows to `token`.
    json agents(const std::string& token) {
        json sc = mcp_ok(token, "list_agents");
        return sc.is_object() ? sc["agents"] : json::array();
    }

    size_t online_count(const std::string& token) {
        size_t n = 0;
        for (const auto& a : agents(token)) n += a.value("online", false) ? 1 : 0;
        return n;
    }

    TempDir dir;
    std::unique_ptr<ServerProcess> server;
    std::unique_ptr<httplib::Client> client;
    identity::Session admin;
    std::string admin_token;
    std::map<std::string, std::string> mcp_tokens;
    int rpc_id = 0;
    int agent_runs = 0;
};

}  // namespace yuzu::testing::fleet
