#include "yuzu/fleet/tag_store.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "fleet_fixture.hpp"

namespace yuzu::fleet {
namespace {

using TagStoreTest = FleetTest;

TEST_F(TagStoreTest, SetCreatesAndReplaces) {
    auto a = enroll("web-01");
    TagStore& tags = fleet_->tags();
    ASSERT_TRUE(tags.set(a.agent_id, "env", "staging", "api").ok());
    ASSERT_TRUE(tags.set(a.agent_id, "Owner.team-1_x", "Platform Team", "agent").ok());
    clock_.advance_ms(5);
    ASSERT_TRUE(tags.set(a.agent_id, "env", "prod", "mcp").ok());

    auto of = tags.of_agent(a.agent_id);
    ASSERT_TRUE(of.ok());
    ASSERT_EQ(of->size(), 2u);
    EXPECT_EQ((*of)[0].key, "Owner.team-1_x");  // ordered by key (byte order)
    EXPECT_EQ((*of)[1].key, "env");
    EXPECT_EQ((*of)[1].value, "prod");
    EXPECT_EQ((*of)[1].source, "mcp");
    EXPECT_EQ((*of)[1].updated_at_ms, clock_.now_ms());
    EXPECT_EQ((*of)[1].agent_id, a.agent_id);
}

TEST_F(TagStoreTest, KeyValueAndSourceRules) {
    auto a = enroll("web-01");
    TagStore& tags = fleet_->tags();
    for (const std::string& key : {std::string(), std::string(65, 'k'), std::string("a b"),
                                   std::string("tag:env"), std::string("ü")}) {
        EXPECT_EQ(tags.set(a.agent_id, key, "v", "api").code(), StatusCode::kInvalidArgument)
            << key;
    }
    EXPECT_TRUE(tags.set(a.agent_id, std::string(64, 'k'), "v", "api").ok());
    EXPECT_TRUE(tags.set(a.agent_id, "empty", "", "api").ok());
    EXPECT_TRUE(tags.set(a.agent_id, "long", std::string(256, 'v'), "api").ok());
    EXPECT_TRUE(tags.set(a.agent_id, "unicode", "Zürich Büro", "api").ok());
    EXPECT_EQ(tags.set(a.agent_id, "long", std::string(257, 'v'), "api").code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(tags.set(a.agent_id, "ctl", "a\tb", "api").code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(tags.set(a.agent_id, "utf", "\xc3", "api").code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(tags.set(a.agent_id, "env", "prod", "web").code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(tags.set("0123456789abcdef0123456789abcdef", "env", "prod", "api").code(),
              StatusCode::kNotFound);
    EXPECT_EQ(tags.of_agent("0123456789abcdef0123456789abcdef").status().code(),
              StatusCode::kNotFound);
    EXPECT_EQ(tags.of_agent(a.agent_id)->size(), 4u);
}

TEST_F(TagStoreTest, CapPerAgentCountsDistinctKeys) {
    auto a = enroll("web-01");
    TagStore& tags = fleet_->tags();
    for (size_t i = 0; i < kMaxTagsPerAgent; ++i) {
        ASSERT_TRUE(tags.set(a.agent_id, "k" + std::to_string(i), "v", "api").ok());
    }
    EXPECT_EQ(tags.set(a.agent_id, "one-more", "v", "api").code(), StatusCode::kResourceExhausted);
    // Replacing an existing key is not a new tag.
    EXPECT_TRUE(tags.set(a.agent_id, "k0", "changed", "api").ok());
    ASSERT_TRUE(tags.remove(a.agent_id, "k1").ok());
    EXPECT_TRUE(tags.set(a.agent_id, "one-more", "v", "api").ok());
}

TEST_F(TagStoreTest, RemoveAgentsWithAndAll) {
    auto a = enroll("web-01");
    auto b = enroll("web-02");
    TagStore& tags = fleet_->tags();
    ASSERT_TRUE(tags.set(a.agent_id, "env", "prod", "api").ok());
    ASSERT_TRUE(tags.set(b.agent_id, "env", "dev", "api").ok());
    ASSERT_TRUE(tags.set(b.agent_id, "rack", "r7", "api").ok());

    auto with_env = tags.agents_with("env", std::nullopt);
    ASSERT_TRUE(with_env.ok());
    std::vector<std::string> both{a.agent_id, b.agent_id};
    std::sort(both.begin(), both.end());
    EXPECT_EQ(*with_env, both);
    EXPECT_EQ(*tags.agents_with("env", std::string("dev")), std::vector<std::string>{b.agent_id});
    EXPECT_TRUE(tags.agents_with("env", std::string("qa"))->empty());
    EXPECT_EQ(tags.agents_with("bad key", std::nullopt).status().code(),
              StatusCode::kInvalidArgument);

    auto all = tags.all();
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), 2u);
    EXPECT_EQ(all->at(a.agent_id).at("env"), "prod");
    EXPECT_EQ(all->at(b.agent_id).size(), 2u);

    ASSERT_TRUE(tags.remove(b.agent_id, "env").ok());
    EXPECT_EQ(tags.remove(b.agent_id, "env").code(), StatusCode::kNotFound);
    EXPECT_EQ(*tags.agents_with("env", std::nullopt), std::vector<std::string>{a.agent_id});
}

}  // namespace
}  // namespace yuzu::fleet
