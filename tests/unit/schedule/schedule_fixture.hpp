// A real Identity, fleet, executions.db and schedules.db in a temp dir, on a
// ManualClock (fleet, executions and schedules; the identity's clock only
// stamps users), with an in-memory audit log. Tests move the clock by hand
// and call the engine's run_due() themselves: nothing here starts a thread.
//
// Users: "admin" (Administrator, bootstrapped), "olivia" (Operator) and
// "vera" (Viewer: may read schedules, may not run instructions).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "support/enroll_test_agent.hpp"
#include "support/temp_dir.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/roles.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/fleet/enrollment.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/schedule/schedules.hpp"

namespace yuzu::schedule::testing {

inline constexpr char kPassword[] = "schedule-test-password";

inline auth::Principal user(const std::string& name) {
    auth::Principal p;
    p.username = name;
    p.kind = auth::PrincipalKind::kUserSession;
    return p;
}

inline auth::Principal mcp_token(const std::string& name, const std::string& tier) {
    auth::Principal p;
    p.username = name;
    p.kind = auth::PrincipalKind::kMcpToken;
    p.mcp_tier = tier;
    return p;
}

// An enabled os.info schedule on every agent, every `seconds`.
inline ScheduleSpec every(int64_t seconds, const std::string& name = "os info") {
    ScheduleSpec spec;
    spec.name = name;
    spec.definition_id = "os.info";
    spec.frequency.type = FrequencyType::kInterval;
    spec.frequency.interval_seconds = seconds;
    return spec;
}

class ScheduleFixture : public ::testing::Test {
  protected:
    void SetUp() override { open_all(SchedulesOptions{}); }

    void open_all(SchedulesOptions options) {
        auth::IdentityOptions id_options;
        id_options.data_dir = dir_.str();
        id_options.bootstrap_password_value = kPassword;
        id_options.user_options.password_log_n = 10;
        auto id = auth::Identity::open(id_options, clock_);
        ASSERT_TRUE(id.ok()) << id.status().to_string();
        identity_ = std::move(id).value();
        ASSERT_TRUE(identity_->users()
                        .create_user("olivia", kPassword, {std::string(auth::kRoleOperator)})
                        .ok());
        ASSERT_TRUE(identity_->users()
                        .create_user("vera", kPassword, {std::string(auth::kRoleViewer)})
                        .ok());

        fleet::FleetOptions fleet_options;
        fleet_options.data_dir = (dir_ / "fleet").string();
        auto f = fleet::Fleet::open(fleet_options, clock_);
        ASSERT_TRUE(f.ok()) << f.status().to_string();
        fleet_ = std::move(f).value();
        execution::ExecutionsOptions ex_options;
        ex_options.data_dir = (dir_ / "executions").string();
        auto ex = execution::Executions::open(ex_options, *fleet_, clock_);
        ASSERT_TRUE(ex.ok()) << ex.status().to_string();
        executions_ = std::move(ex).value();
        reopen_schedules(std::move(options));
    }

    void reopen_schedules(SchedulesOptions options) {
        schedules_.reset();
        options.data_dir = (dir_ / "schedules").string();
        auto s = Schedules::open(options, services(), audit_, clock_);
        ASSERT_TRUE(s.ok()) << s.status().to_string();
        schedules_ = std::move(s).value();
    }

    DispatchServices services() { return DispatchServices{*identity_, *fleet_, *executions_}; }

    // Enrolls a new agent (online: first seen now) and returns its id.
    std::string enroll(const std::string& hostname) {
        return ::yuzu::testing::enroll_test_agent(*fleet_, hostname);
    }

    // A schedule that must be created.
    Schedule create(const auth::Principal& who, const ScheduleSpec& spec) {
        auto s = schedules_->create(who, spec);
        EXPECT_TRUE(s.ok()) << s.status().to_string();
        return s.ok() ? *s : Schedule{};
    }

    Schedule reread(const std::string& id) {
        auto s = schedules_->get(id);
        EXPECT_TRUE(s.ok()) << s.status().to_string();
        return s.ok() ? *s : Schedule{};
    }

    // run_due at the clock's now; the report of a tick that must succeed.
    TickReport tick() {
        auto report = schedules_->engine().run_due(clock_.now_s());
        EXPECT_TRUE(report.ok()) << report.status().to_string();
        return report.ok() ? *report : TickReport{};
    }

    void advance_s(int64_t seconds) { clock_.advance_ms(seconds * 1000); }

    // Every execution in executions.db, newest first.
    std::vector<execution::ExecutionRecord> executions() {
        execution::ExecutionFilter filter;
        filter.limit = execution::kMaxListLimit;
        auto page = executions_->tracker().list(filter);
        EXPECT_TRUE(page.ok()) << page.status().to_string();
        return page.ok() ? page->executions : std::vector<execution::ExecutionRecord>{};
    }

    // Audit rows with this action, oldest first.
    std::vector<audit::AuditEvent> audit_rows(const std::string& action) const {
        std::vector<audit::AuditEvent> out;
        for (const auto& ev : audit_.events()) {
            if (ev.action == action) out.push_back(ev);
        }
        return out;
    }

    ::yuzu::testing::TempDir dir_;
    ManualClock clock_;
    audit::MemoryAuditLog audit_{clock_};
    std::unique_ptr<auth::Identity> identity_;
    std::unique_ptr<fleet::Fleet> fleet_;
    std::unique_ptr<execution::Executions> executions_;
    std::unique_ptr<Schedules> schedules_;
    const auth::Principal admin_ = user("admin");
    const auth::Principal olivia_ = user("olivia");
    const auth::Principal vera_ = user("vera");
};

}  // namespace yuzu::schedule::testing
