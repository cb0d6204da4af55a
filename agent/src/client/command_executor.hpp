// Turns one delivered command into the result the agent posts: run through
// the plugin registry with the command's timeout, or refused while the
// server reports the agent quarantined.
//
// Thread-safety: a pure function of its arguments; the registry is
// immutable and may be shared.
#pragma once

#include <string>

#include "client/protocol_json.hpp"
#include "yuzu/agent/plugin.hpp"

namespace yuzu::agent {

inline constexpr const char* kQuarantinedError = "agent is quarantined";

// The POST /agent/v1/results body for cmd.
std::string execute_command(const AgentCommand& cmd, bool quarantined,
                            const PluginRegistry& plugins);

}  // namespace yuzu::agent
