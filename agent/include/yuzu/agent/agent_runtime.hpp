// The running agent: one or more identities (--virtual N), each enrolled on
// its own, sending heartbeats and inventory (one scheduler thread per 500
// identities, at most 20) and long-polling for commands (one thread and
// connection per identity), as docs/agent-protocol.md describes.
//
// Thread-safety: run() is called once, from one thread; request_stop() may
// be called from any thread (not from a signal handler) at any time.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "yuzu/agent/host_paths.hpp"
#include "yuzu/agent/plugin.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::agent {

struct AgentOptions {
    std::string server_url;
    std::string enrollment_token;  // needed only by identities not enrolled yet; never logged
    std::filesystem::path state_dir;
    int virtual_count = 1;  // identities agent-0 .. agent-(N-1)
    std::string ca_file;    // PEM bundle for https; empty = the system store
    HostPaths host_paths;   // where heartbeats and inventory read the host
    // With N > 1 against a loopback server, identity i connects from
    // 127.100.(i / 250).(i % 250 + 1), so a server capping connections per
    // peer address does not refuse them (--no-virtual-source-addresses).
    bool virtual_source_addresses = true;

    // Timing; the defaults are the protocol's, tests shorten them.
    std::chrono::milliseconds backoff_initial{1000};
    std::chrono::milliseconds backoff_max{60'000};
    std::chrono::milliseconds connect_timeout{5000};
    std::chrono::milliseconds request_timeout{30'000};  // every request but the long-poll
    std::chrono::milliseconds goodbye_timeout{1500};
    std::chrono::seconds default_retry_after{5};

    const Clock* clock = &SystemClock::instance();  // stamps collected_at and enrolled_at
    // Produces the inventory's "sources" object (JSON text). Empty: the real
    // collectors of yuzu/agent/inventory.hpp, cancelled by the stop flag.
    std::function<std::string(const std::atomic<bool>& stop)> collect_sources;
};

class AgentRuntime {
  public:
    // plugins must outlive the runtime.
    AgentRuntime(AgentOptions options, const PluginRegistry& plugins);
    ~AgentRuntime();
    AgentRuntime(const AgentRuntime&) = delete;
    AgentRuntime& operator=(const AgentRuntime&) = delete;

    // Prepares every identity, raises the process's soft open-file limit to
    // its hard limit, then runs until request_stop() or until no identity
    // is left running. Each identity's first request waits a random
    // 0..N/10 ms (at most 5 s) so N identities do not start in step. Returns:
    //  - Ok after a requested stop (goodbyes sent);
    //  - InvalidArgument before starting when the options cannot work (bad
    //    URL, unreadable --ca-file, an identity to enroll and no token);
    //  - FailedPrecondition before starting when an identity is enrolled
    //    with another server, Unavailable when the state directory cannot
    //    be used;
    //  - FailedPrecondition when every identity stopped on its own (device
    //    token refused, enrollment rejected); the log says why;
    //  - Unavailable when a thread could not be started (the thread limits
    //    are too low for N identities); those started are stopped first.
    Status run();

    // Idempotent.
    void request_stop();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace yuzu::agent
