// Real yuzu-agent processes against a server whose agent plane requires
// client certificates: they enroll with a CSR, keep working through an
// engine-key rotation (each renews at its next heartbeat, so the confirm
// strands nobody), and the one whose certificate is revoked goes offline
// while the other stays.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fleet_test_helpers.hpp"
#include "support/child_process.hpp"

namespace yuzu::testing::fleet {
namespace {

using nlohmann::json;

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

json rest(FleetFixture& f, const std::string& method, const std::string& path,
          const json& body = json::object()) {
    auto h = identity::bearer(f.admin_token);
    httplib::Result res = method == "GET" ? f.client->Get(path, h)
                          : method == "POST"
                              ? f.client->Post(path, h, body.dump(), "application/json")
                              : f.client->Delete(path, h);
    EXPECT_TRUE(res) << path;
    if (!res) return json();
    EXPECT_EQ(res->status, 200) << path << " " << res->body;
    return json::parse(res->body, nullptr, false);
}

bool online(FleetFixture& f, const std::string& agent_id) {
    for (const auto& a : f.agents(f.admin_token)) {
        if (a.value("agent_id", "") == agent_id) return a.value("online", false);
    }
    return false;
}

TEST(PkiAgent, AgentsEnrollOverMtlsRenewThroughARotationAndARevokedOneIsShutOut) {
    FleetFixture f({"--agent-mtls", "required"});
    ASSERT_EQ(f.server->agent_url().rfind("https://", 0), 0u);
    const std::string root = f.server->data_dir() + "/pki-root-ca.pem";
    const std::filesystem::path state = f.dir.path() / "mtls-agents";
    ChildProcess agents({bin_path("yuzu-agent"), "--server", f.server->agent_url(), "--state-dir",
                         state.string(), "--virtual", "2", "--ca-file", root},
                        {{"YUZU_AGENT_ENROLLMENT_TOKEN", f.enrollment_token(2)}},
                        state.string() + ".log");
    ASSERT_TRUE(
        wait_for([&] { return f.online_count(f.admin_token) == 2; }, std::chrono::seconds(30)))
        << read_text(state.string() + ".log");
    // Enrolled agents count as seen before they have written their files.
    ASSERT_TRUE(wait_for(
        [&] {
            return std::filesystem::exists(state / "agent-0" / "identity.json") &&
                   std::filesystem::exists(state / "agent-1" / "identity.json");
        },
        std::chrono::seconds(10)));
    for (const char* id : {"agent-0", "agent-1"}) {
        struct stat st {};
        ASSERT_EQ(::stat((state / id / "client.key").c_str(), &st), 0) << id;
        EXPECT_EQ(st.st_mode & 0777, 0600u) << id;
        EXPECT_NE(read_text(state / id / "client.crt").find("BEGIN CERTIFICATE"),
                  std::string::npos);
    }
    const std::string agent0 =
        json::parse(read_text(state / "agent-0" / "identity.json"))["agent_id"];
    const std::string agent1 =
        json::parse(read_text(state / "agent-1" / "identity.json"))["agent_id"];

    // Rotation: both renew at their next heartbeat, then the confirm
    // retires generation 1 and they carry on.
    EXPECT_EQ(rest(f, "POST", "/api/v1/pki/rotation")["to_generation"], 2);
    ASSERT_TRUE(wait_for(
        [&] { return rest(f, "GET", "/api/v1/pki/rotation")["agents_on_old_generation"] == 0; },
        std::chrono::seconds(20)))
        << read_text(state.string() + ".log");
    rest(f, "POST", "/api/v1/pki/rotation/confirm", {{"to_generation", 2}});
    std::this_thread::sleep_for(std::chrono::seconds(kOfflineTimeoutS + 1));
    EXPECT_TRUE(online(f, agent0) && online(f, agent1)) << read_text(state.string() + ".log");

    // Revoke agent-0's current certificate: it is refused from its next
    // connection and goes offline; agent-1 stays online.
    const json certs = rest(f, "GET", "/api/v1/pki/certificates?purpose=agent&agent_id=" + agent0);
    ASSERT_FALSE(certs["items"].empty());
    const std::string serial = certs["items"][0]["serial_hex"];
    EXPECT_EQ(certs["items"][0]["generation"], 2);
    rest(f, "POST", "/api/v1/pki/certificates/" + serial + "/revoke", {{"reason", "test"}});
    EXPECT_TRUE(
        wait_for([&] { return !online(f, agent0); }, std::chrono::seconds(kOfflineTimeoutS + 10)))
        << read_text(state.string() + ".log") << f.server->log();
    EXPECT_TRUE(online(f, agent1));
    auto live = f.client->Get("/livez");
    ASSERT_TRUE(live);
    EXPECT_EQ(live->status, 200);
}

}  // namespace
}  // namespace yuzu::testing::fleet
