#include <algorithm>
#include <cassert>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>

#include "plugins/builtin_plugins.hpp"
#include "yuzu/agent/plugin.hpp"
#include "yuzu/common/json_parse.hpp"
#include "yuzu/common/thread_guard.hpp"

namespace yuzu::agent {
namespace {

// params_json larger than this is refused before parsing; individual string
// parameters have much smaller caps enforced by each plugin.
constexpr size_t kMaxParamsBytes = size_t{4} * 1024 * 1024;
// Errors travel to the server as one line; keep them short.
constexpr size_t kMaxErrorChars = 1024;
// A handler that honours its own deadline (kills its child, stops reading)
// gets this long after the deadline to report before it is abandoned.
constexpr std::chrono::milliseconds kDeadlineGrace{500};
// Longer timeouts are refused: deadline arithmetic stays far from overflow
// and no instruction should hold a plugin for over a day.
constexpr std::chrono::milliseconds kMaxTimeout{24 * 60 * 60 * 1000};

std::string key_of(const std::string& plugin, const std::string& action) {
    return plugin + "." + action;
}

PluginOutcome failure(std::string error) {
    PluginOutcome out;
    out.status = "failure";
    out.error = std::move(error);
    return out;
}

// Collapses control characters so the error is one printable line, then caps
// it.
std::string one_line(const std::string& text) {
    std::string out;
    out.reserve(std::min(text.size(), kMaxErrorChars));
    for (char c : text) {
        if (out.size() >= kMaxErrorChars) break;
        const auto u = static_cast<unsigned char>(c);
        out.push_back(u < 0x20 || u == 0x7f ? ' ' : c);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

// Shared between run() and the worker thread; the worker may outlive run()
// when the handler ignores its deadline, so nothing here refers to the
// registry.
struct WorkerState {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    PluginOutcome outcome;
};

void run_handler(const std::shared_ptr<WorkerState>& state, const PluginAction& action,
                 const std::string& params_json, const PluginLimits& limits) {
    PluginOutcome outcome;
    try {
        outcome = action(params_json, limits);
    } catch (const std::exception& e) {
        outcome = failure(std::string("plugin raised an error: ") + e.what());
    } catch (...) {
        outcome = failure("plugin raised an unknown error");
    }
    std::lock_guard lock(state->mutex);
    state->outcome = std::move(outcome);
    state->done = true;
    state->done_cv.notify_all();
}

// Checks a finished handler's outcome against the contract: a known status,
// output within the cap, a one-line error.
PluginOutcome finish(PluginOutcome outcome, const PluginLimits& limits) {
    if (outcome.status == "success") {
        if (outcome.output_json.size() > limits.max_output_bytes) {
            return failure("output exceeds " + std::to_string(limits.max_output_bytes) + " bytes");
        }
        if (outcome.output_json.empty()) outcome.output_json = "null";
        outcome.error.clear();
        return outcome;
    }
    if (outcome.status != "failure" && outcome.status != "timeout") {
        return failure("plugin reported an invalid status");
    }
    outcome.output_json = "null";
    outcome.error = one_line(outcome.error);
    if (outcome.error.empty()) outcome.error = "plugin failed without a message";
    return outcome;
}

}  // namespace

void PluginRegistry::add(PluginInfo info, PluginAction action) {
    assert(action);
    std::string key = key_of(info.plugin, info.action);
    entries_.insert_or_assign(std::move(key), Entry{std::move(info), std::move(action)});
}

bool PluginRegistry::has(const std::string& plugin, const std::string& action) const {
    return entries_.count(key_of(plugin, action)) != 0;
}

std::vector<PluginInfo> PluginRegistry::list() const {
    std::vector<PluginInfo> out;
    out.reserve(entries_.size());
    for (const auto& [key, entry] : entries_) out.push_back(entry.info);
    return out;
}

PluginOutcome PluginRegistry::run(const std::string& plugin, const std::string& action,
                                  const std::string& params_json,
                                  const PluginLimits& limits) const {
    const auto it = entries_.find(key_of(plugin, action));
    if (it == entries_.end()) {
        return failure("unknown plugin action '" + one_line(key_of(plugin, action)) + "'");
    }
    if (limits.timeout.count() <= 0 || limits.timeout > kMaxTimeout) {
        return failure("timeout must be from 1 ms to " + std::to_string(kMaxTimeout.count()) +
                       " ms");
    }
    if (params_json.size() > kMaxParamsBytes) {
        return failure("params exceed " + std::to_string(kMaxParamsBytes) + " bytes");
    }
    std::string params = params_json;
    if (params.find_first_not_of(" \t\r\n") == std::string::npos) params = "{}";
    const auto parsed = yuzu::parse_json_or_discarded(params);
    if (parsed.is_discarded()) return failure("params_json is not valid JSON");
    if (parsed.is_null()) {
        params = "{}";
    } else if (!parsed.is_object()) {
        return failure("params must be a JSON object");
    }

    // The handler runs on its own thread so a handler stuck in the kernel
    // (a hung mount, a wedged pipe) cannot hold the caller past its timeout.
    auto state = std::make_shared<WorkerState>();
    try {
        // A handler's own exception becomes its failure outcome (run_handler);
        // anything past that is logged and counted, and the caller times out.
        std::thread([state, handler = it->second.action, params, limits]() noexcept {
            (void)run_guarded("agent.plugin", [&] { run_handler(state, handler, params, limits); });
        }).detach();
    } catch (const std::exception& e) {
        return failure(std::string("could not start plugin: ") + e.what());
    }
    std::unique_lock lock(state->mutex);
    const bool finished =
        state->done_cv.wait_for(lock, limits.timeout + kDeadlineGrace, [&] { return state->done; });
    if (!finished) {
        PluginOutcome out;
        out.status = "timeout";
        out.error =
            "plugin did not finish within " + std::to_string(limits.timeout.count()) + " ms";
        return out;
    }
    return finish(std::move(state->outcome), limits);
}

PluginRegistry PluginRegistry::builtin() {
    PluginRegistry registry;
    plugins::register_builtin_plugins(registry, plugins::HostPaths{});
    return registry;
}

namespace plugins {

void register_builtin_plugins(PluginRegistry& registry, const HostPaths& paths) {
    register_os_plugins(registry, paths);
    register_process_plugins(registry, paths);
    register_service_plugins(registry, paths);
    register_disk_plugins(registry, paths);
    register_file_plugins(registry, paths);
    register_network_plugins(registry, paths);
    register_package_plugins(registry, paths);
    register_reboot_plugins(registry, paths);
    register_user_plugins(registry, paths);
    register_perf_plugins(registry, paths);
}

}  // namespace plugins

}  // namespace yuzu::agent
