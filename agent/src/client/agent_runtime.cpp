#include "yuzu/agent/agent_runtime.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <utility>
#include <vector>

#include "client/identity.hpp"
#include "client/identity_worker.hpp"
#include "client/scheduler.hpp"
#include "client/stop_signal.hpp"
#include "yuzu/agent/identity_store.hpp"
#include "yuzu/agent/server_endpoint.hpp"
#include "yuzu/common/thread_guard.hpp"

namespace yuzu::agent {
namespace {

constexpr int kMaxVirtual = 10'000;
constexpr auto kCancelInterval = std::chrono::milliseconds(50);

}  // namespace

struct AgentRuntime::Impl {
    Impl(AgentOptions opts, const PluginRegistry& registry)
        : options(std::move(opts)), plugins(registry) {}

    // Loads or prepares every identity; fails before any thread starts.
    Status prepare(const ServerEndpoint& endpoint, const RuntimeContext& ctx) {
        for (int i = 0; i < options.virtual_count; ++i) {
            const std::string name = identity_name(i);
            auto dir = prepare_identity_dir(options.state_dir, name);
            if (!dir.ok()) return dir.status();
            auto record = load_identity(*dir);
            std::optional<IdentityRecord> existing;
            if (record.ok()) {
                if (record->server_url != endpoint.url()) {
                    return Status::FailedPrecondition(
                        name + " is enrolled with " + record->server_url + ", not " +
                        endpoint.url() + "; remove " + (*dir / kIdentityFileName).string() +
                        " to enroll it with the new server");
                }
                existing = std::move(*record);
            } else if (record.status().code() != StatusCode::kNotFound) {
                return record.status();
            } else if (options.enrollment_token.empty()) {
                return Status::InvalidArgument(
                    name + " is not enrolled (no " + (*dir / kIdentityFileName).string() +
                    ") and no enrollment token was given (--enrollment-token or "
                    "YUZU_AGENT_ENROLLMENT_TOKEN)");
            }
            identities.push_back(
                std::make_unique<Identity>(name, std::move(*dir), std::move(existing), ctx));
        }
        return Status::Ok();
    }

    AgentOptions options;
    const PluginRegistry& plugins;
    StopSignal stop;
    std::atomic<bool> stop_requested{false};  // by request_stop(), not by every identity ending
    std::vector<std::unique_ptr<Identity>> identities;
};

AgentRuntime::AgentRuntime(AgentOptions options, const PluginRegistry& plugins)
    : impl_(std::make_unique<Impl>(std::move(options), plugins)) {}

AgentRuntime::~AgentRuntime() = default;

void AgentRuntime::request_stop() {
    impl_->stop_requested = true;
    impl_->stop.request();
}

Status AgentRuntime::run() {
    Impl& impl = *impl_;
    const AgentOptions& options = impl.options;
    if (options.virtual_count < 1 || options.virtual_count > kMaxVirtual) {
        return Status::InvalidArgument("virtual identity count must be 1.." +
                                       std::to_string(kMaxVirtual));
    }
    auto endpoint = parse_server_url(options.server_url);
    if (!endpoint.ok()) return endpoint.status();
    if (!options.ca_file.empty() && ::access(options.ca_file.c_str(), R_OK) != 0) {
        return Status::InvalidArgument("cannot read CA file " + options.ca_file);
    }
    if (!options.ca_file.empty() && !endpoint->tls()) {
        spdlog::warn("--ca-file is ignored: {} is not https", endpoint->url());
    }
    const RuntimeContext ctx{options, *endpoint, impl.plugins, impl.stop};
    YUZU_RETURN_IF_ERROR(impl.prepare(*endpoint, ctx));
    spdlog::info("yuzu-agent {}: {} identit{} against {}", YUZU_VERSION, options.virtual_count,
                 options.virtual_count == 1 ? "y" : "ies", endpoint->url());

    std::atomic<int> running{static_cast<int>(impl.identities.size())};
    std::vector<std::thread> threads;
    std::vector<Identity*> all;
    for (auto& id : impl.identities) {
        all.push_back(id.get());
        threads.emplace_back([&ctx, &running, &impl, identity = id.get()]() noexcept {
            // Its loops guard each iteration; what still escapes stops this
            // identity alone (logged and counted), and the others go on.
            if (!run_guarded("agent.identity", [&] { run_identity(*identity, ctx); })) {
                (void)run_guarded("agent.identity", [identity] { identity->halt(); });
            }
            running.fetch_sub(1);
            impl.stop.notify();
        });
    }
    std::atomic<bool> scheduler_done{false};
    threads.emplace_back([&]() noexcept {
        (void)run_guarded("agent.scheduler", [&] { run_scheduler(all, ctx); });
        scheduler_done = true;
    });

    while (!impl.stop.wait_for(std::chrono::hours(1), [&] { return running.load() == 0; }) &&
           running.load() > 0) {
    }
    impl.stop.request();  // every identity ended on its own: stop the scheduler too
    // A long-poll in flight does not see the flag: abort requests until every
    // identity thread has finished (a request may start just after a cancel).
    while (running.load() > 0 || !scheduler_done.load()) {
        for (auto& id : impl.identities) {
            // Identities saying goodbye use a channel of their own, which this leaves alone.
            id->cancel_requests();
        }
        std::this_thread::sleep_for(kCancelInterval);
    }
    for (auto& t : threads) t.join();

    if (impl.stop_requested.load()) {
        spdlog::info("yuzu-agent stopped");
        return Status::Ok();
    }
    return Status::FailedPrecondition("every identity has stopped; see the log for why");
}

}  // namespace yuzu::agent
