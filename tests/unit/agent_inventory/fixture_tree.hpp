// A fake host tree in a temporary directory: proc/, etc/ and run/ roots a
// HostPaths points at, filled file by file by each test.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "support/temp_dir.hpp"
#include "yuzu/agent/inventory.hpp"

namespace yuzu::agent::testing {

class FixtureTree {
  public:
    FixtureTree() {
        std::filesystem::create_directories(dir_ / "proc");
        std::filesystem::create_directories(dir_ / "etc");
        std::filesystem::create_directories(dir_ / "run");
        env_.paths.proc_root = (dir_ / "proc").string();
        env_.paths.etc_root = (dir_ / "etc").string();
        env_.paths.run_root = (dir_ / "run").string();
        env_.paths.disk_path = dir_.str();
    }

    // Writes root-relative path (e.g. "proc/net/tcp") with the given text.
    void write(const std::string& relative, const std::string& text) const {
        const auto path = dir_ / relative;
        std::filesystem::create_directories(path.parent_path());
        std::ofstream out(path, std::ios::binary);
        out << text;
    }

    const InventoryEnv& env() const { return env_; }
    std::string root() const { return dir_.str(); }

  private:
    yuzu::testing::TempDir dir_;
    InventoryEnv env_;
};

}  // namespace yuzu::agent::testing
