// One identity of the agent (agent-0, agent-1, ... under --virtual N): its
// enrolled record, the settings the server last sent, whether it is still
// running, and its two connections (the long-poll thread's and the
// scheduler's).
//
// Thread-safety: phase, settings and quarantine are atomics readable from
// any thread. The record is written once by the identity's own thread
// before the phase becomes kActive, and only read after that. poll_channel()
// belongs to the identity's thread, control_channel() to the scheduler;
// cancel_requests() and refuse() may be called from any thread.
#pragma once

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>

#include "client/http_channel.hpp"
#include "client/protocol_json.hpp"
#include "client/stop_signal.hpp"
#include "yuzu/agent/agent_runtime.hpp"
#include "yuzu/agent/identity_store.hpp"
#include "yuzu/agent/server_endpoint.hpp"

namespace yuzu::agent {

// What every identity shares: the options, the parsed server URL, the
// plugins and the agent-wide stop signal.
struct RuntimeContext {
    const AgentOptions& options;
    const ServerEndpoint& endpoint;
    const PluginRegistry& plugins;
    StopSignal& stop;
};

enum class IdentityPhase { kEnrolling, kActive, kStopped };

class Identity {
  public:
    // record is set when identity.json already exists.
    Identity(std::string name, std::filesystem::path dir, std::optional<IdentityRecord> record,
             const RuntimeContext& ctx);

    const std::string& name() const { return name_; }
    const std::filesystem::path& dir() const { return dir_; }
    IdentityPhase phase() const { return phase_.load(); }
    bool active() const { return phase() == IdentityPhase::kActive; }
    // "agent-0 (3f2a9c1e)" for log lines: the name and the agent id's start.
    std::string label() const;

    // Only once active().
    const IdentityRecord& record() const { return record_; }
    // The identity's thread, after a successful enrollment: records and activates.
    void activate(IdentityRecord record);

    void apply(const ServerSettings& settings);
    int heartbeat_interval_s() const { return heartbeat_interval_s_.load(); }
    int inventory_interval_s() const { return inventory_interval_s_.load(); }
    int poll_wait_s() const { return poll_wait_s_.load(); }
    bool quarantined() const { return quarantined_.load(); }

    // The server refused the device token (401) on `request`: the identity
    // stops, says so once, and its requests in flight are aborted.
    void refuse(const std::string& request, const HttpReply& reply);
    // Stops the identity for another reason, logged by the caller.
    void halt();
    void cancel_requests();

    HttpChannel& poll_channel() { return poll_channel_; }
    HttpChannel& control_channel() { return control_channel_; }

  private:
    const std::string name_;
    const std::filesystem::path dir_;
    StopSignal& stop_;
    IdentityRecord record_;
    std::atomic<IdentityPhase> phase_;
    std::atomic<int> heartbeat_interval_s_{10};
    std::atomic<int> inventory_interval_s_{300};
    std::atomic<int> poll_wait_s_{25};
    std::atomic<bool> quarantined_{false};
    HttpChannel poll_channel_;
    HttpChannel control_channel_;
};

}  // namespace yuzu::agent
