// Helpers shared by the approval integration tests: a server with the admin
// as submitter (a supervised MCP token) and a second administrator, "rita",
// as reviewer (reviewer ≠ submitter), who holds an active TOTP factor and a
// fresh step-up proof on her web session; MCP calls and REST decisions.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "identity_test_helpers.hpp"
#include "support/server_process.hpp"

namespace yuzu::testing::approvals {

using identity::bearer;
using identity::kAdminPassword;
using identity::now_s;
using identity::Session;
using nlohmann::json;

inline constexpr char kReviewer[] = "rita";
inline constexpr char kReviewerPassword[] = "rita-reviews-requests";

inline json rpc_call(const std::string& tool, const json& arguments, int id = 1) {
    return {{"jsonrpc", "2.0"},
            {"id", id},
            {"method", "tools/call"},
            {"params", {{"name", tool}, {"arguments", arguments}}}};
}

inline httplib::Headers mcp_headers(const std::string& token) {
    return {{"Accept", "application/json, text/event-stream"},
            {"Authorization", "Bearer " + token}};
}

// Enrols and activates a TOTP factor for the session's user, then records a
// step-up proof on the session. Answers the factor's secret.
inline std::string enrol_and_verify(httplib::Client& c, const Session& s) {
    auto enrolled = c.Post("/api/v1/mfa/totp/enroll", s.headers(), "", "application/json");
    EXPECT_TRUE(enrolled);
    if (!enrolled || enrolled->status != 200) return "";
    const std::string secret = json::parse(enrolled->body)["secret"];
    const int64_t t = now_s();
    auto activated =
        c.Post("/api/v1/mfa/totp/activate", s.headers(),
               json{{"code", identity::totp_code(secret, t)}}.dump(), "application/json");
    EXPECT_TRUE(activated);
    EXPECT_EQ(activated->status, 204) << activated->body;
    // A code is never accepted twice: the proof uses the next time step.
    auto verified =
        c.Post("/api/v1/mfa/verify", s.headers(),
               json{{"code", identity::totp_code(secret, t + 30)}}.dump(), "application/json");
    EXPECT_TRUE(verified);
    EXPECT_EQ(verified->status, 200) << verified->body;
    return secret;
}

struct ApprovalFixture {
    explicit ApprovalFixture(std::vector<std::string> extra_args = {}) {
        ServerProcess::Options options = identity::server_options();
        options.args = std::move(extra_args);
        server = std::make_unique<ServerProcess>(options);
        client = std::make_unique<httplib::Client>(server->base_url());
        client->set_read_timeout(60, 0);
        admin = identity::login(*client, "admin", kAdminPassword);
        admin_api = identity::create_token(*client, admin, "admin-api");
        supervised =
            identity::create_token(*client, admin, "admin-mcp", "supervised", now_s() + 86400);
        identity::create_user(*client, admin_api, kReviewer, kReviewerPassword, {"Administrator"});
        reviewer = identity::login(*client, kReviewer, kReviewerPassword);
    }

    // One JSON-RPC tools/call with `token`; the parsed response.
    json mcp(const std::string& token, const std::string& tool, const json& arguments) {
        auto res = client->Post("/mcp/v1/", mcp_headers(token), rpc_call(tool, arguments).dump(),
                                "application/json");
        EXPECT_TRUE(res);
        if (!res) return json();
        EXPECT_EQ(res->status, 200) << res->body;
        return json::parse(res->body);
    }

    // The first call of a gated tool: the minted approval_id.
    std::string mint(const std::string& tool, const json& arguments) {
        const json r = mcp(supervised, tool, arguments);
        EXPECT_EQ(r["error"]["code"], -32006) << r.dump();
        return r["error"]["data"].value("approval_id", "");
    }

    httplib::Result decide(const httplib::Headers& h, const std::string& id,
                           const std::string& verb = "approve",
                           const std::string& prefix = "/api/v1/approvals/") {
        return client->Post(prefix + id + "/" + verb, h, json{{"comment", "ok"}}.dump(),
                            "application/json");
    }

    // Approvals submitted by the admin, every state.
    size_t approvals_of_admin() {
        auto res = client->Get("/api/v1/approvals?submitted_by=admin&limit=500", bearer(admin_api));
        EXPECT_TRUE(res);
        if (!res) return 0;
        EXPECT_EQ(res->status, 200) << res->body;
        return json::parse(res->body)["approvals"].size();
    }

    size_t groups_named(const std::string& name) {
        auto res = client->Get("/api/v1/management-groups", bearer(admin_api));
        EXPECT_TRUE(res);
        if (!res) return 0;
        EXPECT_EQ(res->status, 200) << res->body;
        size_t n = 0;
        const json body = json::parse(res->body);
        for (const auto& g : body["groups"]) n += g["name"] == name ? 1 : 0;
        return n;
    }

    std::unique_ptr<ServerProcess> server;
    std::unique_ptr<httplib::Client> client;
    Session admin;
    Session reviewer;
    std::string admin_api;   // the admin's plain API token
    std::string supervised;  // the admin's supervised MCP token: the submitter
};

}  // namespace yuzu::testing::approvals
