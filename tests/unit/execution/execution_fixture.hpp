// A real fleet (fleet.db, registry, command queue) and a real executions.db
// in a temp dir, on a ManualClock, with helpers that play the agent side:
// take the queued command the way the long-poll does and answer it the way
// the agent plane does (complete() first, then the result sink).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "support/enroll_test_agent.hpp"
#include "support/temp_dir.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/command_queue.hpp"
#include "yuzu/fleet/command_result.hpp"
#include "yuzu/fleet/enrollment.hpp"
#include "yuzu/fleet/fleet.hpp"

namespace yuzu::execution::testing {

class ExecutionFixture : public ::testing::Test {
  protected:
    void SetUp() override { open(TrackerOptions{}); }

    void open(TrackerOptions tracker) {
        executions_.reset();
        fleet_.reset();
        fleet::FleetOptions fleet_options;
        fleet_options.data_dir = (dir_ / "fleet").string();
        auto fleet = fleet::Fleet::open(fleet_options, clock_);
        ASSERT_TRUE(fleet.ok()) << fleet.status().to_string();
        fleet_ = std::move(fleet).value();
        ExecutionsOptions options;
        options.data_dir = (dir_ / "executions").string();
        options.tracker = tracker;
        auto ex = Executions::open(options, *fleet_, clock_);
        ASSERT_TRUE(ex.ok()) << ex.status().to_string();
        executions_ = std::move(ex).value();
    }

    // Enrolls a new agent (online: first seen now) and returns its id.
    std::string enroll(const std::string& hostname) {
        return ::yuzu::testing::enroll_test_agent(*fleet_, hostname);
    }

    // What the agent's long-poll would receive right now.
    std::vector<fleet::AgentCommand> take(const std::string& agent_id) {
        return fleet_->commands().take(agent_id);
    }

    // Takes the agent's single queued command and answers it.
    Status answer(const std::string& agent_id, const std::string& status,
                  const std::string& output_json, const std::string& error = "") {
        auto commands = take(agent_id);
        if (commands.size() != 1) {
            return Status::Internal("expected one queued command, found " +
                                    std::to_string(commands.size()));
        }
        return answer_command(agent_id, commands[0].command_id, status, output_json, error);
    }

    Status answer_command(const std::string& agent_id, const std::string& command_id,
                          const std::string& status, const std::string& output_json,
                          const std::string& error = "") {
        if (!fleet_->commands().complete(agent_id, command_id)) {
            return Status::NotFound("command not queued for the agent");
        }
        fleet::CommandResult result;
        result.command_id = command_id;
        result.status = status;
        result.output_json = output_json;
        result.error = error;
        result.duration_ms = 5;
        result.received_at_ms = clock_.now_ms();
        return tracker().on_result(agent_id, result);
    }

    DispatchSpec spec_for(const std::vector<std::string>& agents, std::string plugin = "os",
                          std::string action = "info") {
        DispatchSpec spec;
        spec.plugin = std::move(plugin);
        spec.action = std::move(action);
        spec.agent_ids = agents;
        spec.dispatched_by = "alice";
        spec.scope_expression = "__all__";
        return spec;
    }

    ExecutionTracker& tracker() { return executions_->tracker(); }
    fleet::AgentRegistry& registry() { return fleet_->registry(); }

    yuzu::testing::TempDir dir_;
    ManualClock clock_;
    std::unique_ptr<fleet::Fleet> fleet_;
    std::unique_ptr<Executions> executions_;
};

}  // namespace yuzu::execution::testing
