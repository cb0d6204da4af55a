// ensure_private_dir: the data directory that holds a server's databases.
//
// Thread-safety: safe to call from any thread (it only touches the file system).
#pragma once

#include <string>

#include "yuzu/common/status.hpp"

namespace yuzu::store {

// Creates `dir` (and any missing parents) with mode 0700 if it does not exist.
// An existing directory this process can write to is accepted; if group or
// others have any access to it, it is made 0700 (logged), and a directory
// that cannot be tightened is refused. Anything else (a file in the way, no
// permission) returns FailedPrecondition naming the path.
Status ensure_private_dir(const std::string& dir);

}  // namespace yuzu::store
