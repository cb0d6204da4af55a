#include "client/scheduler.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <random>

#include "client/backoff.hpp"
#include "yuzu/agent/host_facts.hpp"
#include "yuzu/agent/inventory.hpp"
#include "yuzu/agent/perf_sample.hpp"
#include "yuzu/common/thread_guard.hpp"

namespace yuzu::agent {
namespace {

using SteadyClock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr auto kMaxIdle = milliseconds(250);  // a bound on each wait between rounds
constexpr auto kMaxHeartbeatReuse = seconds(1);
constexpr auto kMaxInventoryReuse = seconds(60);

struct Slot {
    Slot(Identity* identity, const AgentOptions& options)
        : id(identity),
          heartbeat_backoff(options.backoff_initial, options.backoff_max),
          inventory_backoff(options.backoff_initial, options.backoff_max),
          renewal_backoff(options.backoff_initial, options.backoff_max) {}

    Identity* id;
    bool started = false;
    SteadyClock::time_point next_heartbeat;
    SteadyClock::time_point next_inventory;
    Backoff heartbeat_backoff;
    Backoff inventory_backoff;
    // A heartbeat's certificate_renewal hint is acted on from then on: after
    // a 429, not before its Retry-After; after a failure, after a back-off.
    SteadyClock::time_point renewal_not_before{};
    Backoff renewal_backoff;
};

class Scheduler {
  public:
    Scheduler(std::span<Identity* const> identities, HostReadings& readings,
              const RuntimeContext& ctx)
        : ctx_(ctx), readings_(readings), rng_(std::random_device{}()) {
        slots_.reserve(identities.size());
        for (Identity* id : identities) slots_.emplace_back(id, ctx.options);
    }

    void run() {
        while (!ctx_.stop.requested()) {
            // A round that throws outside the per-slot guards is logged and
            // counted; the next one starts after the usual idle bound.
            if (!run_guarded("agent.scheduler", [this] { round(); })) ctx_.stop.wait_for(kMaxIdle);
        }
    }

  private:
    void round() {
        auto wake = SteadyClock::now() + kMaxIdle;
        for (Slot& slot : slots_) {
            if (ctx_.stop.requested()) return;
            if (!slot.id->active()) continue;
            const auto now = SteadyClock::now();
            if (!slot.started) {  // heartbeat at start, inventory after enrollment/start
                slot.started = true;
                slot.next_heartbeat = std::max(now, slot.id->first_request_at());
                slot.next_inventory = slot.next_heartbeat;
            }
            // A heartbeat or inventory that throws is logged and counted,
            // and retried after the slot's back-off, as after a fault.
            if (now >= slot.next_heartbeat &&
                !run_guarded("agent.heartbeat", [this, &slot] { heartbeat(slot); })) {
                slot.next_heartbeat = SteadyClock::now() + slot.heartbeat_backoff.next();
            }
            if (!ctx_.stop.requested() && slot.id->active() &&
                SteadyClock::now() >= slot.next_inventory &&
                !run_guarded("agent.inventory", [this, &slot] { inventory(slot); })) {
                slot.next_inventory = SteadyClock::now() + slot.inventory_backoff.next();
            }
            wake = std::min({wake, slot.next_heartbeat, slot.next_inventory});
        }
        const auto now = SteadyClock::now();
        if (wake > now) {
            ctx_.stop.wait_for(
                std::chrono::duration_cast<milliseconds>(wake - now) + milliseconds(1),
                [this] { return newly_active(); });
        }
    }

    // An identity of this shard has enrolled since the last round and waits
    // for its first heartbeat.
    bool newly_active() const {
        return std::any_of(slots_.begin(), slots_.end(),
                           [](const Slot& s) { return !s.started && s.id->active(); });
    }

    // When to try again after a reply that was not accepted; nullopt after a 401.
    std::optional<SteadyClock::time_point> retry_time(Slot& slot, Backoff& backoff,
                                                      const HttpReply& reply, const char* what,
                                                      seconds interval) {
        const auto now = SteadyClock::now();
        switch (classify_reply(reply)) {
            case ReplyAction::kAccepted:
                break;
            case ReplyAction::kRefused:
                slot.id->refuse(what, reply);
                return std::nullopt;
            case ReplyAction::kRetryAfter: {
                const int s = reply.retry_after_s.value_or(
                    static_cast<int>(ctx_.options.default_retry_after.count()));
                return now + retry_after_delay(seconds(s), rng_);
            }
            case ReplyAction::kBackOff: {
                const milliseconds delay = backoff.next();
                spdlog::warn("{}: {} failed ({}); retrying in {} ms", slot.id->label(), what,
                             describe_reply(reply), delay.count());
                return now + delay;
            }
            case ReplyAction::kRejected:
                // The same body would be rejected again; wait for the next one.
                spdlog::warn("{}: {} rejected ({})", slot.id->label(), what, describe_reply(reply));
                return now + interval;
        }
        return now + interval;
    }

    void heartbeat(Slot& slot) {
        Identity& id = *slot.id;
        const auto body = readings_.heartbeat_body();
        const HttpReply reply =
            id.control_channel().post("/agent/v1/heartbeat", id.record().device_token, *body);
        std::optional<ServerSettings> settings;
        if (reply.ok()) {
            settings = parse_settings(reply.body);
            id.apply(*settings);
            slot.heartbeat_backoff.reset();
        }
        const auto next = retry_time(slot, slot.heartbeat_backoff, reply, "heartbeat",
                                     seconds(id.heartbeat_interval_s()));
        if (next) slot.next_heartbeat = *next;
        // Over http no certificate is presented, so the server would ask on
        // every heartbeat: the hint is for https connections only.
        if (settings && settings->certificate_renewal.value_or(false) && ctx_.endpoint.tls() &&
            id.active() && !ctx_.stop.requested() &&
            SteadyClock::now() >= slot.renewal_not_before) {
            renew_certificate(slot);
        }
    }

    // One renewal per hint: a new key and CSR, POST /agent/v1/certificate,
    // and the swap (client_credential.hpp). The old pair stays in use until
    // the new one is installed, and whenever this fails.
    void renew_certificate(Slot& slot) {
        Identity& id = *slot.id;
        ClientCredential& credential = id.credential();
        const auto fail = [&](const std::string& why) {
            credential.abandon_renewal();
            const milliseconds delay = slot.renewal_backoff.next();
            slot.renewal_not_before = SteadyClock::now() + delay;
            spdlog::warn(
                "{}: client certificate renewal failed ({}); keeping the current one, trying "
                "again at a renewal hint after {} ms",
                id.label(), why, delay.count());
        };
        auto csr = credential.begin_renewal(id.name());
        if (!csr.ok()) return fail(csr.status().message());
        const HttpReply reply = id.control_channel().post(
            "/agent/v1/certificate", id.record().device_token, certificate_request_body(*csr));
        switch (classify_reply(reply)) {
            case ReplyAction::kAccepted:
                break;
            case ReplyAction::kRefused:
                credential.abandon_renewal();
                id.refuse("a certificate renewal", reply);
                return;
            case ReplyAction::kRetryAfter: {
                credential.abandon_renewal();
                const int s = reply.retry_after_s.value_or(
                    static_cast<int>(ctx_.options.default_retry_after.count()));
                slot.renewal_not_before = SteadyClock::now() + seconds(s);
                spdlog::info(
                    "{}: client certificate renewal deferred by the server ({}); not "
                    "before {} s",
                    id.label(), describe_reply(reply), s);
                return;
            }
            case ReplyAction::kBackOff:
            case ReplyAction::kRejected:
                return fail(describe_reply(reply));
        }
        auto issued = parse_certificate_answer(reply.body);
        if (!issued.ok()) return fail(issued.status().message());
        auto installed = credential.finish_renewal(*issued);
        if (!installed.ok()) return fail(installed.status().message());
        slot.renewal_backoff.reset();
        slot.renewal_not_before = {};
        spdlog::info("{}: client certificate installed (serial {}, expires {})", id.label(),
                     installed->serial_hex, installed->not_after);
    }

    // The digest first: when the server holds these very sources (the usual
    // case, and always after a restart of either side) that is all it takes.
    // The full report follows only when the server asks for it, or does not
    // know digest-only reports (an older server answers 400).
    void inventory(Slot& slot) {
        Identity& id = *slot.id;
        const seconds interval(id.inventory_interval_s());
        const auto report =
            readings_.inventory_report(std::min<milliseconds>(kMaxInventoryReuse, interval / 2));
        if (ctx_.stop.requested()) return;  // collection was cut short
        HttpReply reply = id.control_channel().post("/agent/v1/inventory", id.record().device_token,
                                                    report->digest_only);
        const bool send_full =
            (reply.status == 200 && asks_for_sources(reply.body)) || reply.status == 400;
        if (send_full) {
            reply = id.control_channel().post("/agent/v1/inventory", id.record().device_token,
                                              report->full);
        }
        if (reply.ok()) {
            slot.inventory_backoff.reset();
            spdlog::debug("{}: inventory {} ({} bytes)", id.label(),
                          send_full ? "sent" : "confirmed unchanged",
                          send_full ? report->full.size() : report->digest_only.size());
        }
        const auto next = retry_time(slot, slot.inventory_backoff, reply, "inventory", interval);
        if (next) slot.next_inventory = *next;
    }

    const RuntimeContext& ctx_;
    HostReadings& readings_;
    std::vector<Slot> slots_;
    std::mt19937_64 rng_;  // jitters server-requested waits
};

}  // namespace

std::vector<ShardRange> scheduler_shards(size_t identities) {
    const size_t n = std::clamp<size_t>(
        (identities + kIdentitiesPerShard - 1) / kIdentitiesPerShard, 1, kMaxShards);
    std::vector<ShardRange> shards;
    shards.reserve(n);
    size_t begin = 0;
    for (size_t i = 0; i < n; ++i) {
        // The first (identities % n) shards take one more.
        const size_t size = identities / n + (i < identities % n ? 1 : 0);
        shards.push_back({begin, begin + size});
        begin += size;
    }
    return shards;
}

struct HostReadings::Impl {
    explicit Impl(const RuntimeContext& c) : ctx(c), sampler(c.options.host_paths) {}

    const RuntimeContext& ctx;

    std::mutex heartbeat_mu;
    PerfSampler sampler;                           // guarded by heartbeat_mu
    std::shared_ptr<const std::string> heartbeat;  // guarded by heartbeat_mu
    SteadyClock::time_point heartbeat_at;          // guarded by heartbeat_mu

    std::mutex inventory_mu;                           // held for a whole collection
    std::shared_ptr<const InventoryReport> inventory;  // guarded by inventory_mu
    SteadyClock::time_point inventory_at;              // guarded by inventory_mu
};

HostReadings::HostReadings(const RuntimeContext& ctx) : impl_(std::make_unique<Impl>(ctx)) {}

HostReadings::~HostReadings() = default;

std::shared_ptr<const std::string> HostReadings::heartbeat_body() {
    Impl& m = *impl_;
    std::lock_guard lock(m.heartbeat_mu);
    const auto now = SteadyClock::now();
    if (!m.heartbeat || now - m.heartbeat_at > kMaxHeartbeatReuse) {
        const HostPaths& paths = m.ctx.options.host_paths;
        m.heartbeat = std::make_shared<const std::string>(agent::heartbeat_body(
            read_host_facts(paths), read_uptime_s(paths), m.sampler.sample()));
        m.heartbeat_at = now;
    }
    return m.heartbeat;
}

std::shared_ptr<const InventoryReport> HostReadings::inventory_report(milliseconds max_age) {
    Impl& m = *impl_;
    std::lock_guard lock(m.inventory_mu);
    if (!m.inventory || SteadyClock::now() - m.inventory_at > max_age) {
        const AgentOptions& options = m.ctx.options;
        const int64_t collected_at = options.clock->now_ms();
        std::string sources;
        if (options.collect_sources) {
            sources = options.collect_sources(m.ctx.stop.flag());
        } else {
            InventoryEnv env;
            env.paths = options.host_paths;
            env.cancel = &m.ctx.stop.flag();
            sources = collect_inventory_sources(env);
        }
        m.inventory =
            std::make_shared<const InventoryReport>(agent::inventory_report(collected_at, sources));
        m.inventory_at = SteadyClock::now();
    }
    return m.inventory;
}

void run_scheduler(std::span<Identity* const> shard, HostReadings& readings,
                   const RuntimeContext& ctx) {
    Scheduler(shard, readings, ctx).run();
}

}  // namespace yuzu::agent
