// ensure_private_dir: the data directory that holds a server's databases.
//
// Thread-safety: safe to call from any thread (it only touches the file system).
#pragma once

#include <string>

#include "yuzu/common/status.hpp"

namespace yuzu::store {

// Creates `dir` (and any missing parents) with mode 0700 if it does not exist.
// An existing directory is accepted as it is if this process can write to it
// (a warning is logged if it is open to group or others). Anything else (a
// file in the way, no permission) returns FailedPrecondition naming the path.
Status ensure_private_dir(const std::string& dir);

}  // namespace yuzu::store
