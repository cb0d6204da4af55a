#include "yuzu/mcp/agentic/fleet_posture.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "yuzu/auth/token_codec.hpp"
#include "yuzu/compliance/compliance.hpp"
#include "yuzu/compliance/compliance_json.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/fleet/inventory_store.hpp"

namespace yuzu::mcp::agentic {
namespace {

using nlohmann::json;

bool in_view(const AgentView& view, const std::string& agent_id) {
    return !view || view->count(agent_id) != 0;
}

std::string lower_ascii(std::string s) {
    for (char& c : s) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return s;
}

class PostureBuilder {
  public:
    PostureBuilder(const PostureSources& sources, const PostureViews& views, int64_t now_ms)
        : sources_(sources), views_(views) {
        out_["generated_at"] = now_ms / 1000;
    }

    json build() {
        agents();
        compliance();
        performance();
        condition("reboot_pending", fleet::InventoryCondition::kRebootPending,
                  "no agent in view has reported the reboot_pending inventory source yet");
        condition("failed_services", fleet::InventoryCondition::kFailedService,
                  "no agent in view has reported the systemd_units inventory source yet");
        recommend();
        out_["partial"] = !missing_.empty();
        out_["missing_sources"] = missing_;
        out_["source_notes"] = notes_;
        out_["not_collected"] = not_collected_sources();
        out_["recommended_next_tools"] = std::move(next_);
        return std::move(out_);
    }

  private:
    void unavailable(const std::string& name, const std::string& reason) {
        missing_.push_back(name);
        notes_[name] = reason;
        out_[name] = {{"available", false}, {"reason", reason}};
    }

    void suggest(const std::string& tool, json arguments, const std::string& reason) {
        next_.push_back({{"tool", tool}, {"arguments", std::move(arguments)}, {"reason", reason}});
    }

    void agents() {
        auto list = sources_.fleet->registry().list();
        if (!list.ok()) {
            spdlog::warn("fleet posture: the agent registry could not be read: {}",
                         list.status().message());
            unavailable("agents", "the agent registry could not be read");
            return;
        }
        int64_t registered = 0;
        int64_t online = 0;
        int64_t quarantined = 0;
        std::map<std::string, int64_t> os_mix;
        for (const auto& a : *list) {
            if (!in_view(views_.agents, a.agent_id)) continue;
            ++registered;
            if (a.online) ++online;
            if (a.quarantined) ++quarantined;
            ++os_mix[a.os.empty() ? std::string("unknown") : lower_ascii(a.os)];
        }
        offline_ = registered - online;
        out_["agents"] = {{"available", true},
                          {"registered", registered},
                          {"online", online},
                          {"offline", offline_},
                          {"quarantined", quarantined},
                          {"devices_omitted", static_cast<int64_t>(list->size()) - registered}};
        out_["os_mix"] = os_mix;
    }

    void compliance() {
        if (sources_.compliance == nullptr) {
            unavailable("compliance", "this server runs without the compliance service");
            return;
        }
        if (!views_.policy) {
            unavailable("compliance", "the caller holds Policy:Read on no agent");
            return;
        }
        auto fc = sources_.compliance->fleet_compliance(*views_.policy);
        if (!fc.ok()) {
            spdlog::warn("fleet posture: compliance could not be read: {}", fc.status().message());
            unavailable("compliance", "the compliance store could not be read");
            return;
        }
        json c = compliance::to_json(*fc);
        c["available"] = true;
        out_["compliance"] = std::move(c);
        non_compliant_ = fc->non_compliant;
    }

    void performance() {
        if (sources_.compliance == nullptr) {
            unavailable("device_performance", "this server runs without the compliance service");
            return;
        }
        if (!views_.perf) {
            unavailable("device_performance", "the caller holds GuaranteedState:Read on no agent");
            return;
        }
        auto stats = sources_.compliance->dex().fleet_stats(*views_.perf);
        if (!stats.ok()) {
            spdlog::warn("fleet posture: performance samples could not be read: {}",
                         stats.status().message());
            unavailable("device_performance", "the performance samples could not be read");
            return;
        }
        if (stats->reporting == 0) {
            unavailable("device_performance", "no agent in view sent a recent performance sample");
            return;
        }
        auto p90 = [](const std::optional<compliance::MetricStats>& m) -> json {
            return m ? json(m->p90) : json(nullptr);
        };
        out_["device_performance"] = {{"available", true},
                                      {"reporting", stats->reporting},
                                      {"cpu_pct_p90", p90(stats->cpu_pct)},
                                      {"mem_used_pct_p90", p90(stats->mem_used_pct)},
                                      {"disk_used_pct_p90", p90(stats->disk_used_pct)}};
        cpu_p90_ = stats->cpu_pct ? stats->cpu_pct->p90 : 0;
        disk_p90_ = stats->disk_used_pct ? stats->disk_used_pct->p90 : 0;
    }

    void condition(const std::string& name, fleet::InventoryCondition which,
                   const std::string& none_reason) {
        auto counted =
            sources_.fleet->inventory().count_condition(which, views_.agents, kPostureSampleAgents);
        if (!counted.ok()) {
            spdlog::warn("fleet posture: {} could not be counted: {}", name,
                         counted.status().message());
            unavailable(name, "the inventory store could not be read");
            return;
        }
        if (counted->reporting == 0) {
            unavailable(name, counted->unavailable == 0
                                  ? none_reason
                                  : std::to_string(counted->unavailable) +
                                        " agent(s) in view report the source as unavailable "
                                        "on their hosts");
            return;
        }
        json first = json::array();
        for (const auto& a : counted->first_affected) {
            json row = {{"agent_id", a.agent_id}};
            if (which == fleet::InventoryCondition::kFailedService) row["units"] = a.units;
            first.push_back(std::move(row));
        }
        out_[name] = {{"available", true},
                      {"reporting", counted->reporting},
                      {"source_unavailable", counted->unavailable},
                      {"affected", counted->affected},
                      {"first_affected", std::move(first)}};
        if (which == fleet::InventoryCondition::kRebootPending) {
            reboot_affected_ = counted->affected;
        } else {
            failed_services_affected_ = counted->affected;
            if (!counted->first_affected.empty()) {
                first_failed_agent_ = counted->first_affected.front().agent_id;
            }
        }
    }

    // What to read next, from what this posture shows; the tool keeps only
    // the tools the caller's tier can reach.
    void recommend() {
        if (failed_services_affected_ > 0) {
            suggest("get_agent_inventory",
                    {{"agent_id", first_failed_agent_}, {"source", "systemd_units"}},
                    std::to_string(failed_services_affected_) +
                        " agent(s) report a failed service unit");
        }
        if (reboot_affected_ > 0) {
            suggest("query_inventory", {{"source", "reboot_pending"}},
                    std::to_string(reboot_affected_) + " agent(s) report a pending reboot");
        }
        if (non_compliant_ > 0) {
            suggest("get_fleet_compliance", json::object(),
                    std::to_string(non_compliant_) + " policy check(s) are non-compliant");
        }
        if (offline_ > 0) {
            suggest("list_agents", {{"online", false}},
                    std::to_string(offline_) + " agent(s) are offline");
        }
        if (cpu_p90_ >= 80 || disk_p90_ >= 90) {
            suggest("list_dex_perf_devices", {{"metric", cpu_p90_ >= 80 ? "cpu" : "disk"}},
                    "the fleet's 90th-percentile CPU or disk use is high");
        }
        suggest("classify_operational_question", {{"question", "<the user's question>"}},
                "before acting on a question, see whether it is safe and answerable");
    }

    const PostureSources& sources_;
    const PostureViews& views_;
    json out_ = json::object();
    json missing_ = json::array();
    json notes_ = json::object();
    json next_ = json::array();
    int64_t offline_ = 0;
    int64_t non_compliant_ = 0;
    int64_t reboot_affected_ = 0;
    int64_t failed_services_affected_ = 0;
    std::string first_failed_agent_;
    double cpu_p90_ = 0;
    double disk_p90_ = 0;
};

void append_view(std::string& key, const AgentView& view) {
    if (!view) {
        key += "*";
        return;
    }
    // Each id length-prefixed, so no two different views spell the same key.
    key += "[";
    for (const auto& id : *view) {
        key += std::to_string(id.size());
        key += ":";
        key += id;
    }
    key += "]";
}

}  // namespace

nlohmann::json not_collected_sources() {
    return nlohmann::json::array(
        {{{"source", "network_performance"},
          {"note", "Yuzu does not measure link latency, loss or throughput"}},
         {{"source", "dex_event_signals"},
          {"note", "Yuzu does not collect application crash or hang events"}},
         {{"source", "platform_internals"},
          {"note",
           "OpenShift, KVM/libvirt, database engines, Teams/Zoom and registries are seen "
           "only through their endpoints' inventory; see yuzu://capabilities"}}});
}

nlohmann::json compute_posture(const PostureSources& sources, const PostureViews& views,
                               int64_t now_ms) {
    return PostureBuilder(sources, views, now_ms).build();
}

PostureCache::PostureCache(PostureSources sources, const Clock& clock)
    : sources_(sources), clock_(clock) {}

std::string PostureCache::view_key(const PostureViews& views) {
    std::string key = "a";
    append_view(key, views.agents);
    key += views.policy ? "p" : "-";
    if (views.policy) append_view(key, *views.policy);
    key += views.perf ? "g" : "-";
    if (views.perf) append_view(key, *views.perf);
    return auth::sha256_hex(key);
}

size_t PostureCache::size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_.size();
}

PostureRead PostureCache::read(const PostureViews& views, int ttl_seconds) {
    const int64_t ttl_ms =
        int64_t{std::clamp(ttl_seconds, kMinPostureTtlSeconds, kMaxPostureTtlSeconds)} * 1000;
    const std::string key = view_key(views);
    // Ages are steady time: setting the wall clock neither expires nor
    // revives a reading. generated_at (inside the posture) is wall time.
    const int64_t start = clock_.steady_ms();
    {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = entries_.find(key);
        if (it != entries_.end() && start - it->second.computed_at_ms < ttl_ms) {
            return {it->second.posture, start - it->second.computed_at_ms, true};
        }
    }
    // Computed outside the lock: a slow store read never blocks other hits.
    auto posture =
        std::make_shared<const nlohmann::json>(compute_posture(sources_, views, clock_.now_ms()));
    std::lock_guard<std::mutex> lock(mu_);
    Entry& entry = entries_[key];
    // Keep a reading another miss started after ours.
    if (!entry.posture || entry.computed_at_ms <= start) entry = {posture, start};
    const int64_t now = clock_.steady_ms();
    // Entries past the longest TTL are of no use to anyone; beyond the cap
    // the oldest goes.
    for (auto it = entries_.begin(); it != entries_.end();) {
        if (now - it->second.computed_at_ms >= int64_t{kMaxPostureTtlSeconds} * 1000) {
            it = entries_.erase(it);
        } else {
            ++it;
        }
    }
    while (entries_.size() > kMaxPostureViews) {
        auto oldest = std::min_element(entries_.begin(), entries_.end(), [](auto& a, auto& b) {
            return a.second.computed_at_ms < b.second.computed_at_ms;
        });
        entries_.erase(oldest);
    }
    return {posture, now - start, false};
}

}  // namespace yuzu::mcp::agentic
