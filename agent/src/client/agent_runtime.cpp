#include "yuzu/agent/agent_runtime.hpp"

#include <spdlog/spdlog.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "client/backoff.hpp"
#include "client/client_credential.hpp"
#include "client/identity.hpp"
#include "client/identity_worker.hpp"
#include "client/scheduler.hpp"
#include "client/small_thread.hpp"
#include "client/source_address.hpp"
#include "client/stop_signal.hpp"
#include "yuzu/agent/identity_store.hpp"
#include "yuzu/agent/server_endpoint.hpp"
#include "yuzu/common/thread_guard.hpp"

namespace yuzu::agent {
namespace {

constexpr int kMaxVirtual = 10'000;
constexpr auto kCancelInterval = std::chrono::milliseconds(50);
// Beyond the identities' sockets: the log, the state files, plugin pipes.
constexpr rlim_t kReservedFiles = 64;

std::string limit_text(rlim_t v) {
    return v == RLIM_INFINITY ? std::string("unlimited") : std::to_string(v);
}

// Linux refuses an unlimited RLIMIT_NOFILE: fs.nr_open is the real ceiling.
rlim_t open_file_ceiling(rlim_t hard) {
    if (hard != RLIM_INFINITY) return hard;
    std::ifstream in("/proc/sys/fs/nr_open");
    rlim_t nr_open = 0;
    return in >> nr_open && nr_open > 0 ? nr_open : hard;
}

// Each identity may hold two sockets at once (its long-poll and its
// scheduler's request), so 10,000 identities need more than the usual
// soft limit of 1,024.
void raise_open_file_limit(int identities) {
    rlimit lim{};
    if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) {
        spdlog::warn("cannot read the open-file limit: {}", std::strerror(errno));
        return;
    }
    const rlim_t target = open_file_ceiling(lim.rlim_max);
    if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < target) {
        rlimit raised = lim;
        raised.rlim_cur = target;
        if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) {
            lim = raised;
        } else {
            spdlog::warn("cannot raise the open-file limit from {} to {}: {}",
                         limit_text(lim.rlim_cur), limit_text(target), std::strerror(errno));
        }
    }
    spdlog::info("open-file limit: {} (hard {})", limit_text(lim.rlim_cur),
                 limit_text(lim.rlim_max));
    const rlim_t needed = 2 * static_cast<rlim_t>(identities) + kReservedFiles;
    if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < needed) {
        spdlog::warn(
            "{} identities may hold up to {} sockets, more than the open-file limit of {} "
            "allows with {} files to spare; requests may fail with 'Too many open files'. Raise "
            "the hard limit (ulimit -Hn, systemd LimitNOFILE=) or run fewer identities",
            identities, 2 * identities, limit_text(lim.rlim_cur), kReservedFiles);
    }
}

// A renewal a crash interrupted is finished or undone before the identity's
// channels first load its client certificate (client_credential.hpp).
void recover_client_certificate(const std::string& name, const std::filesystem::path& dir) {
    auto recovered = recover_interrupted_renewal(dir);
    if (!recovered.ok()) {
        spdlog::warn("{}: cannot finish an interrupted client certificate renewal: {}", name,
                     recovered.status().message());
    } else if (*recovered == RenewalRecovery::kFinished) {
        spdlog::info("{}: finished the client certificate renewal a stop interrupted", name);
    } else if (*recovered == RenewalRecovery::kRolledBack) {
        spdlog::info("{}: undid an unfinished client certificate renewal; keeping the old one",
                     name);
    }
}

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
            recover_client_certificate(name, *dir);
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
                std::make_unique<Identity>(name, std::move(*dir), std::move(existing), ctx,
                                           source_address_for(endpoint, i, options.virtual_count,
                                                              options.virtual_source_addresses)));
        }
        return Status::Ok();
    }

    void log_source_addresses() const {
        if (identities.size() < 2) return;
        const std::string& first = identities.front()->source_address();
        if (!first.empty()) {
            spdlog::info(
                "identities connect from {} .. {}, one loopback address each "
                "(--no-virtual-source-addresses turns this off)",
                first, identities.back()->source_address());
        }
    }

    // Spreads the identities' first requests over up to N/10 ms (at most 5 s).
    void spread_first_requests() {
        std::mt19937_64 rng(std::random_device{}());
        const int n = static_cast<int>(identities.size());
        const auto now = std::chrono::steady_clock::now();
        for (auto& id : identities) id->set_first_request_at(now + start_delay(n, rng));
    }

    // Starts the identity threads and the scheduler shards, waits until a
    // stop is requested or every identity has ended, then stops and joins
    // them all. Unavailable when a thread could not be started (the others
    // are stopped first).
    Status run_threads(const RuntimeContext& ctx) {
        std::vector<Identity*> all;
        all.reserve(identities.size());
        for (auto& id : identities) all.push_back(id.get());
        HostReadings readings(ctx);
        std::atomic<int> identities_running{0};
        std::atomic<int> shards_running{0};
        std::vector<SmallThread> threads;  // joined before what they use goes away
        threads.reserve(all.size() + kMaxShards);

        Status started = Status::Ok();
        for (Identity* identity : all) {
            identities_running.fetch_add(1);
            started = threads.emplace_back().start(
                "agent.identity", kIdentityStackBytes,
                [this, &ctx, &identities_running, identity]() noexcept {
                    // Its loops guard each iteration; what still escapes stops
                    // this identity alone (logged and counted), and the others go on.
                    if (!run_guarded("agent.identity", [&] { run_identity(*identity, ctx); })) {
                        (void)run_guarded("agent.identity", [identity] { identity->halt(); });
                    }
                    identities_running.fetch_sub(1);
                    stop.notify();
                });
            if (!started.ok()) {
                identities_running.fetch_sub(1);
                started = Status::Unavailable(started.message() + " for " + identity->name() +
                                              "; the thread limits (ulimit -u, kernel.pid_max, "
                                              "kernel.threads-max, a cgroup's pids.max) are too "
                                              "low for " +
                                              std::to_string(all.size()) + " identities");
                break;
            }
        }
        for (const ShardRange& range : scheduler_shards(all.size())) {
            if (!started.ok()) break;
            const std::span<Identity* const> shard =
                std::span<Identity* const>(all).subspan(range.begin, range.end - range.begin);
            shards_running.fetch_add(1);
            started = threads.emplace_back().start(
                "agent.scheduler", kSchedulerStackBytes,
                [&ctx, &readings, &shards_running, shard]() noexcept {
                    (void)run_guarded("agent.scheduler",
                                      [&] { run_scheduler(shard, readings, ctx); });
                    shards_running.fetch_sub(1);
                });
            if (!started.ok()) {
                shards_running.fetch_sub(1);
                started = Status::Unavailable(started.message() + " for the scheduler");
            }
        }

        if (started.ok()) {
            while (!stop.wait_for(std::chrono::hours(1), [&] {
                return identities_running.load() == 0;
            }) && identities_running.load() > 0) {
            }
        }
        stop.request();  // every identity ended on its own, or a thread did not start
        // A long-poll in flight does not see the flag: abort requests until
        // every thread has finished (a request may start just after a cancel).
        while (identities_running.load() > 0 || shards_running.load() > 0) {
            for (auto& id : identities) {
                // Identities saying goodbye use a channel of their own, which this leaves alone.
                id->cancel_requests();
                id->wake();
            }
            std::this_thread::sleep_for(kCancelInterval);
        }
        for (auto& t : threads) t.join();
        return started;
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
    impl.log_source_addresses();
    raise_open_file_limit(options.virtual_count);
    impl.spread_first_requests();

    YUZU_RETURN_IF_ERROR(impl.run_threads(ctx));
    if (impl.stop_requested.load()) {
        spdlog::info("yuzu-agent stopped");
        return Status::Ok();
    }
    return Status::FailedPrecondition("every identity has stopped; see the log for why");
}

}  // namespace yuzu::agent
