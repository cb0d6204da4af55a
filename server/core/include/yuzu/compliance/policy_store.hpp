// PolicyStore: compliance policies in compliance.db — a name, a rule over
// inventory (rule.hpp) and the agents it applies to (a scope expression;
// "" = every agent).
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/compliance/rule.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::compliance {

inline constexpr size_t kMaxPolicyNameBytes = 128;
inline constexpr size_t kMaxPolicyDescriptionBytes = 1024;
inline constexpr size_t kMaxPolicies = 1000;

struct Policy {
    std::string id;  // 12 lowercase hex
    std::string name;
    std::string description;
    bool enabled = true;
    std::string scope_expression;  // "" = every agent
    Rule rule;
    std::string created_by;
    int64_t created_at_ms = 0;
    int64_t updated_at_ms = 0;
};

struct NewPolicy {
    std::string name;         // 1..kMaxPolicyNameBytes, no control characters; unique
    std::string description;  // ≤ kMaxPolicyDescriptionBytes
    bool enabled = true;
    std::string scope_expression;
    Rule rule;
    std::string created_by;
};

// Fields left empty keep their value.
struct PolicyUpdate {
    std::optional<std::string> name;
    std::optional<std::string> description;
    std::optional<bool> enabled;
    std::optional<std::string> scope_expression;
    std::optional<Rule> rule;
};

class PolicyStore {
  public:
    PolicyStore(store::Database& db, const Clock& clock);

    // InvalidArgument naming the bad field; AlreadyExists for a taken name;
    // ResourceExhausted past kMaxPolicies.
    Result<Policy> create(const NewPolicy& spec);
    Result<Policy> get(const std::string& id) const;  // NotFound
    Result<std::vector<Policy>> list() const;         // ordered by name
    // A change of rule, scope or enabled drops the policy's results: they
    // described the old policy (the next evaluation writes new ones).
    Result<Policy> update(const std::string& id, const PolicyUpdate& update);
    Status remove(const std::string& id);  // NotFound; its results go too

  private:
    store::Database& db_;
    const Clock& clock_;
};

}  // namespace yuzu::compliance
