#include "yuzu/auth/principal.hpp"

namespace yuzu::auth {

std::string_view principal_kind_name(PrincipalKind kind) {
    switch (kind) {
        case PrincipalKind::kUserSession:
            return "user_session";
        case PrincipalKind::kApiToken:
            return "api_token";
        case PrincipalKind::kMcpToken:
            return "mcp_token";
    }
    return "unknown";
}

}  // namespace yuzu::auth
