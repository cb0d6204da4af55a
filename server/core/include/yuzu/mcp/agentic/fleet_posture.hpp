// The fleet posture: the cheap first read of an LLM session. Counts of
// agents, the OS mix, compliance, device performance, pending reboots and
// failed services, each from its live store and each marked unavailable
// (with the reason) when it cannot be read, never guessed.
//
// PostureCache keeps one computed posture per caller view (the three views
// together) for up to kMaxPostureTtlSeconds; each reader says how old a
// reading it accepts. Callers whose views are equal share an entry, callers
// whose views differ never do. Bounded to kMaxPostureViews entries.
//
// Thread-safety: PostureCache is safe from any thread; a miss computes
// outside the cache lock, so one slow store read never blocks hits.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <set>
#include <string>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::fleet {
class Fleet;
}
namespace yuzu::compliance {
class Compliance;
}

namespace yuzu::mcp::agentic {

using AgentView = std::optional<std::set<std::string>>;  // nullopt = fleet-wide

inline constexpr int kMinPostureTtlSeconds = 5;
inline constexpr int kMaxPostureTtlSeconds = 300;
inline constexpr int kDefaultPostureTtlSeconds = 30;
inline constexpr size_t kMaxPostureViews = 64;
inline constexpr int kPostureSampleAgents = 10;

// What the caller may see, per fact. `policy` and `perf` are nullopt when
// the caller holds the permission nowhere (the fact is then reported
// unavailable, not computed); otherwise they hold its view, which may
// itself be nullopt (fleet-wide).
struct PostureViews {
    AgentView agents;                 // Infrastructure:Read
    std::optional<AgentView> policy;  // Policy:Read; nullopt = not held
    std::optional<AgentView> perf;    // GuaranteedState:Read; nullopt = not held
};

struct PostureSources {
    fleet::Fleet* fleet = nullptr;                 // required
    compliance::Compliance* compliance = nullptr;  // null: compliance and perf unavailable
};

// What this server never collects, whoever asks ([{source, note}]): said
// once, so a model does not read an absence as "all clear".
nlohmann::json not_collected_sources();

// The posture as JSON (the tool's structuredContent without the per-read
// fields data_age_seconds, cache and cache_ttl_seconds). Never fails: a
// store that cannot be read makes its fact unavailable and the posture
// partial.
nlohmann::json compute_posture(const PostureSources& sources, const PostureViews& views,
                               int64_t now_ms);

struct PostureRead {
    std::shared_ptr<const nlohmann::json> posture;
    int64_t age_ms = 0;  // since it was computed (steady time)
    bool cache_hit = false;
};

class PostureCache {
  public:
    PostureCache(PostureSources sources, const Clock& clock);

    // The posture for `views`, computed anew when none is younger than
    // `ttl_seconds` (clamped to kMinPostureTtlSeconds..kMaxPostureTtlSeconds).
    PostureRead read(const PostureViews& views, int ttl_seconds);

    // A stable key for `views`: equal views, equal keys (a digest of the
    // agent ids, so the key never grows with the fleet).
    static std::string view_key(const PostureViews& views);

    // Cached views now (at most kMaxPostureViews).
    size_t size() const;

  private:
    struct Entry {
        std::shared_ptr<const nlohmann::json> posture;
        int64_t computed_at_ms = 0;  // steady time
    };
    PostureSources sources_;
    const Clock& clock_;
    mutable std::mutex mu_;
    std::map<std::string, Entry> entries_;
};

}  // namespace yuzu::mcp::agentic
