#include "client/command_executor.hpp"

#include <chrono>

namespace yuzu::agent {
namespace {

bool known_status(const std::string& status) {
    return status == "success" || status == "failure" || status == "timeout";
}

}  // namespace

std::string execute_command(const AgentCommand& cmd, bool quarantined,
                            const PluginRegistry& plugins) {
    if (quarantined) return result_body(cmd.command_id, "refused", "null", kQuarantinedError, 0);
    if (cmd.plugin.empty() || cmd.action.empty()) {
        return result_body(cmd.command_id, "failure", "null", "command names no plugin or action",
                           0);
    }
    PluginLimits limits;
    limits.timeout = std::chrono::seconds(cmd.timeout_s);
    const auto start = std::chrono::steady_clock::now();
    PluginOutcome outcome = plugins.run(cmd.plugin, cmd.action, cmd.params_json, limits);
    const auto duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::steady_clock::now() - start)
                                 .count();
    if (!known_status(outcome.status)) {
        return result_body(cmd.command_id, "failure", "null",
                           cmd.plugin + "." + cmd.action + " returned an unknown status",
                           duration_ms);
    }
    return result_body(cmd.command_id, outcome.status, outcome.output_json, outcome.error,
                       duration_ms);
}

}  // namespace yuzu::agent
