// A real Fleet and a real Compliance service in a temporary directory on a
// ManualClock, with helpers that play the agent: enroll, report inventory
// (as the agent plane stores it) and send heartbeats with perf samples.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "support/enroll_test_agent.hpp"
#include "support/temp_dir.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/compliance/compliance.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/enrollment.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/fleet/inventory_store.hpp"

namespace yuzu::compliance::testing {

// Inventory as a Debian host reports it.
inline constexpr char kNoReboot[] = R"({"pending": false, "packages": []})";
inline constexpr char kRebootNeeded[] =
    R"({"pending": true, "packages": ["linux-image-6.1.0-18-amd64"]})";
inline constexpr char kDisksHealthy[] = R"([
  {"mount": "/", "device": "/dev/sda1", "fstype": "ext4", "total_bytes": 52710469632,
   "free_bytes": 31024807936, "used_pct": 41.2},
  {"mount": "/boot/efi", "device": "/dev/sda15", "fstype": "vfat", "total_bytes": 129718272,
   "free_bytes": 123556864, "used_pct": 4.8}])";
inline constexpr char kDisksRootFull[] = R"([
  {"mount": "/", "device": "/dev/vda1", "fstype": "ext4", "total_bytes": 21003583488,
   "free_bytes": 1390350336, "used_pct": 93.5},
  {"mount": "/srv", "device": "/dev/vdb1", "fstype": "xfs", "total_bytes": 107321753600,
   "free_bytes": 96589578240, "used_pct": 10.0}])";
inline constexpr char kSocketsSshdLocal[] = R"([
  {"protocol": "tcp", "address": "10.0.0.5", "port": 22, "inode": 18231, "uid": 0},
  {"protocol": "tcp", "address": "127.0.0.1", "port": 5432, "inode": 19022, "uid": 107},
  {"protocol": "tcp6", "address": "::1", "port": 5432, "inode": 19023, "uid": 107}])";
inline constexpr char kSocketsSshdEverywhere[] = R"([
  {"protocol": "tcp", "address": "0.0.0.0", "port": 22, "inode": 18231, "uid": 0},
  {"protocol": "tcp6", "address": "::", "port": 22, "inode": 18233, "uid": 0}])";

class ComplianceTest : public ::testing::Test {
  protected:
    void SetUp() override { open(); }

    void open(ComplianceOptions options = {}) {
        compliance_.reset();
        if (!fleet_) {
            fleet::FleetOptions fo;
            fo.data_dir = (dir_ / "fleet").string();
            fo.inventory_interval_s = 300;  // staleness bound 900 s
            auto fleet = fleet::Fleet::open(fo, clock_);
            ASSERT_TRUE(fleet.ok()) << fleet.status().to_string();
            fleet_ = std::move(fleet).value();
        }
        if (options.data_dir.empty()) options.data_dir = (dir_ / "compliance").string();
        auto c = Compliance::open(options, *fleet_, nullptr, clock_);
        ASSERT_TRUE(c.ok()) << c.status().to_string();
        compliance_ = std::move(c).value();
    }

    std::string enroll(const std::string& hostname) {
        return ::yuzu::testing::enroll_test_agent(*fleet_, hostname);
    }

    void report(const std::string& agent, const std::string& source, const std::string& data) {
        fleet::InventoryItem item;
        item.source = source;
        item.status = "ok";
        item.data_json = data;
        item.collected_at_ms = clock_.now_ms();
        ASSERT_TRUE(fleet_->inventory().replace(agent, {item}).ok());
    }

    void report_unavailable(const std::string& agent, const std::string& source,
                            const std::string& reason) {
        fleet::InventoryItem item;
        item.source = source;
        item.status = "unavailable";
        item.reason = reason;
        item.collected_at_ms = clock_.now_ms();
        ASSERT_TRUE(fleet_->inventory().replace(agent, {item}).ok());
    }

    void heartbeat(const std::string& agent, std::optional<fleet::PerfSample> perf) {
        fleet::Heartbeat b;
        b.hostname = "host-" + agent.substr(0, 6);
        b.os = "linux";
        b.os_version = "Debian GNU/Linux 12 (bookworm)";
        b.arch = "x86_64";
        b.agent_version = "0.1.0";
        b.uptime_s = 3600;
        b.perf = perf;
        Status st = fleet_->registry().record_heartbeat(agent, b);
        ASSERT_TRUE(st.ok()) << st.to_string();
    }

    // The seeded policy with this name.
    Policy seeded(const std::string& name) {
        auto all = compliance_->policies().list();
        EXPECT_TRUE(all.ok());
        if (all.ok()) {
            for (const auto& p : *all) {
                if (p.name == name) return p;
            }
        }
        ADD_FAILURE() << "no seeded policy named " << name;
        return Policy{};
    }

    // agent_id -> result of one policy.
    std::map<std::string, CheckResult> results_of(const std::string& policy_id) {
        ResultQuery q;
        q.policy_id = policy_id;
        q.limit = kMaxResultQueryLimit;
        auto rows = compliance_->results().query(q);
        EXPECT_TRUE(rows.ok()) << rows.status().to_string();
        std::map<std::string, CheckResult> out;
        if (rows.ok()) {
            for (auto& r : rows->first) out[r.agent_id] = r;
        }
        return out;
    }

    yuzu::testing::TempDir dir_;
    ManualClock clock_;
    std::unique_ptr<fleet::Fleet> fleet_;
    std::unique_ptr<Compliance> compliance_;
};

inline constexpr char kNoRebootPolicy[] = "No pending reboot";
inline constexpr char kRootFsPolicy[] = "Root filesystem below 90 %";
inline constexpr char kSshdPolicy[] = "sshd not listening on all IPv4 addresses";

}  // namespace yuzu::compliance::testing
