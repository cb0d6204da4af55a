#include "yuzu/compliance/evaluator.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cassert>
#include <optional>
#include <set>

#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/fleet/scope_resolver.hpp"

namespace yuzu::compliance {

Evaluator::Evaluator(PolicyStore& policies, ResultStore& results, fleet::Fleet& fleet,
                     const auth::ManagementGroupStore* groups, const Clock& clock,
                     int64_t stale_after_ms)
    : policies_(policies),
      results_(results),
      fleet_(fleet),
      groups_(groups),
      clock_(clock),
      stale_after_ms_(stale_after_ms) {
    assert(stale_after_ms_ > 0);
}

Result<std::vector<std::string>> Evaluator::all_agents() const {
    auto agents = fleet_.registry().list();
    if (!agents.ok()) return agents.status();
    std::vector<std::string> ids;
    ids.reserve(agents->size());
    for (const auto& a : *agents) ids.push_back(a.agent_id);
    return ids;
}

Result<std::vector<std::string>> Evaluator::agents_in_scope(
    const Policy& policy, const std::vector<std::string>& all) const {
    if (policy.scope_expression.empty()) return all;
    auto match = fleet::resolve_scope(fleet_, groups_, policy.scope_expression, std::nullopt);
    if (!match.ok()) return match.status();
    return match->agent_ids;
}

Result<Evaluator::SourceRows> Evaluator::load_source(const std::string& source,
                                                     const std::vector<std::string>& agents) const {
    SourceRows rows;
    // One row per (agent, source): a chunk of at most the query limit of
    // agents can never be cut short.
    const size_t chunk = static_cast<size_t>(fleet::kMaxInventoryQueryLimit);
    for (size_t start = 0; start < agents.size(); start += chunk) {
        const size_t end = std::min(agents.size(), start + chunk);
        fleet::InventoryQuery q;
        q.source = source;
        q.only_agents = std::set<std::string>(agents.begin() + static_cast<ptrdiff_t>(start),
                                              agents.begin() + static_cast<ptrdiff_t>(end));
        q.limit = fleet::kMaxInventoryQueryLimit;
        auto page = fleet_.inventory().query(q);
        if (!page.ok()) return page.status();
        if (page->second) return Status::Internal("inventory query for " + source + " cut short");
        for (auto& item : page->first) {
            std::string agent = item.agent_id;
            rows.emplace(std::move(agent), std::move(item));
        }
    }
    return rows;
}

Status Evaluator::evaluate_locked(const Policy& policy, int64_t now_ms,
                                  const std::vector<std::string>& all,
                                  std::map<std::string, SourceRows>& cache,
                                  EvaluationReport& report) {
    auto agents = agents_in_scope(policy, all);
    if (!agents.ok()) return agents.status();
    auto cached = cache.find(policy.rule.source);
    if (cached == cache.end()) {
        // Loaded for every agent once per pass: policies share sources.
        auto rows = load_source(policy.rule.source, all);
        if (!rows.ok()) return rows.status();
        cached = cache.emplace(policy.rule.source, std::move(rows).value()).first;
    }
    std::vector<CheckResult> results;
    results.reserve(agents->size());
    for (const std::string& agent : *agents) {
        auto row = cached->second.find(agent);
        const fleet::InventoryItem* item = row == cached->second.end() ? nullptr : &row->second;
        CheckOutcome o = check_inventory(policy.rule, item, now_ms, stale_after_ms_);
        switch (o.status) {
            case CheckStatus::kCompliant:
                ++report.compliant;
                break;
            case CheckStatus::kNonCompliant:
                ++report.non_compliant;
                break;
            case CheckStatus::kUnknown:
                ++report.unknown;
                break;
        }
        results.push_back(CheckResult{policy.id, agent, o.status, std::move(o.detail), now_ms});
    }
    YUZU_RETURN_IF_ERROR(results_.replace(policy.id, results));
    ++report.policies;
    report.checks += static_cast<int64_t>(results.size());
    return Status::Ok();
}

Result<EvaluationReport> Evaluator::evaluate_all(int64_t now_ms, const std::atomic<bool>* cancel) {
    std::lock_guard<std::mutex> lock(mu_);
    EvaluationReport report;
    report.evaluated_at_ms = now_ms;
    auto policies = policies_.list();
    if (!policies.ok()) return policies.status();
    auto all = all_agents();
    if (!all.ok()) return all.status();
    std::map<std::string, SourceRows> cache;
    for (const Policy& p : *policies) {
        if (cancel != nullptr && cancel->load()) {
            report.cancelled = true;
            break;
        }
        if (!p.enabled) continue;
        Status st = evaluate_locked(p, now_ms, *all, cache, report);
        // Deleted while the pass ran: nothing to report.
        if (!st.ok() && st.code() != StatusCode::kNotFound) {
            spdlog::warn("compliance: policy {} ('{}') was not evaluated: {}", p.id, p.name,
                         st.to_string());
        }
    }
    return report;
}

Result<EvaluationReport> Evaluator::evaluate_policy(const std::string& policy_id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto policy = policies_.get(policy_id);
    if (!policy.ok()) return policy.status();
    if (!policy->enabled) {
        return Status::FailedPrecondition("policy " + policy_id +
                                          " is disabled; enable it before evaluating it");
    }
    auto all = all_agents();
    if (!all.ok()) return all.status();
    EvaluationReport report;
    report.evaluated_at_ms = clock_.now_ms();
    std::map<std::string, SourceRows> cache;
    YUZU_RETURN_IF_ERROR(evaluate_locked(*policy, report.evaluated_at_ms, *all, cache, report));
    return report;
}

}  // namespace yuzu::compliance
