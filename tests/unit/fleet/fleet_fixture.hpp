// A Fleet opened in a temporary directory on a ManualClock, with a helper
// that enrolls an agent the way the agent plane does.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "support/temp_dir.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/enrollment.hpp"
#include "yuzu/fleet/fleet.hpp"

namespace yuzu::fleet {

class FleetTest : public ::testing::Test {
  protected:
    void SetUp() override { reopen(); }

    FleetOptions options() const {
        FleetOptions o;
        o.data_dir = (dir_ / "data").string();
        o.offline_timeout_ms = 30'000;
        o.max_queued_commands_per_agent = 4;
        return o;
    }

    // Closes the fleet (if open) and opens it again on the same directory.
    void reopen() {
        fleet_.reset();
        auto opened = Fleet::open(options(), clock_);
        ASSERT_TRUE(opened.ok()) << opened.status().to_string();
        fleet_ = std::move(opened).value();
    }

    IssuedEnrollmentToken make_token(int max_uses = 0, int64_t ttl_s = kDefaultEnrollmentTtlS) {
        NewEnrollmentToken spec;
        spec.created_by = "admin";
        spec.note = "test batch";
        spec.max_uses = max_uses;
        spec.ttl_s = ttl_s;
        auto issued = fleet_->enrollment().create_token(spec);
        EXPECT_TRUE(issued.ok()) << issued.status().to_string();
        return issued.ok() ? *issued : IssuedEnrollmentToken{};
    }

    static EnrollRequest request(const std::string& token, const std::string& hostname) {
        EnrollRequest r;
        r.enrollment_token = token;
        r.hostname = hostname;
        r.os = "linux";
        r.os_version = "Debian GNU/Linux 12 (bookworm)";
        r.arch = "x86_64";
        r.agent_version = "0.1.0";
        r.source_ip = "127.0.0.1";
        return r;
    }

    // Enrolls `hostname` with a fresh single-use token; the agent's identity.
    EnrolledAgent enroll(const std::string& hostname) {
        auto token = make_token(1);
        auto enrolled = fleet_->enrollment().enroll(request(token.token, hostname));
        EXPECT_TRUE(enrolled.ok()) << enrolled.status().to_string();
        return enrolled.ok() ? *enrolled : EnrolledAgent{};
    }

    static Heartbeat heartbeat(const std::string& hostname) {
        Heartbeat b;
        b.hostname = hostname;
        b.os = "linux";
        b.os_version = "Debian GNU/Linux 12 (bookworm)";
        b.arch = "x86_64";
        b.agent_version = "0.2.0";
        b.uptime_s = 3600;
        return b;
    }

    yuzu::testing::TempDir dir_;
    ManualClock clock_;
    std::unique_ptr<Fleet> fleet_;
};

}  // namespace yuzu::fleet
