// Helpers every plugin uses to build its PluginOutcome and to keep to its
// deadline. Private to yuzu_agent_plugins. Thread-safety: stateless.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "yuzu/agent/plugin.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::agent::plugins {

// Serialises output; invalid UTF-8 from the host (odd file or process names)
// is replaced rather than thrown on.
PluginOutcome success(const nlohmann::json& output);
PluginOutcome failure(std::string error);
PluginOutcome timed_out(std::string error);
// A non-ok Status as a "failure" outcome carrying its message.
PluginOutcome failure_from(const Status& status);

// The moment a handler must stop; taken from PluginLimits when it starts.
class Deadline {
  public:
    explicit Deadline(std::chrono::milliseconds budget)
        : at_(std::chrono::steady_clock::now() + budget) {}
    bool passed() const { return std::chrono::steady_clock::now() >= at_; }
    std::chrono::milliseconds remaining() const {
        const auto left = at_ - std::chrono::steady_clock::now();
        return left.count() > 0 ? std::chrono::duration_cast<std::chrono::milliseconds>(left)
                                : std::chrono::milliseconds{0};
    }

  private:
    std::chrono::steady_clock::time_point at_;
};

// Rounds a percentage to one decimal place for output.
double round_pct(double pct);

}  // namespace yuzu::agent::plugins
