// Defaults a security engineer expects of the real server: a data directory
// nobody else can read, answers no cache keeps, and agent input of the wrong
// type refused as 400 rather than a 500.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "fleet_test_helpers.hpp"
#include "support/temp_dir.hpp"

namespace yuzu::testing {
namespace {

using fleet::FleetFixture;
using nlohmann::json;

mode_t mode_of(const std::filesystem::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
}

TEST(SecureDefaults, ALooseDataDirIsMadePrivateAndNothingInItIsReadableByOthers) {
    TempDir dir;
    const auto data = dir / "data";
    std::filesystem::create_directory(data);
    ::chmod(data.c_str(), 0755);
    auto o = identity::server_options();
    o.data_dir = data.string();
    ServerProcess server(o);
    ASSERT_FALSE(server.base_url().empty()) << server.log();
    EXPECT_EQ(mode_of(data), 0700u) << server.log();
    EXPECT_NE(server.log().find("was mode 0755; made it 0700"), std::string::npos) << server.log();
    int files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(data)) {
        if (!entry.is_regular_file()) continue;
        ++files;
        EXPECT_EQ(mode_of(entry.path()) & 077, 0u) << entry.path();
    }
    EXPECT_GE(files, 7) << "the six stores and secrets.key at least";
}

TEST(SecureDefaults, AnswersThatCarrySecretsAreNeverCached) {
    FleetFixture f;
    auto token = f.client->Post("/api/v1/tokens", f.admin.headers(),
                                json{{"name", "no-store"}}.dump(), "application/json");
    ASSERT_TRUE(token);
    ASSERT_EQ(token->status, 201) << token->body;
    EXPECT_EQ(token->get_header_value("Cache-Control"), "no-store");

    auto totp =
        f.client->Post("/api/v1/mfa/totp/enroll", f.admin.headers(), "{}", "application/json");
    ASSERT_TRUE(totp);
    EXPECT_EQ(totp->status, 200) << totp->body;
    EXPECT_EQ(totp->get_header_value("Cache-Control"), "no-store");

    httplib::Headers h{{"Accept", "application/json, text/event-stream"},
                       {"Authorization", "Bearer " + f.mcp_tokens["readonly"]}};
    auto mcp = f.client->Post("/mcp/v1/", h, R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})",
                              "application/json");
    ASSERT_TRUE(mcp);
    EXPECT_EQ(mcp->get_header_value("Cache-Control"), "no-store");

    // The device token of an enrollment (the helper checks its no-store).
    EXPECT_FALSE(f.enroll_raw_agent("cache").empty());
}

TEST(SecureDefaults, AnInventorySourceWithANonStringStatusIs400AndTheServerStaysUp) {
    FleetFixture f;
    httplib::Client agent_plane(f.server->agent_url());
    const std::string device = f.enroll_raw_agent("typed");
    ASSERT_FALSE(device.empty());
    for (const json& source : {json{{"status", 5}, {"data", json::object()}},
                               json{{"status", "ok"}, {"reason", {{"x", 1}}}, {"data", 1}}}) {
        auto res = agent_plane.Post("/agent/v1/inventory", identity::bearer(device),
                                    json{{"sources", {{"os", source}}}}.dump(), "application/json");
        ASSERT_TRUE(res) << f.server->log();
        EXPECT_EQ(res->status, 400) << source.dump() << ": " << res->body;
        EXPECT_NE(res->body.find("must be a string"), std::string::npos) << res->body;
    }
    auto livez = f.client->Get("/livez");
    ASSERT_TRUE(livez);
    EXPECT_EQ(livez->status, 200);
}

}  // namespace
}  // namespace yuzu::testing
