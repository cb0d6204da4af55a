#include "yuzu/auth/roles.hpp"

#include <array>
#include <cstdint>

namespace yuzu::auth {
namespace {

// Built-in role grants. R=Read W=Write D=Delete X=Execute A=Approve T=Rotate.
//
//   Type                   Administrator  ITServiceOwner  Operator     Viewer
//   Infrastructure         RWDXAT         RWDXA           R            R
//   Tag                    RWDXAT         RWDXA           RWDX         R
//   Execution              RWDXAT         RWDXA           RWDX         R
//   InstructionDefinition  RWDXAT         RWDXA           RWDX         R
//   InstructionSet         RWDXAT         RWDXA           RWDX         R
//   Response               RWDXAT         RWDXA           R            R
//   Policy                 RWDXAT         RWDXA           RX           R
//   AuditLog               RWDXAT         R               R            R
//   Approval               RWDXAT         RA              RA           R
//   ApiToken               RWDXAT         RWDT (own)      RWDT (own)   RWDT (own)
//   UserManagement         RWDXAT         -               -            -
//   ManagementGroup        RWDXAT         RWDXA           R            R
//   Security               RWDXAT         -               -            -
//   Schedule               RWDXAT         RWDXA           RWDX         R
//   GuaranteedState        RWDXAT         RWDXA           R            R
//   Inventory              RWDXAT         RWDXA           R            R
//   DeviceToken            RWDXAT         RWDT            R            R
//
// Why:
// - Administrator holds everything, including the two types nobody else
//   touches: UserManagement (users, global roles) and Security (PKI, keys).
// - ITServiceOwner runs the estate: full control of the operational types,
//   including management groups and agent enrolment tokens, approves
//   requests, reads the audit trail; it cannot change users or security.
// - Operator does day-to-day work: authors and runs instructions, sets and
//   schedules, tags agents, runs policies, approves requests; reads the rest
//   except users and security.
// - Viewer reads everything except users and security.
// - Every role may manage API tokens so each user can look after their own.
//   RBAC cannot tell whose token it is: the token service enforces that a
//   caller only sees, rotates or revokes tokens they own.
// An approval is further restricted outside RBAC: the approver must be a
// different, MFA-verified human.

using OpMask = uint8_t;

constexpr OpMask bit(Operation op) {
    return static_cast<OpMask>(1u << static_cast<unsigned>(op));
}

constexpr OpMask R = bit(Operation::kRead);
constexpr OpMask W = bit(Operation::kWrite);
constexpr OpMask D = bit(Operation::kDelete);
constexpr OpMask X = bit(Operation::kExecute);
constexpr OpMask A = bit(Operation::kApprove);
constexpr OpMask T = bit(Operation::kRotate);
constexpr OpMask kNone = 0;
constexpr OpMask kAll = R | W | D | X | A | T;
constexpr OpMask kOwnTokens = R | W | D | T;

constexpr size_t kTypeCount = 17;
static_assert(static_cast<size_t>(Securable::kDeviceToken) + 1 == kTypeCount);

// One row per securable type; the column order is the role order below.
struct Row {
    Securable type;
    OpMask administrator;
    OpMask it_service_owner;
    OpMask operator_;
    OpMask viewer;
};

using S = Securable;
// clang-format off
constexpr std::array<Row, kTypeCount> kGrants = {{
    // type                       Administrator  ITServiceOwner      Operator        Viewer
    {S::kInfrastructure,          kAll,          R | W | D | X | A,  R,              R},
    {S::kTag,                     kAll,          R | W | D | X | A,  R | W | D | X,  R},
    {S::kExecution,               kAll,          R | W | D | X | A,  R | W | D | X,  R},
    {S::kInstructionDefinition,   kAll,          R | W | D | X | A,  R | W | D | X,  R},
    {S::kInstructionSet,          kAll,          R | W | D | X | A,  R | W | D | X,  R},
    {S::kResponse,                kAll,          R | W | D | X | A,  R,              R},
    {S::kPolicy,                  kAll,          R | W | D | X | A,  R | X,          R},
    {S::kAuditLog,                kAll,          R,                  R,              R},
    {S::kApproval,                kAll,          R | A,              R | A,          R},
    {S::kApiToken,                kAll,          kOwnTokens,         kOwnTokens,     kOwnTokens},
    {S::kUserManagement,          kAll,          kNone,              kNone,          kNone},
    {S::kManagementGroup,         kAll,          R | W | D | X | A,  R,              R},
    {S::kSecurity,                kAll,          kNone,              kNone,          kNone},
    {S::kSchedule,                kAll,          R | W | D | X | A,  R | W | D | X,  R},
    {S::kGuaranteedState,         kAll,          R | W | D | X | A,  R,              R},
    {S::kInventory,               kAll,          R | W | D | X | A,  R,              R},
    {S::kDeviceToken,             kAll,          R | W | D | T,      R,              R},
}};
// clang-format on

constexpr bool rows_in_order() {
    for (size_t i = 0; i < kGrants.size(); ++i) {
        if (static_cast<size_t>(kGrants[i].type) != i) return false;
    }
    return true;
}
static_assert(rows_in_order(), "kGrants must list every securable in declaration order");

struct RoleInfo {
    std::string_view name;
    std::string_view summary;
    OpMask Row::*column;
};

constexpr std::array<RoleInfo, 4> kRoles = {{
    {kRoleAdministrator, "Everything, including users and security settings", &Row::administrator},
    {kRoleITServiceOwner,
     "Full control of the operational types and management groups; no users or security",
     &Row::it_service_owner},
    {kRoleOperator,
     "Authors and runs instructions, schedules and tags, approves requests, reads the rest "
     "except users and security",
     &Row::operator_},
    {kRoleViewer, "Reads everything except users and security", &Row::viewer},
}};

constexpr auto kRoleNames = [] {
    std::array<std::string_view, kRoles.size()> out{};
    for (size_t i = 0; i < out.size(); ++i) out[i] = kRoles[i].name;
    return out;
}();

const RoleInfo* find_role(std::string_view name) {
    for (const RoleInfo& role : kRoles) {
        if (role.name == name) return &role;
    }
    return nullptr;
}

}  // namespace

std::span<const std::string_view> builtin_role_names() {
    return kRoleNames;
}

bool is_builtin_role(std::string_view name) {
    return find_role(name) != nullptr;
}

std::string_view role_summary(std::string_view role) {
    const RoleInfo* info = find_role(role);
    return info == nullptr ? std::string_view() : info->summary;
}

bool role_grants(std::string_view role, Permission p) {
    const RoleInfo* info = find_role(role);
    if (info == nullptr) return false;
    const Row& row = kGrants[static_cast<size_t>(p.type)];
    return (row.*(info->column) & bit(p.op)) != 0;
}

std::vector<Permission> role_permissions(std::string_view role) {
    std::vector<Permission> out;
    if (find_role(role) == nullptr) return out;
    for (Securable type : all_securables()) {
        for (Operation op : all_operations()) {
            if (role_grants(role, {type, op})) out.push_back({type, op});
        }
    }
    return out;
}

}  // namespace yuzu::auth
