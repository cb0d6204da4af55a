// The few facts about the host that enrollment and heartbeats carry.
//
// Thread-safety: free functions without state; call them from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "yuzu/agent/host_paths.hpp"

namespace yuzu::agent {

struct HostFacts {
    std::string hostname;    // gethostname(2); empty if it failed
    std::string os;          // "linux"
    std::string arch;        // uname(2) machine, e.g. "x86_64"
    std::string os_version;  // os-release PRETTY_NAME (else NAME VERSION); empty if unknown
};

HostFacts read_host_facts(const HostPaths& paths);

// Seconds since boot from <proc_root>/uptime.
std::optional<int64_t> read_uptime_s(const HostPaths& paths);

}  // namespace yuzu::agent
