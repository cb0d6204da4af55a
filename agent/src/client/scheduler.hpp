// The scheduler thread: heartbeats and inventory reports for every active
// identity, each on the intervals the server sets. One host reading serves
// all identities due at the same time (virtual identities report the same
// real host).
//
// Thread-safety: run_scheduler is the body of the single scheduler thread;
// it uses only the identities' control channels.
#pragma once

#include <vector>

#include "client/identity.hpp"

namespace yuzu::agent {

// Returns when the agent stops.
void run_scheduler(const std::vector<Identity*>& identities, const RuntimeContext& ctx);

}  // namespace yuzu::agent
