#include "client/scheduler.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <optional>

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
constexpr auto kMaxInventoryReuse = seconds(60);

struct Slot {
    Slot(Identity* identity, const AgentOptions& options)
        : id(identity),
          heartbeat_backoff(options.backoff_initial, options.backoff_max),
          inventory_backoff(options.backoff_initial, options.backoff_max) {}

    Identity* id;
    bool started = false;
    SteadyClock::time_point next_heartbeat;
    SteadyClock::time_point next_inventory;
    Backoff heartbeat_backoff;
    Backoff inventory_backoff;
};

class Scheduler {
  public:
    Scheduler(const std::vector<Identity*>& identities, const RuntimeContext& ctx)
        : ctx_(ctx), sampler_(ctx.options.host_paths) {
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
        heartbeat_body_.reset();  // one host reading per round
        auto wake = SteadyClock::now() + kMaxIdle;
        for (Slot& slot : slots_) {
            if (ctx_.stop.requested()) return;
            if (!slot.id->active()) continue;
            const auto now = SteadyClock::now();
            if (!slot.started) {  // heartbeat at start, inventory after enrollment/start
                slot.started = true;
                slot.next_heartbeat = now;
                slot.next_inventory = now;
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

    // An identity has enrolled since the last round and waits for its first heartbeat.
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
            case ReplyAction::kRetryAfter:
                return now + seconds(reply.retry_after_s.value_or(
                                 static_cast<int>(ctx_.options.default_retry_after.count())));
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

    const std::string& heartbeat_body_now() {
        if (!heartbeat_body_) {
            const HostPaths& paths = ctx_.options.host_paths;
            heartbeat_body_ =
                heartbeat_body(read_host_facts(paths), read_uptime_s(paths), sampler_.sample());
        }
        return *heartbeat_body_;
    }

    void heartbeat(Slot& slot) {
        Identity& id = *slot.id;
        const HttpReply reply = id.control_channel().post(
            "/agent/v1/heartbeat", id.record().device_token, heartbeat_body_now());
        if (reply.ok()) {
            id.apply(parse_settings(reply.body));
            slot.heartbeat_backoff.reset();
        }
        const auto next = retry_time(slot, slot.heartbeat_backoff, reply, "heartbeat",
                                     seconds(id.heartbeat_interval_s()));
        if (next) slot.next_heartbeat = *next;
    }

    // The sources, collected afresh unless a reading young enough is at hand.
    const std::string& inventory_body_now(seconds interval) {
        const auto now = SteadyClock::now();
        const auto max_age = std::min<SteadyClock::duration>(kMaxInventoryReuse, interval / 2);
        if (!inventory_body_ || now - inventory_at_ > max_age) {
            const int64_t collected_at = ctx_.options.clock->now_ms();
            std::string sources;
            if (ctx_.options.collect_sources) {
                sources = ctx_.options.collect_sources(ctx_.stop.flag());
            } else {
                InventoryEnv env;
                env.paths = ctx_.options.host_paths;
                env.cancel = &ctx_.stop.flag();
                sources = collect_inventory_sources(env);
            }
            inventory_body_ = inventory_body(collected_at, sources);
            inventory_at_ = SteadyClock::now();
        }
        return *inventory_body_;
    }

    void inventory(Slot& slot) {
        Identity& id = *slot.id;
        const seconds interval(id.inventory_interval_s());
        const std::string& body = inventory_body_now(interval);
        if (ctx_.stop.requested()) return;  // collection was cut short
        const HttpReply reply =
            id.control_channel().post("/agent/v1/inventory", id.record().device_token, body);
        if (reply.ok()) {
            slot.inventory_backoff.reset();
            spdlog::debug("{}: inventory sent ({} bytes)", id.label(), body.size());
        }
        const auto next = retry_time(slot, slot.inventory_backoff, reply, "inventory", interval);
        if (next) slot.next_inventory = *next;
    }

    const RuntimeContext& ctx_;
    PerfSampler sampler_;
    std::vector<Slot> slots_;
    std::optional<std::string> heartbeat_body_;
    std::optional<std::string> inventory_body_;
    SteadyClock::time_point inventory_at_;
};

}  // namespace

void run_scheduler(const std::vector<Identity*>& identities, const RuntimeContext& ctx) {
    Scheduler(identities, ctx).run();
}

}  // namespace yuzu::agent
