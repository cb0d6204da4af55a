#include "yuzu/access/group_authority.hpp"

#include "yuzu/auth/authorizer.hpp"
#include "yuzu/auth/identity.hpp"
#include "yuzu/auth/roles.hpp"

namespace yuzu::access {

Status require_group_authority(auth::Identity& identity, const auth::Principal& who,
                               auth::Permission what, const std::string& group_id) {
    auto fleet_wide = identity.authorizer().allowed(who, what);
    if (!fleet_wide.ok()) return fleet_wide.status();
    if (*fleet_wide) return Status::Ok();
    auto owns = identity.holds_group_role(who.username, auth::kRoleITServiceOwner, group_id);
    if (!owns.ok()) return owns.status();
    if (*owns) return Status::Ok();
    return Status::PermissionDenied("permission denied: " + auth::permission_name(what) +
                                    " (or ITServiceOwner on the group)");
}

}  // namespace yuzu::access
