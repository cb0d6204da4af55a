// Helpers shared by the agent plugin tests: running an action with JSON
// params, fixture files, and a fake executable directory whose programs
// record that they ran.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "plugins/builtin_plugins.hpp"
#include "support/temp_dir.hpp"
#include "yuzu/agent/plugin.hpp"

namespace yuzu::agent::testing {

inline PluginLimits limits_of(std::chrono::milliseconds timeout,
                              size_t max_output = kDefaultMaxOutputBytes) {
    PluginLimits limits;
    limits.timeout = timeout;
    limits.max_output_bytes = max_output;
    return limits;
}

inline PluginOutcome run(const PluginRegistry& registry, const std::string& plugin,
                         const std::string& action, const nlohmann::json& params,
                         const PluginLimits& limits = PluginLimits{}) {
    return registry.run(plugin, action, params.dump(), limits);
}

// The output of a successful outcome, parsed; fails the test otherwise.
inline nlohmann::json output_of(const PluginOutcome& outcome) {
    EXPECT_EQ(outcome.status, "success") << outcome.error;
    if (outcome.status != "success") return nlohmann::json();
    return nlohmann::json::parse(outcome.output_json);
}

inline void write_file(const std::filesystem::path& path, const std::string& content) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
    ASSERT_TRUE(out.good()) << path;
}

inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A directory of fake executables. Each script appends its arguments to
// <dir>/calls.log before doing what the test asked, so a test can prove a
// command never ran.
class FakeBin {
  public:
    FakeBin() { std::filesystem::create_directories(dir_.path() / "bin"); }

    std::string bin_dir() const { return (dir_.path() / "bin").string(); }
    std::filesystem::path calls_log() const { return dir_.path() / "calls.log"; }
    bool ran() const { return std::filesystem::exists(calls_log()); }

    // Installs bin/<name> as a /bin/sh script running `body` after logging.
    void add(const std::string& name, const std::string& body) {
        const auto path = dir_.path() / "bin" / name;
        write_file(path, "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '" + calls_log().string() + "'\n" +
                             body + "\n");
        ::chmod(path.c_str(), 0755);
    }

    // Paths pointing exec lookups (only) at the fake bin directory.
    plugins::HostPaths paths() const {
        plugins::HostPaths p;
        p.exec_dirs = {bin_dir()};
        return p;
    }

  private:
    yuzu::testing::TempDir dir_;
};

}  // namespace yuzu::agent::testing
