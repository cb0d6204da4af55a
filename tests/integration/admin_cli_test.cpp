// `yuzu-server token create` and `yuzu-server user add` beside a running
// server: what they print works at once, every use is audited, and bad input
// exits 2 without side effects.
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "fleet_test_helpers.hpp"
#include "support/temp_dir.hpp"

namespace yuzu::testing {
namespace {

using fleet::FleetFixture;
using nlohmann::json;

int yuzu_server(const std::vector<std::string>& args, std::string* out,
                const std::map<std::string, std::string>& env = {}) {
    std::vector<std::string> argv = {bin_path("yuzu-server")};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv, out, env);
}

TEST(AdminCli, TheTopLevelHelpListsEverySubCommand) {
    std::string out;
    ASSERT_EQ(yuzu_server({"--help"}, &out), 0) << out;
    for (const char* sub : {"enroll-token create", "token create", "user add", "user unlock"}) {
        EXPECT_NE(out.find(sub), std::string::npos) << sub << " missing from:\n" << out;
    }
    ASSERT_EQ(yuzu_server({"token", "create", "--help"}, &out), 0) << out;
    EXPECT_NE(out.find("--tier"), std::string::npos) << out;
}

TEST(AdminCli, ADataDirTheServerNeverStartedInIsRefusedWithoutCreatingAnything) {
    TempDir dir;
    std::string out;
    EXPECT_EQ(yuzu_server({"token", "create", "--data-dir", dir.path().string()}, &out), 2);
    EXPECT_NE(out.find("start yuzu-server with this --data-dir once first"), std::string::npos)
        << out;
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(AdminCli, AnMcpTokenFromTheCliWorksAtOnceAndIsAudited) {
    FleetFixture f;
    std::string out;
    ASSERT_EQ(yuzu_server({"token", "create", "--data-dir", f.server->data_dir(), "--user", "admin",
                           "--tier", "readonly", "--expires", "7d", "--name", "cli"},
                          &out),
              0)
        << out;
    const json created = json::parse(out, nullptr, false);
    ASSERT_TRUE(created.is_object()) << out;
    EXPECT_EQ(created["mcp_tier"], "readonly");
    EXPECT_EQ(created["owner"], "admin");
    EXPECT_NEAR(created["expires_at"].get<double>(), identity::now_s() + 7 * 86400, 60);
    const json listed = f.mcp_ok(created["token"], "list_agents");
    EXPECT_TRUE(listed.contains("agents")) << listed.dump();
    // A readonly token is refused a write, as any readonly token is.
    EXPECT_TRUE(f.mcp(created["token"], "quarantine_device", {{"agent_id", "a"}, {"reason", "r"}})
                    .contains("error"));

    const json events = identity::audit_events(*f.client, f.admin_token, "action=token.create");
    bool found = false;
    for (const auto& e : events) {
        found = found || (e.value("target_id", "") == created["id"] &&
                          e.value("principal", "").rfind("cli:", 0) == 0 &&
                          e.value("result", "") == "success");
    }
    EXPECT_TRUE(found) << events.dump();
}

TEST(AdminCli, TokenRefusalsExitTwoAndNameTheProblem) {
    FleetFixture f;
    const std::string dir = f.server->data_dir();
    std::string out;
    EXPECT_EQ(yuzu_server(
                  {"token", "create", "--data-dir", dir, "--tier", "readonly", "--expires", "120d"},
                  &out),
              2);
    EXPECT_NE(out.find("90"), std::string::npos) << out;
    EXPECT_EQ(yuzu_server({"token", "create", "--data-dir", dir, "--tier", "root"}, &out), 2);
    EXPECT_EQ(yuzu_server({"token", "create", "--data-dir", dir, "--expires", "soon"}, &out), 2);
    EXPECT_NE(out.find("--expires 'soon'"), std::string::npos) << out;
    EXPECT_EQ(yuzu_server({"token", "create", "--data-dir", dir, "--user", "nobody"}, &out), 2);
    EXPECT_NE(out.find("no user 'nobody'"), std::string::npos) << out;
    EXPECT_EQ(yuzu_server({"token", "frobnicate", "--data-dir", dir}, &out), 2);
}

TEST(AdminCli, AUserAddedFromAPasswordFileCanLogInAndADuplicateIsRefused) {
    FleetFixture f;
    const std::string dir = f.server->data_dir();
    const std::string password_file = (f.dir.path() / "bob.pw").string();
    std::ofstream(password_file) << "bob-has-a-long-password\n";
    std::string out;
    ASSERT_EQ(yuzu_server({"user", "add", "--data-dir", dir, "--username", "bob", "--role",
                           "Viewer", "--password-file", password_file},
                          &out),
              0)
        << out;
    EXPECT_EQ(json::parse(out, nullptr, false), (json{{"username", "bob"}, {"roles", {"Viewer"}}}));
    // The file's trailing newline is not part of the password.
    auto res = identity::login_json(*f.client, "bob", "bob-has-a-long-password");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << res->body;

    EXPECT_EQ(yuzu_server({"user", "add", "--data-dir", dir, "--username", "bob", "--password-file",
                           password_file},
                          &out),
              2)
        << out;
    // The password may come from the environment; an unknown role is refused.
    EXPECT_EQ(
        yuzu_server({"user", "add", "--data-dir", dir, "--username", "carol", "--role", "Wizard"},
                    &out, {{"YUZU_USER_PASSWORD", "carol-has-a-long-password"}}),
        2)
        << out;
    EXPECT_EQ(yuzu_server({"user", "add", "--data-dir", dir, "--username", "carol"}, &out), 2);
    EXPECT_NE(out.find("--password-file"), std::string::npos) << out;
    const json events = identity::audit_events(*f.client, f.admin_token, "action=user.create");
    EXPECT_GE(events.size(), 2u) << events.dump();
}

}  // namespace
}  // namespace yuzu::testing
