#include "yuzu/agent/identity_store.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "support/temp_dir.hpp"

namespace yuzu::agent {
namespace {

mode_t mode_of(const std::filesystem::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
    return st.st_mode & 0777;
}

IdentityRecord sample() {
    return IdentityRecord{"https://yuzu.example:8081", "0123456789abcdef0123456789abcdef",
                          "yuzu_secret_device_token", 1'764'460'800'000};
}

TEST(IdentityStore, NamesFollowTheIndex) {
    EXPECT_EQ(identity_name(0), "agent-0");
    EXPECT_EQ(identity_name(12), "agent-12");
}

TEST(IdentityStore, RoundTripWithPrivateModes) {
    yuzu::testing::TempDir tmp;
    const auto state = tmp.path() / "nested" / "state";
    auto dir = prepare_identity_dir(state, "agent-0");
    ASSERT_TRUE(dir.ok()) << dir.status().to_string();
    EXPECT_EQ(*dir, state / "agent-0");
    EXPECT_EQ(mode_of(state), 0700u);
    EXPECT_EQ(mode_of(*dir), 0700u);

    EXPECT_EQ(load_identity(*dir).status().code(), StatusCode::kNotFound);
    ASSERT_TRUE(save_identity(*dir, sample()).ok());
    EXPECT_EQ(mode_of(*dir / "identity.json"), 0600u);
    auto loaded = load_identity(*dir);
    ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
    EXPECT_EQ(loaded->server_url, sample().server_url);
    EXPECT_EQ(loaded->agent_id, sample().agent_id);
    EXPECT_EQ(loaded->device_token, sample().device_token);
    EXPECT_EQ(loaded->enrolled_at_ms, sample().enrolled_at_ms);

    // Replacing leaves exactly one file behind: no temp files.
    IdentityRecord second = sample();
    second.device_token = "yuzu_rotated";
    ASSERT_TRUE(save_identity(*dir, second).ok());
    EXPECT_EQ(load_identity(*dir)->device_token, "yuzu_rotated");
    int entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(*dir)) ++entries;
    EXPECT_EQ(entries, 1);
}

TEST(IdentityStore, LooseModesAreTightened) {
    yuzu::testing::TempDir tmp;
    const auto dir = tmp.path() / "agent-0";
    std::filesystem::create_directories(dir);
    ::chmod(dir.c_str(), 0755);
    ::chmod(tmp.path().c_str(), 0755);
    ASSERT_TRUE(prepare_identity_dir(tmp.path(), "agent-0").ok());
    EXPECT_EQ(mode_of(dir), 0700u);
    EXPECT_EQ(mode_of(tmp.path()), 0755u);  // an existing state dir is the operator's
    ASSERT_TRUE(save_identity(dir, sample()).ok());
    ::chmod((dir / "identity.json").c_str(), 0644);
    ASSERT_TRUE(load_identity(dir).ok());
    EXPECT_EQ(mode_of(dir / "identity.json"), 0600u);
}

TEST(IdentityStore, IncompleteOrMalformedFilesAreErrors) {
    yuzu::testing::TempDir tmp;
    auto write = [&](const std::string& text) {
        std::ofstream(tmp.path() / "identity.json") << text;
    };
    write("not json");
    EXPECT_EQ(load_identity(tmp.path()).status().code(), StatusCode::kInvalidArgument);
    write(R"({"server_url": "http://h:1", "agent_id": "a"})");
    EXPECT_EQ(load_identity(tmp.path()).status().code(), StatusCode::kInvalidArgument);
    write(R"(["server_url"])");
    EXPECT_EQ(load_identity(tmp.path()).status().code(), StatusCode::kInvalidArgument);
}

TEST(IdentityStore, UnwritableStateDirIsUnavailable) {
    yuzu::testing::TempDir tmp;
    std::ofstream(tmp.path() / "file") << "x";  // a file where the state dir should be
    auto dir = prepare_identity_dir(tmp.path() / "file", "agent-0");
    ASSERT_FALSE(dir.ok());
    EXPECT_EQ(dir.status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace yuzu::agent
