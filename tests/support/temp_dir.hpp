// A directory under $TMPDIR removed (recursively) when the object dies.
#pragma once

#include <filesystem>
#include <string>

namespace yuzu::testing {

class TempDir {
  public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return path_; }
    std::string str() const { return path_.string(); }
    std::filesystem::path operator/(const std::string& child) const { return path_ / child; }

  private:
    std::filesystem::path path_;
};

}  // namespace yuzu::testing
