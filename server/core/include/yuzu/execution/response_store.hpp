// ResponseStore: what agents answered, one row per agent per execution
// (written by ExecutionTracker when a result arrives), read back as pages
// and as aggregates.
//
// An "instruction id" matches an execution's client-facing command_id or its
// definition_id, so the id execute_instruction returned and a definition's
// id both select responses.
//
// Aggregation runs in C++ over the parsed output rather than in SQL
// json_extract: an output that is a JSON array of objects (process.list,
// disk.usage, ...) contributes one record per element, which SQL cannot
// express portably, and the management-group restriction is a set the
// caller holds in memory. group_by is "agent_id", "status", or a top-level
// field of the output records; the aggregate function applies to a numeric
// top-level `field` of the same records (non-numeric values are skipped, so
// a group can have a count but no value). At most kAggregateMaxResponses
// responses and kAggregateMaxGroups groups are considered; `truncated` says
// when either cap was hit.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::execution {

inline constexpr int64_t kDefaultResponseLimit = 100;
inline constexpr int64_t kMaxResponseLimit = 1000;
inline constexpr size_t kAggregateMaxResponses = 100'000;
inline constexpr size_t kAggregateMaxGroups = 10'000;

struct ResponseRow {
    int64_t id = 0;
    std::string execution_id;
    std::string agent_id;
    std::string status;       // success | failure | refused | timeout (as the agent said)
    std::string output_json;  // the plugin's structured output; "null" when none
    std::string error;
    int64_t duration_ms = 0;
    int64_t timestamp_ms = 0;  // when the server received it
};

struct ResponseQuery {
    std::string execution_id;    // wins when both ids are set
    std::string instruction_id;  // an execution's command_id or a definition id
    std::string agent_id;        // exact match when set
    std::string status;          // exact match when set
    // The caller's view (e.g. its management groups): rows of other agents
    // are left out before the limit is applied.
    std::optional<std::set<std::string>> only_agents;
    int64_t limit = kDefaultResponseLimit;  // clamped to 1..kMaxResponseLimit
};

struct ResponsePage {
    std::vector<ResponseRow> rows;  // oldest first
    bool truncated = false;         // more rows matched than `limit`
};

enum class AggregateFn { kCount, kSum, kAvg, kMin, kMax };

// "count", "sum", "avg", "min", "max"; nullopt otherwise.
std::optional<AggregateFn> parse_aggregate_fn(const std::string& name);

struct AggregateQuery {
    std::string execution_id;    // wins when both ids are set
    std::string instruction_id;  // as in ResponseQuery
    std::string group_by;        // "agent_id", "status" or an output field (required)
    AggregateFn fn = AggregateFn::kCount;
    std::string field;   // the numeric output field; required unless fn is kCount
    std::string status;  // only responses with this status when set
    std::optional<std::set<std::string>> only_agents;
};

struct AggregateGroup {
    std::string
        group_value;    // a string field as is; other JSON values serialised; "null" if absent
    int64_t count = 0;  // records in the group
    // count → the count; otherwise the function over the numeric values,
    // nullopt when the group has none.
    std::optional<double> value;
};

struct AggregateResult {
    std::vector<AggregateGroup> groups;  // by count descending, then group_value
    int64_t responses_scanned = 0;
    int64_t records = 0;
    bool truncated = false;
};

class ResponseStore {
  public:
    explicit ResponseStore(store::Database& db);

    // InvalidArgument when neither id is given.
    Result<ResponsePage> query(const ResponseQuery& query) const;
    // InvalidArgument for a missing id or group_by, or a missing field.
    Result<AggregateResult> aggregate(const AggregateQuery& query) const;
    // The response of one agent to one execution; NotFound.
    Result<ResponseRow> get(const std::string& execution_id, const std::string& agent_id) const;

  private:
    store::Database& db_;
};

}  // namespace yuzu::execution
