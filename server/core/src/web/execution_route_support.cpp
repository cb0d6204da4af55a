#include "execution_route_support.hpp"

#include <algorithm>
#include <cstdlib>

#include "route_registry.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/rbac.hpp"
#include "yuzu/auth/roles.hpp"
#include "yuzu/auth/tier_policy.hpp"
#include "yuzu/execution/definition_store.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/agent_visibility.hpp"
#include "yuzu/fleet/fleet.hpp"

namespace yuzu::web {

Result<access::VisibleExecution> visible_execution(const WebContext& ctx,
                                                   const auth::Principal& who,
                                                   auth::Permission what,
                                                   const std::string& execution_id) {
    return access::visible_execution(ctx.identity.authorizer(), *ctx.fleet,
                                     executions_of(ctx).tracker(), who, what, execution_id);
}

std::string lower_ascii(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) {
        return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    });
    return text;
}

}  // namespace yuzu::web
