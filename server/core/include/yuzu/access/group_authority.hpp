// The compound gate of per-group management operations (list and assign a
// group's roles): `what` held fleet-wide, or the ITServiceOwner role held on
// that group or a group above it. The MCP tier is checked before this, by
// the pipeline or by check_direct_tier().
//
// Thread-safety: stateless; safe from any thread.
#pragma once

#include <string>

#include "yuzu/auth/principal.hpp"
#include "yuzu/auth/rbac_permission.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::auth {
class Identity;
}

namespace yuzu::access {

// Ok, or PermissionDenied "permission denied: Type:Op (or ITServiceOwner on
// the group)".
Status require_group_authority(auth::Identity& identity, const auth::Principal& who,
                               auth::Permission what, const std::string& group_id);

}  // namespace yuzu::access
