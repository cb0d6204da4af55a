// The running agent: one or more identities (--virtual N), each enrolled on
// its own, sending heartbeats and inventory (one scheduler thread for all)
// and long-polling for commands (one thread and connection per identity),
// as docs/agent-protocol.md describes.
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

    // Prepares every identity, then runs until request_stop() or until no
    // identity is left running. Returns:
    //  - Ok after a requested stop (goodbyes sent);
    //  - InvalidArgument before starting when the options cannot work (bad
    //    URL, unreadable --ca-file, an identity to enroll and no token);
    //  - FailedPrecondition before starting when an identity is enrolled
    //    with another server, Unavailable when the state directory cannot
    //    be used;
    //  - FailedPrecondition when every identity stopped on its own (device
    //    token refused, enrollment rejected); the log says why.
    Status run();

    // Idempotent.
    void request_stop();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace yuzu::agent
