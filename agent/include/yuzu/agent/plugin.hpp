// Agent plugins: the `plugin.action` handlers that answer instructions by
// reading (or, for a few actions, changing) the real host. Each handler
// validates its parameters, runs nothing through a shell, honours its
// timeout, caps its output, and reports a clear error rather than partial
// output.
//
// Thread-safety: a PluginRegistry is immutable once built; run() may be
// called from several threads at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace yuzu::agent {

inline constexpr size_t kDefaultMaxOutputBytes = size_t{1} * 1024 * 1024;

struct PluginOutcome {
    std::string status;                // "success" | "failure" | "timeout"
    std::string output_json = "null";  // a JSON value (object or array) on success
    std::string error;                 // on failure/timeout: one line, no host secrets
};

struct PluginLimits {
    std::chrono::milliseconds timeout{60'000};
    size_t max_output_bytes = kDefaultMaxOutputBytes;
};

// params_json is the command's "params" object as JSON text.
using PluginAction =
    std::function<PluginOutcome(const std::string& params_json, const PluginLimits& limits)>;

struct PluginInfo {
    std::string plugin;  // e.g. "os"
    std::string action;  // e.g. "info"
    std::string description;
    bool destructive = false;
};

class PluginRegistry {
  public:
    // Every built-in plugin action of this build.
    static PluginRegistry builtin();

    void add(PluginInfo info, PluginAction action);
    bool has(const std::string& plugin, const std::string& action) const;
    std::vector<PluginInfo> list() const;
    // Runs plugin.action. An unknown pair, malformed params_json or a
    // handler that throws becomes a "failure" outcome; output over
    // limits.max_output_bytes becomes a "failure" ("output exceeds N bytes").
    PluginOutcome run(const std::string& plugin, const std::string& action,
                      const std::string& params_json, const PluginLimits& limits) const;

  private:
    struct Entry {
        PluginInfo info;
        PluginAction action;
    };
    std::map<std::string, Entry> entries_;  // key "plugin.action"
};

}  // namespace yuzu::agent
