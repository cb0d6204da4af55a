// One identity of the agent (agent-0, agent-1, ... under --virtual N): its
// enrolled record, the settings the server last sent, whether it is still
// running, and its two connections (the long-poll thread's and its
// scheduler shard's), both from the identity's source address, both
// presenting the identity's client certificate over https once it has one.
//
// Thread-safety: phase, settings and quarantine are atomics readable from
// any thread. The record is written once by the identity's own thread
// before the phase becomes kActive, and only read after that. The first
// request time is set before any thread starts. poll_channel() and
// sleep_for() belong to the identity's thread, control_channel() to the
// scheduler; cancel_requests(), wake(), refuse() and credential() may be
// called from any thread (ClientCredential is thread-safe, and each channel
// notices a change of it at its owner's next request).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

#include "client/client_credential.hpp"
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
    // record is set when identity.json already exists; source_address ""
    // lets the kernel pick (source_address.hpp says when it is not).
    Identity(std::string name, std::filesystem::path dir, std::optional<IdentityRecord> record,
             const RuntimeContext& ctx, std::string source_address = "");

    const std::string& name() const { return name_; }
    const std::filesystem::path& dir() const { return dir_; }
    const std::string& source_address() const { return source_address_; }
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

    // Its first request (enrollment, poll or heartbeat) waits until then, so
    // identities started together reach the server spread out.
    void set_first_request_at(std::chrono::steady_clock::time_point t) { first_request_at_ = t; }
    std::chrono::steady_clock::time_point first_request_at() const { return first_request_at_; }

    // Waits up to d, or until the identity or the agent stops; returns
    // whether it should stop. Each identity waits on its own condition, so
    // thousands of sleeping identities are not all woken by every event of
    // the agent-wide StopSignal.
    bool sleep_for(std::chrono::milliseconds d);
    // Ends a sleep_for early to re-check; the runtime calls it on a stop.
    void wake();

    HttpChannel& poll_channel() { return poll_channel_; }
    HttpChannel& control_channel() { return control_channel_; }
    // client.key and client.crt in dir().
    ClientCredential& credential() { return credential_; }

  private:
    const std::string name_;
    const std::filesystem::path dir_;
    const std::string source_address_;
    StopSignal& stop_;
    IdentityRecord record_;
    std::atomic<IdentityPhase> phase_;
    std::atomic<int> heartbeat_interval_s_{10};
    std::atomic<int> inventory_interval_s_{300};
    std::atomic<int> poll_wait_s_{25};
    std::atomic<bool> quarantined_{false};
    std::chrono::steady_clock::time_point first_request_at_{};
    std::mutex sleep_mu_;
    std::condition_variable sleep_cv_;
    ClientCredential credential_;  // before the channels, which keep a pointer to it
    HttpChannel poll_channel_;
    HttpChannel control_channel_;
};

}  // namespace yuzu::agent
