// Rows 12, 13 and 17 of the hardening table: a data directory nobody else
// can read, a foreign Host header refused everywhere but /livez (DNS
// rebinding), and a new token's answer never cached.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "hostile/hostile_fixture.hpp"
#include "hostile/hostile_support.hpp"

namespace yuzu::testing::hostile {
namespace {

using nlohmann::json;

mode_t mode_of(const std::filesystem::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
}

TEST_F(Hostile, Row12ALooseDataDirIsMadePrivateAndItsStoresAre0600) {
    const std::filesystem::path data = scratch_ / "data";
    std::filesystem::create_directory(data);
    ASSERT_EQ(::chmod(data.c_str(), 0755), 0);
    ServerProcess::Options o;
    o.data_dir = data.string();
    ASSERT_TRUE(start_with(o));
    EXPECT_EQ(mode_of(data), 0700u);
    int stores = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(data)) {
        if (!entry.is_regular_file()) continue;
        const mode_t mode = mode_of(entry.path());
        EXPECT_EQ(mode & 077, 0u) << entry.path() << " is readable by others";
        if (entry.path().extension() == ".db") {
            ++stores;
            EXPECT_EQ(mode, 0600u) << entry.path();
        }
    }
    EXPECT_GE(stores, 6) << "the six stores";
}

TEST_F(Hostile, Row13AForeignHostIs403EverywhereButLivez) {
    ASSERT_TRUE(start());
    const HeaderList evil = {{"Host", "evil.example"}};

    HeaderList login_headers = evil;
    login_headers.emplace_back("Content-Type", "application/json");
    const Exchange login = roundtrip(
        port(),
        http_request("POST", "/login", port(), login_headers,
                     json{{"username", "admin"}, {"password", identity::kAdminPassword}}.dump()),
        milliseconds(10000), peer(13, 1));
    ASSERT_TRUE(login.response) << login.error;
    EXPECT_EQ(login.response->status, 403) << "/login: " << describe(login.response);
    EXPECT_FALSE(sets_session_cookie(*login.response));

    const Exchange metrics = roundtrip(port(), http_request("GET", "/metrics", port(), evil));
    ASSERT_TRUE(metrics.response) << metrics.error;
    EXPECT_EQ(metrics.response->status, 403) << "/metrics: " << describe(metrics.response);

    HeaderList me_headers = evil;
    me_headers.emplace_back("Authorization", "Bearer " + admin_token_);
    const Exchange me = roundtrip(port(), http_request("GET", "/api/v1/me", port(), me_headers));
    ASSERT_TRUE(me.response) << me.error;
    EXPECT_EQ(me.response->status, 403) << "/api/v1/me: " << describe(me.response);

    // /livez is exempt: a load balancer may probe it by any name.
    const Exchange livez = roundtrip(port(), http_request("GET", "/livez", port(), evil));
    ASSERT_TRUE(livez.response) << livez.error;
    EXPECT_EQ(livez.response->status, 200) << "/livez: " << describe(livez.response);
}

TEST_F(Hostile, Row17ATokenCreateAnswerIsNeverCached) {
    ASSERT_TRUE(start());
    const Exchange ex =
        roundtrip(port(), http_request("POST", "/api/v1/tokens", port(), json_headers(admin_token_),
                                       json{{"name", "no-store"}}.dump()));
    ASSERT_TRUE(ex.response) << ex.error;
    EXPECT_EQ(ex.response->status, 201) << describe(ex.response);
    EXPECT_EQ(ex.response->header("Cache-Control"), "no-store");
}

}  // namespace
}  // namespace yuzu::testing::hostile
