// The RBAC vocabulary: securable types, operations and the permission pair.
//
// Spellings are PascalCase and fixed ("ManagementGroup", "Read",
// "Execution:Execute"): they appear in REST bodies, audit rows, MCP tool
// declarations and the docs, so renaming one is a breaking change.
//
// Thread-safety: pure functions over compiled-in tables; safe from any thread.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace yuzu::auth {

enum class Securable {
    kInfrastructure,         // agents, their details and raw inventory tables
    kTag,                    // agent tags
    kExecution,              // dispatching instructions and reading their status
    kInstructionDefinition,  // instruction definitions (plugin + action)
    kInstructionSet,         // named sets of definitions
    kResponse,               // results agents sent back
    kPolicy,                 // compliance policies
    kAuditLog,               // the audit trail
    kApproval,               // the approval queue
    kApiToken,               // API and MCP tokens (ownership enforced by the token service)
    kUserManagement,         // users and their global roles
    kManagementGroup,        // groups, membership and group-scoped roles
    kSecurity,               // PKI, certificates, secrets, security settings
    kSchedule,               // scheduled executions
    kGuaranteedState,        // guaranteed-state rules and DEX signals
    kInventory,              // normalised inventory (installed software, ...)
    kDeviceToken,            // agent enrolment tokens
};

enum class Operation { kRead, kWrite, kDelete, kExecute, kApprove, kRotate };

// Every value, in declaration order (for tables, tests and docs).
std::span<const Securable> all_securables();
std::span<const Operation> all_operations();

// "ManagementGroup", "Read". Exact, case-sensitive spellings.
std::string_view securable_name(Securable type);
std::string_view operation_name(Operation op);
std::optional<Securable> parse_securable(std::string_view name);
std::optional<Operation> parse_operation(std::string_view name);

struct Permission {
    Securable type;
    Operation op;

    friend bool operator==(const Permission&, const Permission&) = default;
};

// "Execution:Execute".
std::string permission_name(Permission p);
// Inverse of permission_name(); nullopt unless both halves are known names.
std::optional<Permission> parse_permission(std::string_view text);

}  // namespace yuzu::auth
