// DefinitionStore: the instruction definitions an operator can run — which
// agent plugin action, whether it only asks (question) or may change the host
// (action), the JSON Schema of its parameters and the columns of its result.
// Kept in executions.db (table definitions); seed_builtins() adds the
// catalogue of built-in agent plugins (builtin_definitions.cpp) at every open
// without touching rows that already exist, so an operator's enable/disable
// survives restarts and new built-ins appear after an upgrade.
//
// There is at most one definition per plugin+action. Built-in definitions can
// be enabled and disabled but not edited or deleted.
//
// JSON travels as text (parameter_schema_json, result_columns_json) so this
// header stays free of nlohmann; every stored value has been parsed and
// re-serialised, so callers can parse it without checking.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::execution {

inline constexpr size_t kDefinitionIdMaxLength = 128;
inline constexpr size_t kDefinitionNameMaxLength = 128;
inline constexpr size_t kDefinitionDescriptionMaxLength = 2048;
inline constexpr size_t kParameterSchemaMaxBytes = 64 * 1024;
inline constexpr size_t kResultColumnsMax = 64;

struct InstructionDefinition {
    std::string id;      // [a-z0-9][a-z0-9._-]{0,127}; built-ins use "plugin.action"
    std::string name;    // 1..128 printable characters
    int version = 1;     // bumped by every update()
    std::string plugin;  // [a-z0-9_]{1,64}
    std::string action;  // [a-z0-9_]{1,64}
    std::string type;    // "question" (read-only) | "action" (may change the host)
    std::string description;
    std::string parameter_schema_json;  // a JSON Schema object with "type": "object"
    std::string result_columns_json;    // [{"name": ..., "type": ...}, ...]
    std::string approval_mode;          // "auto" | "role-gated" | "always"
    bool destructive = false;           // only an action can be destructive
    bool enabled = true;
    bool builtin = false;
    int64_t created_at_ms = 0;
    int64_t updated_at_ms = 0;
};

// What create() and update() take. An empty id on create() generates
// "def-<16 hex>"; update() ignores `id`.
struct DefinitionSpec {
    std::string id;
    std::string name;
    std::string plugin;
    std::string action;
    std::string type = "question";
    std::string description;
    std::string parameter_schema_json = R"({"type":"object","properties":{}})";
    std::string result_columns_json = "[]";
    std::string approval_mode = "auto";
    bool destructive = false;
    bool enabled = true;
};

struct DefinitionFilter {
    std::string plugin;           // exact match when set
    std::string type;             // "question" | "action" when set
    std::optional<bool> enabled;  // both when unset
};

class DefinitionStore {
  public:
    // db must have executions.db's migrations applied; db and clock outlive
    // the store.
    DefinitionStore(store::Database& db, const Clock& clock);

    // Inserts every built-in definition whose id and plugin+action are not
    // taken yet. Idempotent.
    Status seed_builtins();

    // InvalidArgument naming the first bad field; AlreadyExists when the id
    // or the plugin+action is taken.
    Result<InstructionDefinition> create(const DefinitionSpec& spec);
    // Replaces every field but id, created_at and builtin; bumps version.
    // NotFound; FailedPrecondition for a built-in; InvalidArgument;
    // AlreadyExists when plugin+action moves onto another definition's.
    Result<InstructionDefinition> update(const std::string& id, const DefinitionSpec& spec);
    Status set_enabled(const std::string& id, bool enabled);  // NotFound
    // NotFound; FailedPrecondition for a built-in. Past executions keep the id.
    Status remove(const std::string& id);

    Result<InstructionDefinition> get(const std::string& id) const;  // NotFound
    // The definition of plugin.action (enabled or not); NotFound.
    Result<InstructionDefinition> find(const std::string& plugin, const std::string& action) const;
    // Ordered by plugin, action. InvalidArgument for an unknown type filter.
    Result<std::vector<InstructionDefinition>> list(const DefinitionFilter& filter = {}) const;

  private:
    store::Database& db_;
    const Clock& clock_;
};

}  // namespace yuzu::execution
