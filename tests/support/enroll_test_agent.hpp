// Enrolls one agent straight through the fleet's enrollment service (no
// agent plane, no yuzu-agent), for unit-test fixtures that need agents in
// the registry. Header-only: tests/support does not link the fleet module;
// the test binaries that include this do.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "yuzu/fleet/enrollment.hpp"
#include "yuzu/fleet/fleet.hpp"

namespace yuzu::testing {

// A fresh enrollment token, then an enrollment as a Debian 12 host named
// `hostname` (online: first seen now); the agent id, or "" after a failed
// expectation.
inline std::string enroll_test_agent(fleet::Fleet& fleet, const std::string& hostname) {
    fleet::NewEnrollmentToken spec;
    spec.created_by = "admin";
    auto token = fleet.enrollment().create_token(spec);
    EXPECT_TRUE(token.ok()) << token.status().to_string();
    if (!token.ok()) return "";
    fleet::EnrollRequest request;
    request.enrollment_token = token->token;
    request.hostname = hostname;
    request.os = "linux";
    request.os_version = "Debian GNU/Linux 12 (bookworm)";
    request.arch = "x86_64";
    request.agent_version = "0.1.0";
    request.source_ip = "127.0.0.1";
    auto agent = fleet.enrollment().enroll(request);
    EXPECT_TRUE(agent.ok()) << agent.status().to_string();
    return agent.ok() ? agent->agent_id : "";
}

}  // namespace yuzu::testing
