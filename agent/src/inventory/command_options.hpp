// The subprocess limits a collector's programs run under.
//
// Thread-safety: a pure function.
#pragma once

#include "yuzu/agent/inventory.hpp"
#include "yuzu/agent/subprocess.hpp"

namespace yuzu::agent {

inline SubprocessOptions command_options(const InventoryEnv& env) {
    SubprocessOptions options;
    options.timeout = env.command_timeout;
    options.max_output_bytes = env.command_output_cap;
    options.cancel = env.cancel;
    return options;
}

}  // namespace yuzu::agent
