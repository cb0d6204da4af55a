#include "yuzu/fleet/scope_resolver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fleet_fixture.hpp"
#include "yuzu/auth/auth_schema.hpp"
#include "yuzu/auth/management_group.hpp"
#include "yuzu/fleet/tag_store.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"

namespace yuzu::fleet {
namespace {

// Three agents: web-01 (linux, env=prod), web-02 (linux, env=dev),
// db-01 (windows, no env tag, in the "Databases" management group).
class ScopeResolverTest : public FleetTest {
  protected:
    void SetUp() override {
        FleetTest::SetUp();
        web1_ = enroll("web-01").agent_id;
        web2_ = enroll("web-02").agent_id;
        db1_ = enroll("db-01").agent_id;
        Heartbeat beat = heartbeat("db-01");
        beat.os = "windows";
        beat.arch = "aarch64";
        ASSERT_TRUE(fleet_->registry().record_heartbeat(db1_, beat).ok());
        ASSERT_TRUE(fleet_->tags().set(web1_, "env", "prod", "api").ok());
        ASSERT_TRUE(fleet_->tags().set(web2_, "env", "dev", "api").ok());
        ASSERT_TRUE(fleet_->tags().set(db1_, "Rack", "r7", "agent").ok());

        auto auth_db = store::Database::open(":memory:");
        ASSERT_TRUE(auth_db.ok());
        auth_db_ = std::move(auth_db).value();
        ASSERT_TRUE(store::apply_migrations(*auth_db_, "auth.db",
                                            std::span(&auth::kIdentitySchemaMigration, 1))
                        .ok());
        groups_ = std::make_unique<auth::ManagementGroupStore>(*auth_db_, clock_);
        auth::NewManagementGroup spec;
        spec.name = "Databases";
        spec.created_by = "admin";
        auto group = groups_->create(spec);
        ASSERT_TRUE(group.ok()) << group.status().to_string();
        group_id_ = group->id;
        ASSERT_TRUE(groups_->add_member(group_id_, db1_).ok());
    }

    std::vector<std::string> select(std::string_view expr,
                                    const std::optional<std::set<std::string>>& only = {},
                                    bool with_groups = true) {
        auto m = resolve_scope(*fleet_, with_groups ? groups_.get() : nullptr, expr, only);
        EXPECT_TRUE(m.ok()) << expr << ": " << m.status().to_string();
        return m.ok() ? m->agent_ids : std::vector<std::string>{};
    }

    std::vector<std::string> sorted(std::vector<std::string> ids) {
        std::sort(ids.begin(), ids.end());
        return ids;
    }

    std::string web1_, web2_, db1_, group_id_;
    std::unique_ptr<store::Database> auth_db_;
    std::unique_ptr<auth::ManagementGroupStore> groups_;
};

TEST_F(ScopeResolverTest, RegistryFields) {
    EXPECT_EQ(select(R"(os = "linux")"), sorted({web1_, web2_}));
    EXPECT_EQ(select(R"(os = "WINDOWS")"), std::vector<std::string>{db1_});
    EXPECT_EQ(select(R"(hostname LIKE "web-%")"), sorted({web1_, web2_}));
    EXPECT_EQ(select(R"(arch IN ("aarch64", "armv7l"))"), std::vector<std::string>{db1_});
    EXPECT_EQ(select("agent_id = \"" + web2_ + "\""), std::vector<std::string>{web2_});
    EXPECT_EQ(select(R"(version = "0.2.0")"), std::vector<std::string>{db1_});
    EXPECT_EQ(select(R"(os_version LIKE "Debian%")"), sorted({web1_, web2_, db1_}));
}

TEST_F(ScopeResolverTest, TagsIncludingAnAbsentOne) {
    EXPECT_EQ(select(R"(tag:env = "prod")"), std::vector<std::string>{web1_});
    EXPECT_EQ(select(R"(os = "linux" AND tag:env = "dev")"), std::vector<std::string>{web2_});
    // db-01 has no env tag: every predicate on it is false but NOT EXISTS.
    EXPECT_EQ(select(R"(tag:env != "prod")"), std::vector<std::string>{web2_});
    EXPECT_EQ(select("tag:env EXISTS"), sorted({web1_, web2_}));
    EXPECT_EQ(select("tag:env NOT EXISTS"), std::vector<std::string>{db1_});
    EXPECT_EQ(select(R"(tag:Rack = "r7")"), std::vector<std::string>{db1_});
    EXPECT_TRUE(select(R"(tag:nothing = "x")").empty());
}

TEST_F(ScopeResolverTest, OnlineFollowsTheClock) {
    clock_.advance_ms(31'000);
    fleet_->registry().touch(web2_);
    EXPECT_EQ(select("online = true"), std::vector<std::string>{web2_});
    EXPECT_EQ(select("online = false"), sorted({web1_, db1_}));
}

TEST_F(ScopeResolverTest, GroupsNeedAStore) {
    EXPECT_EQ(select("group = \"" + group_id_ + "\""), std::vector<std::string>{db1_});
    EXPECT_EQ(select("group = \"" + std::string(auth::kRootGroupId) + "\""),
              sorted({web1_, web2_, db1_}));
    EXPECT_TRUE(select("group = \"" + group_id_ + "\"", std::nullopt, false).empty());
}

TEST_F(ScopeResolverTest, OnlyAgentsRestrictsCandidates) {
    const std::set<std::string> view{web2_, db1_};
    EXPECT_EQ(select(R"(os = "linux")", view), std::vector<std::string>{web2_});
    EXPECT_TRUE(select(R"(os = "linux")", std::set<std::string>{}).empty());
}

TEST_F(ScopeResolverTest, CanonicalFormAndParseErrors) {
    auto m =
        resolve_scope(*fleet_, nullptr, R"(os = "linux"   and   tag:env = "prod")", std::nullopt);
    ASSERT_TRUE(m.ok()) << m.status().to_string();
    EXPECT_EQ(m->agent_ids, std::vector<std::string>{web1_});
    auto reparsed = resolve_scope(*fleet_, nullptr, m->canonical, std::nullopt);
    ASSERT_TRUE(reparsed.ok()) << m->canonical;
    EXPECT_EQ(reparsed->canonical, m->canonical);
    EXPECT_EQ(reparsed->agent_ids, m->agent_ids);

    for (std::string_view bad : {"", "os =", "os = \"linux\" AND", "colour = \"red\""}) {
        auto r = resolve_scope(*fleet_, groups_.get(), bad, std::nullopt);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
    }
}

}  // namespace
}  // namespace yuzu::fleet
