#include "yuzu/fleet/fleet.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "fleet/fleet_schema.hpp"
#include "fleet_fixture.hpp"
#include "yuzu/fleet/command_queue.hpp"
#include "yuzu/fleet/inventory_store.hpp"
#include "yuzu/fleet/tag_store.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::fleet {
namespace {

using namespace std::chrono_literals;

TEST_F(FleetTest, OpenCreatesAPrivateDirectoryAndMigratedStore) {
    struct stat st {};
    ASSERT_EQ(::stat(options().data_dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    EXPECT_EQ(fleet_->db_path(), options().data_dir + "/fleet.db");
    EXPECT_TRUE(fleet_->ready().ok());
    EXPECT_EQ(fleet_->options().max_queued_commands_per_agent, 4u);

    auto db = store::Database::open(fleet_->db_path());
    ASSERT_TRUE(db.ok());
    auto conn = (*db)->lock();
    auto version = conn.prepare("PRAGMA user_version");
    ASSERT_TRUE(version.ok());
    ASSERT_TRUE(*version->step());
    EXPECT_EQ(version->column_int64(0), fleet_migrations().back().version);
}

TEST_F(FleetTest, ReopeningAnExistingStoreKeepsEverything) {
    auto a = enroll("web-01");
    ASSERT_TRUE(fleet_->tags().set(a.agent_id, "env", "prod", "api").ok());
    InventoryItem item;
    item.source = "kernel";
    item.status = "ok";
    item.data_json = R"({"release":"6.1"})";
    ASSERT_TRUE(fleet_->inventory().replace(a.agent_id, {item}).ok());
    reopen();
    reopen();  // twice: the second open finds the schema current
    EXPECT_EQ(fleet_->registry().total_count(), 1u);
    EXPECT_EQ(fleet_->tags().all()->at(a.agent_id).at("env"), "prod");
    EXPECT_EQ(fleet_->inventory().for_agent(a.agent_id)->size(), 1u);
    EXPECT_EQ(fleet_->enrollment().list_tokens()->size(), 1u);
}

TEST_F(FleetTest, AStoreFromANewerReleaseIsRefused) {
    const std::string path = fleet_->db_path();
    fleet_.reset();
    {
        auto db = store::Database::open(path);
        ASSERT_TRUE(db.ok());
        auto conn = (*db)->lock();
        ASSERT_TRUE(conn.exec("PRAGMA user_version = 99").ok());
    }
    auto opened = Fleet::open(options(), clock_);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(FleetTest, BadOptionsAreRefused) {
    FleetOptions o = options();
    o.offline_timeout_ms = 0;
    EXPECT_EQ(Fleet::open(o, clock_).status().code(), StatusCode::kInvalidArgument);
    o = options();
    o.data_dir.clear();
    EXPECT_EQ(Fleet::open(o, clock_).status().code(), StatusCode::kInvalidArgument);
    o = options();
    o.max_queued_commands_per_agent = 0;
    EXPECT_EQ(Fleet::open(o, clock_).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(FleetTest, ShutdownRefusesNewCommands) {
    AgentCommand c;
    c.command_id = "c1";
    ASSERT_TRUE(fleet_->commands().enqueue("agent", c).ok());
    fleet_->shutdown();
    c.command_id = "c2";
    EXPECT_EQ(fleet_->commands().enqueue("agent", c).code(), StatusCode::kUnavailable);
    EXPECT_TRUE(fleet_->commands().take("agent").empty());
}

}  // namespace
}  // namespace yuzu::fleet
