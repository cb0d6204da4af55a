// Raises the soft open-files limit toward what the listeners' connection
// caps need. Shells start processes at 1024, well below 1024 management +
// 4096 agent-plane connections plus the stores; the hard limit (systemd:
// LimitNOFILE) is the ceiling.
#pragma once

#include <cstdint>

namespace yuzu::app {

// Returns the soft limit in force afterwards; logs a warning when it stays
// below `wanted`.
uint64_t raise_open_files_limit(uint64_t wanted);

}  // namespace yuzu::app
