// ResponseStore::aggregate(): grouping and COUNT/SUM/AVG/MIN/MAX over the
// parsed output of responses (see response_store.hpp for why in C++).
#include <algorithm>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "execution/json_text.hpp"
#include "execution/response_rows.hpp"
#include "yuzu/execution/response_store.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::execution {
namespace {

using nlohmann::json;

constexpr size_t kMaxFieldBytes = 256;

struct Accumulator {
    int64_t count = 0;
    int64_t numeric = 0;
    double sum = 0;
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();

    void add_value(const json& record, const std::string& field) {
        if (field.empty() || !record.is_object()) return;
        auto it = record.find(field);
        if (it == record.end() || !it->is_number()) return;
        const double v = it->get<double>();
        ++numeric;
        sum += v;
        min = std::min(min, v);
        max = std::max(max, v);
    }

    std::optional<double> result(AggregateFn fn) const {
        if (fn == AggregateFn::kCount) return static_cast<double>(count);
        if (numeric == 0) return std::nullopt;
        switch (fn) {
            case AggregateFn::kSum:
                return sum;
            case AggregateFn::kAvg:
                return sum / static_cast<double>(numeric);
            case AggregateFn::kMin:
                return min;
            case AggregateFn::kMax:
                return max;
            case AggregateFn::kCount:
                break;
        }
        return std::nullopt;
    }
};

// The records a response contributes: its output object, or the objects of
// its output array.
std::vector<json> records_of(const std::string& output_json) {
    json output = parse_stored(output_json);
    std::vector<json> out;
    if (output.is_object()) {
        out.push_back(std::move(output));
    } else if (output.is_array()) {
        for (auto& element : output) {
            if (element.is_object()) out.push_back(std::move(element));
        }
    }
    return out;
}

std::string group_value_of(const json& record, const std::string& field) {
    auto it = record.find(field);
    if (it == record.end() || it->is_null()) return "null";
    if (it->is_string()) return it->get<std::string>();
    return dump_json(*it);
}

class Grouper {
  public:
    explicit Grouper(AggregateResult& result) : result_(result) {}

    // The group's accumulator; null once the group cap is hit and the group
    // is new.
    Accumulator* group(const std::string& value) {
        auto it = groups_.find(value);
        if (it != groups_.end()) return &it->second;
        if (groups_.size() >= kAggregateMaxGroups) {
            result_.truncated = true;
            return nullptr;
        }
        return &groups_[value];
    }

    void finish(AggregateFn fn) {
        for (const auto& [value, acc] : groups_) {
            AggregateGroup g;
            g.group_value = value;
            g.count = acc.count;
            g.value = acc.result(fn);
            result_.groups.push_back(std::move(g));
        }
        std::sort(result_.groups.begin(), result_.groups.end(),
                  [](const AggregateGroup& a, const AggregateGroup& b) {
                      if (a.count != b.count) return a.count > b.count;
                      return a.group_value < b.group_value;
                  });
    }

  private:
    AggregateResult& result_;
    std::map<std::string, Accumulator> groups_;
};

}  // namespace

std::optional<AggregateFn> parse_aggregate_fn(const std::string& name) {
    if (name == "count") return AggregateFn::kCount;
    if (name == "sum") return AggregateFn::kSum;
    if (name == "avg") return AggregateFn::kAvg;
    if (name == "min") return AggregateFn::kMin;
    if (name == "max") return AggregateFn::kMax;
    return std::nullopt;
}

Result<AggregateResult> ResponseStore::aggregate(const AggregateQuery& query) const {
    if (query.group_by.empty() || query.group_by.size() > kMaxFieldBytes) {
        return Status::InvalidArgument(
            "group_by must be agent_id, status or an output field name (at most 256 bytes)");
    }
    if (query.fn != AggregateFn::kCount &&
        (query.field.empty() || query.field.size() > kMaxFieldBytes)) {
        return Status::InvalidArgument(
            "sum, avg, min and max need the numeric output field to aggregate");
    }
    // With a view restriction the rows to skip are unknown up front.
    const int64_t sql_limit =
        query.only_agents ? -1 : static_cast<int64_t>(kAggregateMaxResponses) + 1;
    ResponseSelection selection{query.execution_id, query.instruction_id, "", query.status,
                                sql_limit};
    YUZU_RETURN_IF_ERROR(check_selection(selection));
    // Grouping by who answered or how counts responses; grouping by an
    // output field counts output records.
    const bool by_response = query.group_by == "agent_id" || query.group_by == "status";

    AggregateResult result;
    Grouper grouper(result);
    auto conn = db_.lock();
    auto stmt = select_responses(conn, selection);
    if (!stmt.ok()) return stmt.status();
    for (;;) {
        auto row = stmt->step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        const ResponseRow response = read_response(*stmt);
        if (query.only_agents && !query.only_agents->contains(response.agent_id)) continue;
        if (result.responses_scanned == static_cast<int64_t>(kAggregateMaxResponses)) {
            result.truncated = true;
            break;
        }
        ++result.responses_scanned;
        const std::vector<json> records = records_of(response.output_json);
        result.records += static_cast<int64_t>(records.size());
        if (by_response) {
            Accumulator* acc =
                grouper.group(query.group_by == "agent_id" ? response.agent_id : response.status);
            if (acc == nullptr) continue;
            ++acc->count;
            for (const json& record : records) acc->add_value(record, query.field);
            continue;
        }
        for (const json& record : records) {
            Accumulator* acc = grouper.group(group_value_of(record, query.group_by));
            if (acc == nullptr) continue;
            ++acc->count;
            acc->add_value(record, query.field);
        }
    }
    grouper.finish(query.fn);
    return result;
}

}  // namespace yuzu::execution
