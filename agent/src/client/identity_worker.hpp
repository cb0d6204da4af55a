// The thread of one identity: wait for its spread-out first request time,
// enroll if identity.json does not exist yet, then long-poll for commands,
// answer each one, and say goodbye on a requested stop.
//
// Thread-safety: run_identity is the body of the identity's own thread.
#pragma once

#include "client/identity.hpp"

namespace yuzu::agent {

// Returns when the agent stops or the identity stops (refused, rejected).
void run_identity(Identity& identity, const RuntimeContext& ctx);

}  // namespace yuzu::agent
