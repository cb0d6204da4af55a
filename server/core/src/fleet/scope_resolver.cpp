#include "yuzu/fleet/scope_resolver.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "yuzu/auth/management_group.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/fleet/tag_store.hpp"
#include "yuzu/scope/scope.hpp"

namespace yuzu::fleet {
namespace {

constexpr std::string_view kTagPrefix = "tag:";
using TagMap = std::map<std::string, std::string>;

// One agent as the scope DSL sees it: its registry fields, its tags and the
// management groups that cover it.
class AgentAttributes final : public scope::AttributeSource {
  public:
    AgentAttributes(const AgentRecord& agent, const TagMap* tags, std::set<std::string> groups)
        : agent_(agent), tags_(tags), groups_(std::move(groups)) {}

    std::optional<std::string> attribute(std::string_view name) const override {
        if (name.starts_with(kTagPrefix)) {
            if (tags_ == nullptr) return std::nullopt;
            auto it = tags_->find(std::string(name.substr(kTagPrefix.size())));
            if (it == tags_->end()) return std::nullopt;
            return it->second;
        }
        if (name == "agent_id") return agent_.agent_id;
        if (name == "hostname") return agent_.hostname;
        if (name == "os") return agent_.os;
        if (name == "os_version") return agent_.os_version;
        if (name == "arch") return agent_.arch;
        if (name == "version") return agent_.version;
        if (name == "online") return std::string(agent_.online ? "true" : "false");
        return std::nullopt;  // "group" is answered by has_group()
    }

    bool has_group(std::string_view group_id) const override {
        return groups_.contains(std::string(group_id));
    }

  private:
    const AgentRecord& agent_;
    const TagMap* tags_;  // null when the agent has no tags
    std::set<std::string> groups_;
};

bool reads_tags(const scope::Expression& expr) {
    return std::any_of(expr.attributes().begin(), expr.attributes().end(),
                       [](const std::string& a) { return a.starts_with(kTagPrefix); });
}

}  // namespace

Result<ScopeMatch> resolve_scope(Fleet& fleet, const auth::ManagementGroupStore* groups,
                                 std::string_view expression,
                                 const std::optional<std::set<std::string>>& only_agents) {
    auto expr = scope::parse(expression);
    if (!expr.ok()) return expr.status();

    auto agents = fleet.registry().list();
    if (!agents.ok()) return agents.status();
    // Read once for the whole fleet, and only when the expression needs it.
    std::map<std::string, TagMap> tags;
    if (reads_tags(*expr)) {
        auto all = fleet.tags().all();
        if (!all.ok()) return all.status();
        tags = std::move(all).value();
    }
    const bool reads_group = groups != nullptr && expr->attributes().contains("group");

    ScopeMatch match;
    match.canonical = expr->canonical();
    for (const AgentRecord& agent : *agents) {
        if (only_agents && !only_agents->contains(agent.agent_id)) continue;
        auto tagged = tags.find(agent.agent_id);
        std::set<std::string> covering;
        if (reads_group) {
            auto found = groups->groups_covering_agent(agent.agent_id);
            if (!found.ok()) return found.status();
            covering = std::move(found).value();
        }
        const AgentAttributes attrs(agent, tagged == tags.end() ? nullptr : &tagged->second,
                                    std::move(covering));
        if (expr->matches(attrs)) match.agent_ids.push_back(agent.agent_id);
    }
    return match;  // list() answers in agent_id order, so the ids are ordered
}

}  // namespace yuzu::fleet
