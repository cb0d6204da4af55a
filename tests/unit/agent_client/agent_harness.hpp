// Test plumbing for AgentRuntime: options pointed at a FakeAgentServer with
// short back-offs, a tiny plugin registry, and the runtime on a thread.
#pragma once

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "fake_agent_server.hpp"
#include "support/temp_dir.hpp"
#include "yuzu/agent/agent_runtime.hpp"
#include "yuzu/agent/inventory.hpp"

namespace yuzu::agent::testing {

// "test.echo" answers {"params": <params>, "timeout_ms": <limit>};
// "test.fail" fails. Both count their runs.
class TestPlugins {
  public:
    TestPlugins() {
        registry.add(PluginInfo{"test", "echo", "echoes its params", false},
                     [this](const std::string& params, const PluginLimits& limits) {
                         ++echo_runs;
                         PluginOutcome out;
                         out.status = "success";
                         out.output_json =
                             nlohmann::json({{"params", nlohmann::json::parse(params)},
                                             {"timeout_ms", limits.timeout.count()}})
                                 .dump();
                         return out;
                     });
        registry.add(PluginInfo{"test", "fail", "always fails", false},
                     [this](const std::string&, const PluginLimits&) {
                         ++fail_runs;
                         PluginOutcome out;
                         out.status = "failure";
                         out.error = "it failed on purpose";
                         return out;
                     });
    }
    PluginRegistry registry;
    std::atomic<int> echo_runs{0};
    std::atomic<int> fail_runs{0};
};

inline AgentOptions options_for(const FakeAgentServer& server, const yuzu::testing::TempDir& dir,
                                int virtual_count = 1) {
    AgentOptions o;
    o.server_url = server.url();
    o.enrollment_token = kEnrollmentToken;
    o.state_dir = dir.path() / "state";
    o.virtual_count = virtual_count;
    o.backoff_initial = std::chrono::milliseconds(20);
    o.backoff_max = std::chrono::milliseconds(200);
    o.connect_timeout = std::chrono::milliseconds(2000);
    o.request_timeout = std::chrono::milliseconds(5000);
    o.goodbye_timeout = std::chrono::milliseconds(1000);
    // Two real sources keep each report quick; RealInventory sends all of them.
    o.collect_sources = [](const std::atomic<bool>&) {
        return "{\"kernel\":" + collect_kernel(InventoryEnv{}).to_json() +
               ",\"memory\":" + collect_memory(InventoryEnv{}).to_json() + "}";
    };
    return o;
}

// Runs an AgentRuntime on a thread; stops it (if still running) on destruction.
class RunningAgent {
  public:
    RunningAgent(AgentOptions options, const PluginRegistry& plugins)
        : runtime_(std::move(options), plugins) {
        thread_ = std::thread([this] {
            status_ = runtime_.run();
            finished_ = true;
        });
    }
    ~RunningAgent() { (void)stop(); }

    // Requests a stop and waits for run() to return.
    Status stop() {
        runtime_.request_stop();
        if (thread_.joinable()) thread_.join();
        return status_;
    }
    // Waits for run() to return on its own.
    bool wait_finished(std::chrono::milliseconds timeout) {
        return FakeAgentServer::wait_until([this] { return finished_.load(); }, timeout);
    }
    const Status& status() const { return status_; }  // after it finished

  private:
    AgentRuntime runtime_;
    std::thread thread_;
    Status status_;
    std::atomic<bool> finished_{false};
};

inline nlohmann::json command(const std::string& id, const std::string& plugin,
                              const std::string& action, nlohmann::json params = {{"x", 1}}) {
    return {{"command_id", id}, {"execution_id", "e-" + id},   {"plugin", plugin},
            {"action", action}, {"params", std::move(params)}, {"timeout_s", 7}};
}

}  // namespace yuzu::agent::testing
