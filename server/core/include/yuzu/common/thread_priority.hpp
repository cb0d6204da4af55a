// Per-thread CPU priority. On Linux the nice value belongs to a thread, not
// the process, so a listener or a background job can yield to the rest of
// the server without a process of its own.
#pragma once

#include "yuzu/common/status.hpp"

namespace yuzu {

// Adds `steps` (>= 0) to the calling thread's nice value: it then gets less
// CPU than threads at the process's own priority when both want it. On
// failure (Unavailable, with the reason) the thread keeps its priority.
Status lower_thread_priority(int steps);

// The calling thread's nice value.
int thread_nice_value();

}  // namespace yuzu
