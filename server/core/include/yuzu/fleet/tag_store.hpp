// TagStore: key/value labels per agent, used by the scope DSL ("tag:env").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::fleet {

inline constexpr size_t kMaxTagKeyBytes = 64;     // [A-Za-z0-9_.-]
inline constexpr size_t kMaxTagValueBytes = 256;  // printable UTF-8, no control chars
inline constexpr size_t kMaxTagsPerAgent = 64;

struct Tag {
    std::string agent_id;
    std::string key;
    std::string value;
    std::string source;  // "api" | "mcp" | "agent"
    int64_t updated_at_ms = 0;
};

class TagStore {
  public:
    TagStore(store::Database& db, const Clock& clock);

    // Creates or replaces. InvalidArgument (key/value rules), NotFound
    // (agent), ResourceExhausted (kMaxTagsPerAgent).
    Status set(const std::string& agent_id, const std::string& key, const std::string& value,
               const std::string& source);
    Status remove(const std::string& agent_id, const std::string& key);  // NotFound
    Result<std::vector<Tag>> of_agent(const std::string& agent_id) const;  // ordered by key
    // Agents carrying `key` (with `value` when given), ordered.
    Result<std::vector<std::string>> agents_with(const std::string& key,
                                                 const std::optional<std::string>& value) const;
    // agent_id -> key -> value, for evaluating scopes over the whole fleet.
    Result<std::map<std::string, std::map<std::string, std::string>>> all() const;

  private:
    store::Database& db_;
    const Clock& clock_;
};

}  // namespace yuzu::fleet
