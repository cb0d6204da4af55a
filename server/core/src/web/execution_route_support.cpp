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

std::optional<std::string> query_param(const httplib::Request& req, const char* name) {
    if (!req.has_param(name)) return std::nullopt;
    return req.get_param_value(name);
}

int64_t query_limit(const httplib::Request& req, httplib::Response& res, int64_t fallback,
                    int64_t max) {
    if (!req.has_param("limit")) return fallback;
    const std::string raw = req.get_param_value("limit");
    char* end = nullptr;
    const long long v = std::strtoll(raw.c_str(), &end, 10);
    if (raw.empty() || *end != '\0' || v < 1 || v > max) {
        http::write_error(res, 400, "limit must be an integer from 1 to " + std::to_string(max));
        return -1;
    }
    return v;
}

std::string lower_ascii(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) {
        return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    });
    return text;
}

}  // namespace yuzu::web
