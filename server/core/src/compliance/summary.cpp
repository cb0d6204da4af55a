#include "yuzu/compliance/summary.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace yuzu::compliance {

std::vector<PolicySummary> summarize(const std::vector<Policy>& policies,
                                     const std::vector<StatusCount>& counts) {
    std::vector<PolicySummary> out;
    out.reserve(policies.size());
    std::map<std::string, size_t> index;
    for (const Policy& p : policies) {
        PolicySummary s;
        s.policy_id = p.id;
        s.name = p.name;
        s.enabled = p.enabled;
        index[p.id] = out.size();
        out.push_back(std::move(s));
    }
    for (const StatusCount& c : counts) {
        auto it = index.find(c.policy_id);
        if (it == index.end()) continue;  // deleted between the two reads
        PolicySummary& s = out[it->second];
        switch (c.status) {
            case CheckStatus::kCompliant:
                s.compliant += c.count;
                break;
            case CheckStatus::kNonCompliant:
                s.non_compliant += c.count;
                break;
            case CheckStatus::kUnknown:
                s.unknown += c.count;
                break;
        }
        s.total += c.count;
        s.last_evaluated_ms = std::max(s.last_evaluated_ms, c.last_evaluated_ms);
    }
    return out;
}

FleetCompliance fleet_compliance_of(const std::vector<PolicySummary>& summaries) {
    FleetCompliance f;
    for (const PolicySummary& s : summaries) {
        if (!s.enabled) continue;
        ++f.policies;
        f.total_checks += s.total;
        f.compliant += s.compliant;
        f.non_compliant += s.non_compliant;
        f.unknown += s.unknown;
    }
    const int64_t judged = f.total_checks - f.unknown;
    if (judged > 0) {
        const double pct = 100.0 * static_cast<double>(f.compliant) / static_cast<double>(judged);
        f.compliance_pct = std::round(pct * 10.0) / 10.0;
    }
    return f;
}

}  // namespace yuzu::compliance
