#include "compliance_tool_support.hpp"

#include <algorithm>

#include "fleet_tool_support.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/fleet.hpp"

namespace yuzu::mcp {

Result<std::optional<std::set<std::string>>> readable_view(auth::Identity& identity,
                                                           fleet::Fleet& fleet,
                                                           const auth::Principal& who,
                                                           auth::Permission what) {
    auto view = fleet_view(identity, fleet, who, what);
    if (!view.ok()) return view.status();
    if (*view && (*view)->empty()) {
        return Status::PermissionDenied("permission denied: " + auth::permission_name(what));
    }
    return view;
}

int64_t agents_outside(fleet::Fleet& fleet, const std::optional<std::set<std::string>>& view) {
    if (!view) return 0;
    const auto total = static_cast<int64_t>(fleet.registry().total_count());
    return std::max<int64_t>(0, total - static_cast<int64_t>(view->size()));
}

}  // namespace yuzu::mcp
