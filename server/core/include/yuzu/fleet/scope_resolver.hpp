// Evaluates scope expressions against the registry: which agents does
// `os = "linux" AND tag:env = "prod"` select right now?
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::auth {
class ManagementGroupStore;
}

namespace yuzu::fleet {

class Fleet;

struct ScopeMatch {
    std::vector<std::string> agent_ids;  // ordered
    std::string canonical;               // the expression's canonical form
};

// Parses and evaluates `expression` over every registered agent (online or
// not; callers filter). `groups` resolves the `group` attribute (may be
// null: then `group = ...` matches nothing). `only_agents` restricts the
// candidates (the caller's management-group view). InvalidArgument with the
// positioned parse error for a bad expression.
Result<ScopeMatch> resolve_scope(Fleet& fleet, const auth::ManagementGroupStore* groups,
                                 std::string_view expression,
                                 const std::optional<std::set<std::string>>& only_agents);

}  // namespace yuzu::fleet
