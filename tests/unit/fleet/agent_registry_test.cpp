#include "yuzu/fleet/agent_registry.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "fleet_fixture.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::fleet {
namespace {

using AgentRegistryTest = FleetTest;

TEST_F(AgentRegistryTest, GoesOfflineWhenNotSeenForTheTimeout) {
    auto a = enroll("web-01");
    AgentRegistry& reg = fleet_->registry();
    EXPECT_TRUE(reg.get(a.agent_id)->online);
    clock_.advance_ms(29'999);
    EXPECT_TRUE(reg.get(a.agent_id)->online);
    EXPECT_EQ(reg.online_count(), 1u);
    clock_.advance_ms(1);
    EXPECT_FALSE(reg.get(a.agent_id)->online);
    EXPECT_EQ(reg.online_count(), 0u);
    EXPECT_EQ(reg.total_count(), 1u);
}

TEST_F(AgentRegistryTest, TouchIsVisibleAtOnce) {
    auto a = enroll("web-01");
    AgentRegistry& reg = fleet_->registry();
    clock_.advance_ms(40'000);
    ASSERT_FALSE(reg.get(a.agent_id)->online);
    reg.touch(a.agent_id);
    auto r = reg.get(a.agent_id);
    EXPECT_TRUE(r->online);
    EXPECT_EQ(r->last_seen_ms, clock_.now_ms());
    auto all = reg.list();
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), 1u);
    EXPECT_TRUE(all->front().online);
    EXPECT_EQ(reg.online_count(), 1u);
}

TEST_F(AgentRegistryTest, TouchIsPersistedByTheTimeTheFleetCloses) {
    auto a = enroll("web-01");
    clock_.advance_ms(1'000);
    fleet_->registry().touch(a.agent_id);
    const int64_t seen = clock_.now_ms();
    reopen();
    EXPECT_EQ(fleet_->registry().get(a.agent_id)->last_seen_ms, seen);
}

// What another process reading fleet.db sees as the agent's last-seen time.
int64_t stored_last_seen(const std::string& db_path, const std::string& agent_id) {
    auto db = store::Database::open(db_path, store::OpenOptions{5000, true});
    if (!db.ok()) return -1;
    auto conn = (*db)->lock();
    auto stmt = conn.prepare("SELECT last_seen_ms FROM agents WHERE agent_id = ?1");
    if (!stmt.ok()) return -1;
    auto row = stmt->bind(1, agent_id).step();
    return row.ok() && *row ? stmt->column_int64(0) : -1;
}

TEST_F(AgentRegistryTest, TouchWritesAreBatchedButReadsAreCurrent) {
    auto a = enroll("web-01");
    const int64_t enrolled_at = clock_.now_ms();
    clock_.advance_ms(1'000);
    fleet_->registry().touch(a.agent_id);
    // Held in memory: the store still has the enrollment time ...
    EXPECT_EQ(stored_last_seen(fleet_->db_path(), a.agent_id), enrolled_at);
    // ... while reads see the touch.
    EXPECT_EQ(fleet_->registry().get(a.agent_id)->last_seen_ms, clock_.now_ms());
    // The group commit (every second on its own thread, or now) writes it.
    ASSERT_TRUE(fleet_->registry().flush().ok());
    EXPECT_EQ(stored_last_seen(fleet_->db_path(), a.agent_id), clock_.now_ms());
}

TEST_F(AgentRegistryTest, HeartbeatsAreGroupCommittedButReadsAreCurrent) {
    auto a = enroll("web-01");
    auto b = enroll("web-02");
    clock_.advance_ms(2'000);
    ASSERT_TRUE(fleet_->registry().record_heartbeat(a.agent_id, heartbeat("renamed-01")).ok());
    ASSERT_TRUE(fleet_->registry().record_heartbeat(b.agent_id, heartbeat("renamed-02")).ok());
    // Reads see both at once, whatever the store holds yet.
    EXPECT_EQ(fleet_->registry().get(a.agent_id)->hostname, "renamed-01");
    auto all = fleet_->registry().list();
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), 2u);
    EXPECT_EQ((*all)[0].hostname.rfind("renamed-", 0), 0u);
    EXPECT_EQ((*all)[1].hostname.rfind("renamed-", 0), 0u);
    // One commit writes both; a reopened registry reads them from the store.
    ASSERT_TRUE(fleet_->registry().flush().ok());
    EXPECT_EQ(stored_last_seen(fleet_->db_path(), b.agent_id), clock_.now_ms());
    reopen();
    EXPECT_EQ(fleet_->registry().get(b.agent_id)->hostname, "renamed-02");
    EXPECT_EQ(fleet_->registry()
                  .record_heartbeat("0123456789abcdef0123456789abcdef", heartbeat("x"))
                  .code(),
              StatusCode::kNotFound);
}

TEST_F(AgentRegistryTest, TheQuarantineFlagIsAnsweredFromMemoryAndSurvivesAReopen) {
    auto a = enroll("web-01");
    auto b = enroll("web-02");
    EXPECT_FALSE(fleet_->registry().quarantined(a.agent_id));
    ASSERT_TRUE(fleet_->registry().set_quarantine(a.agent_id, true, "incident", "admin").ok());
    EXPECT_TRUE(fleet_->registry().quarantined(a.agent_id));
    EXPECT_FALSE(fleet_->registry().quarantined(b.agent_id));
    reopen();  // loaded from the store at start
    EXPECT_TRUE(fleet_->registry().quarantined(a.agent_id));
    ASSERT_TRUE(fleet_->registry().set_quarantine(a.agent_id, false, "", "admin").ok());
    EXPECT_FALSE(fleet_->registry().quarantined(a.agent_id));
    EXPECT_FALSE(fleet_->registry().get(a.agent_id)->quarantined);
    EXPECT_EQ(fleet_->registry()
                  .set_quarantine("0123456789abcdef0123456789abcdef", true, "", "admin")
                  .code(),
              StatusCode::kNotFound);
}

TEST_F(AgentRegistryTest, SignOffIsOfflineUntilSeenAgain) {
    auto a = enroll("web-01");
    AgentRegistry& reg = fleet_->registry();
    reg.touch(a.agent_id);
    ASSERT_TRUE(reg.sign_off(a.agent_id).ok());
    EXPECT_FALSE(reg.get(a.agent_id)->online);
    EXPECT_EQ(reg.online_count(), 0u);
    // Still signed off after a restart.
    reopen();
    EXPECT_FALSE(fleet_->registry().get(a.agent_id)->online);
    clock_.advance_ms(1'000);
    fleet_->registry().touch(a.agent_id);
    EXPECT_TRUE(fleet_->registry().get(a.agent_id)->online);
    ASSERT_TRUE(fleet_->registry().sign_off(a.agent_id).ok());
    ASSERT_TRUE(fleet_->registry().record_heartbeat(a.agent_id, heartbeat("web-01")).ok());
    EXPECT_TRUE(fleet_->registry().get(a.agent_id)->online);
    EXPECT_EQ(fleet_->registry().sign_off("0123456789abcdef0123456789abcdef").code(),
              StatusCode::kNotFound);
}

TEST_F(AgentRegistryTest, HeartbeatIsPersistedAcrossReopen) {
    auto a = enroll("web-01");
    clock_.advance_ms(5'000);
    Heartbeat beat = heartbeat("web-01.example.com");
    beat.os_version = "Debian GNU/Linux 13 (trixie)";
    PerfSample perf;
    perf.cpu_pct = 3.5;
    perf.mem_used_pct = 41.0;
    perf.load1 = 0.12;  // disk_used_pct could not be measured
    beat.perf = perf;
    ASSERT_TRUE(fleet_->registry().record_heartbeat(a.agent_id, beat).ok());
    const int64_t at = clock_.now_ms();

    reopen();
    auto r = fleet_->registry().get(a.agent_id);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->hostname, "web-01.example.com");
    EXPECT_EQ(r->os_version, "Debian GNU/Linux 13 (trixie)");
    EXPECT_EQ(r->version, "0.2.0");
    EXPECT_EQ(r->uptime_s, 3600);
    EXPECT_EQ(r->last_seen_ms, at);
    EXPECT_LT(r->first_seen_ms, at);
    EXPECT_TRUE(r->online);
    ASSERT_TRUE(r->perf.has_value());
    EXPECT_EQ(r->perf->at_ms, at);
    EXPECT_DOUBLE_EQ(*r->perf->cpu_pct, 3.5);
    EXPECT_DOUBLE_EQ(*r->perf->mem_used_pct, 41.0);
    EXPECT_FALSE(r->perf->disk_used_pct.has_value());
    EXPECT_DOUBLE_EQ(*r->perf->load1, 0.12);

    // A heartbeat without a sample leaves no stale one behind.
    ASSERT_TRUE(fleet_->registry().record_heartbeat(a.agent_id, heartbeat("web-01")).ok());
    EXPECT_FALSE(fleet_->registry().get(a.agent_id)->perf.has_value());
}

TEST_F(AgentRegistryTest, HeartbeatRejectsBadFieldsAndUnknownAgents) {
    auto a = enroll("web-01");
    AgentRegistry& reg = fleet_->registry();
    Heartbeat beat = heartbeat("");
    EXPECT_EQ(reg.record_heartbeat(a.agent_id, beat).code(), StatusCode::kInvalidArgument);
    beat = heartbeat("web-01");
    beat.uptime_s = -2;
    EXPECT_EQ(reg.record_heartbeat(a.agent_id, beat).code(), StatusCode::kInvalidArgument);
    beat = heartbeat("web-01");
    PerfSample perf;
    perf.cpu_pct = std::numeric_limits<double>::quiet_NaN();
    beat.perf = perf;
    auto bad = reg.record_heartbeat(a.agent_id, beat);
    EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(bad.message().find("cpu_pct"), std::string::npos);
    perf.cpu_pct = 101.0;
    beat.perf = perf;
    EXPECT_EQ(reg.record_heartbeat(a.agent_id, beat).code(), StatusCode::kInvalidArgument);
    perf.cpu_pct.reset();
    perf.load1 = -1.0;
    beat.perf = perf;
    EXPECT_EQ(reg.record_heartbeat(a.agent_id, beat).code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(reg.get(a.agent_id)->hostname, "web-01");  // nothing was written

    EXPECT_EQ(reg.record_heartbeat("0123456789abcdef0123456789abcdef", heartbeat("x")).code(),
              StatusCode::kNotFound);
    EXPECT_EQ(reg.record_heartbeat("../etc", heartbeat("x")).code(), StatusCode::kNotFound);
    EXPECT_EQ(reg.get("0123456789abcdef0123456789abcdef").status().code(), StatusCode::kNotFound);
}

TEST_F(AgentRegistryTest, ListIsOrderedByAgentId) {
    for (int i = 0; i < 5; ++i) enroll("host-" + std::to_string(i));
    auto all = fleet_->registry().list();
    ASSERT_TRUE(all.ok());
    ASSERT_EQ(all->size(), 5u);
    for (size_t i = 1; i < all->size(); ++i) {
        EXPECT_LT((*all)[i - 1].agent_id, (*all)[i].agent_id);
    }
}

TEST_F(AgentRegistryTest, QuarantineRecordsWhoWhyAndWhen) {
    auto a = enroll("web-01");
    AgentRegistry& reg = fleet_->registry();
    clock_.advance_ms(10);
    ASSERT_TRUE(reg.set_quarantine(a.agent_id, true, "suspicious process", "alice").ok());
    auto r = reg.get(a.agent_id);
    EXPECT_TRUE(r->quarantined);
    EXPECT_EQ(r->quarantine_reason, "suspicious process");
    EXPECT_EQ(r->quarantined_by, "alice");
    EXPECT_EQ(r->quarantined_at_ms, clock_.now_ms());

    clock_.advance_ms(10);
    ASSERT_TRUE(reg.set_quarantine(a.agent_id, false, "cleared", "bob").ok());
    reopen();
    r = fleet_->registry().get(a.agent_id);
    EXPECT_FALSE(r->quarantined);
    EXPECT_EQ(r->quarantined_by, "bob");
    EXPECT_EQ(r->quarantined_at_ms, clock_.now_ms());
    EXPECT_EQ(fleet_->registry()
                  .set_quarantine("0123456789abcdef0123456789abcdef", true, "x", "alice")
                  .code(),
              StatusCode::kNotFound);
    EXPECT_EQ(fleet_->registry().set_quarantine(a.agent_id, true, "bad\x01", "alice").code(),
              StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace yuzu::fleet
