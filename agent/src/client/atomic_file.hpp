// Writing a file in the agent's state directory so that a crash leaves the
// old file or the new one, never a mix: identity.json, client.crt.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::agent {

// data replaces path: a temporary file beside it (mode), fsync, rename,
// and an fsync of the directory.
Status write_file_atomically(const std::filesystem::path& path, std::string_view data, mode_t mode);
// Makes renames and unlinks in dir durable.
Status sync_directory(const std::filesystem::path& dir);

}  // namespace yuzu::agent
