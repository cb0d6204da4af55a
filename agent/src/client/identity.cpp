#include "client/identity.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

namespace yuzu::agent {
namespace {

constexpr int kMaxPollWaitS = 60;  // the protocol's cap on wait_s

HttpTimeouts timeouts_for(const AgentOptions& options) {
    HttpTimeouts t;
    t.connect = options.connect_timeout;
    t.read = options.request_timeout;
    t.write = options.request_timeout;
    return t;
}

}  // namespace

Identity::Identity(std::string name, std::filesystem::path dir,
                   std::optional<IdentityRecord> record, const RuntimeContext& ctx,
                   std::string source_address)
    : name_(std::move(name)),
      dir_(std::move(dir)),
      source_address_(std::move(source_address)),
      stop_(ctx.stop),
      record_(record.value_or(IdentityRecord{})),
      phase_(record ? IdentityPhase::kActive : IdentityPhase::kEnrolling),
      credential_(dir_),
      // Kept alive: a poll, the results it brought and the next poll share
      // one connection, so an agent costs the server one socket, not a new
      // one per request.
      poll_channel_(ctx.endpoint, ctx.options.ca_file, timeouts_for(ctx.options), source_address_,
                    /*keep_alive=*/true, &credential_),
      control_channel_(ctx.endpoint, ctx.options.ca_file, timeouts_for(ctx.options),
                       source_address_, /*keep_alive=*/false, &credential_) {}

std::string Identity::label() const {
    if (phase() == IdentityPhase::kEnrolling || record_.agent_id.empty()) return name_;
    return name_ + " (" + record_.agent_id.substr(0, 8) + ")";
}

void Identity::activate(IdentityRecord record) {
    record_ = std::move(record);
    IdentityPhase expected = IdentityPhase::kEnrolling;
    phase_.compare_exchange_strong(expected, IdentityPhase::kActive);
    stop_.notify();  // the scheduler sends the first heartbeat now
}

void Identity::apply(const ServerSettings& settings) {
    if (settings.heartbeat_interval_s) heartbeat_interval_s_ = *settings.heartbeat_interval_s;
    if (settings.inventory_interval_s) inventory_interval_s_ = *settings.inventory_interval_s;
    if (settings.poll_wait_s) poll_wait_s_ = std::min(*settings.poll_wait_s, kMaxPollWaitS);
    if (settings.quarantined) {
        const bool was = quarantined_.exchange(*settings.quarantined);
        if (was != *settings.quarantined) {
            spdlog::info("{}: {}", label(),
                         *settings.quarantined
                             ? "quarantined by the server; every command will be refused"
                             : "released from quarantine");
        }
    }
}

void Identity::refuse(const std::string& request, const HttpReply& reply) {
    if (phase_.exchange(IdentityPhase::kStopped) != IdentityPhase::kStopped) {
        spdlog::error(
            "{}: device token refused by the server on {} ({}); this identity stops. Enroll it "
            "again with a new enrollment token after removing {}",
            label(), request, describe_reply(reply), (dir_ / kIdentityFileName).string());
    }
    cancel_requests();
    wake();
    stop_.notify();
}

void Identity::halt() {
    phase_ = IdentityPhase::kStopped;
    cancel_requests();
    wake();
    stop_.notify();
}

bool Identity::sleep_for(std::chrono::milliseconds d) {
    const auto done = [this] { return stop_.requested() || phase() == IdentityPhase::kStopped; };
    std::unique_lock lock(sleep_mu_);
    sleep_cv_.wait_for(lock, d, done);
    return done();
}

void Identity::wake() {
    { std::lock_guard lock(sleep_mu_); }  // a sleeper between its check and its wait sees it
    sleep_cv_.notify_all();
}

void Identity::cancel_requests() {
    poll_channel_.cancel();
    control_channel_.cancel();
}

}  // namespace yuzu::agent
