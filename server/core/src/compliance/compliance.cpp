#include "yuzu/compliance/compliance.hpp"

#include <filesystem>

#include "compliance/compliance_schema.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"
#include "yuzu/store/private_dir.hpp"

namespace yuzu::compliance {
namespace {

constexpr std::string_view kStoreName = "compliance.db";

}  // namespace

Compliance::~Compliance() {
    if (scheduler_) scheduler_->stop();
}

Result<std::unique_ptr<Compliance>> Compliance::open(const ComplianceOptions& options,
                                                     fleet::Fleet& fleet,
                                                     const auth::ManagementGroupStore* groups,
                                                     const Clock& clock) {
    if (options.data_dir.empty()) {
        return Status::InvalidArgument("compliance: data_dir must be set");
    }
    if (options.stale_after_ms < 0 || options.perf_sample_max_age_ms <= 0) {
        return Status::InvalidArgument(
            "compliance: the staleness bound and the "
            "sample age bound must be positive");
    }
    const int64_t stale_after_ms = options.stale_after_ms > 0
                                       ? options.stale_after_ms
                                       : int64_t{3} * fleet.options().inventory_interval_s * 1000;
    YUZU_RETURN_IF_ERROR(store::ensure_private_dir(options.data_dir));
    const std::string path = (std::filesystem::path(options.data_dir) / kStoreName).string();
    auto db = store::Database::open(path);
    if (!db.ok()) return db.status();
    YUZU_RETURN_IF_ERROR(store::apply_migrations(**db, kStoreName, compliance_migrations(), clock));
    YUZU_RETURN_IF_ERROR(seed_policies_once(**db, clock));

    std::unique_ptr<Compliance> c(new Compliance());
    c->db_ = std::move(db).value();
    c->policies_ = std::make_unique<PolicyStore>(*c->db_, clock);
    c->results_ = std::make_unique<ResultStore>(*c->db_);
    c->evaluator_ = std::make_unique<Evaluator>(*c->policies_, *c->results_, fleet, groups, clock,
                                                stale_after_ms);
    c->scheduler_ = std::make_unique<EvaluationScheduler>(*c->evaluator_, clock);
    c->dex_ = std::make_unique<DexPerf>(fleet.registry(), clock, options.perf_sample_max_age_ms);
    return c;
}

Result<PolicySummary> Compliance::summary(const std::string& policy_id,
                                          const AgentView& view) const {
    auto policy = policies_->get(policy_id);
    if (!policy.ok()) return policy.status();
    auto counts = results_->counts(view);
    if (!counts.ok()) return counts.status();
    auto one = summarize({*policy}, *counts);
    return one.front();
}

Result<std::vector<PolicySummary>> Compliance::summaries(const AgentView& view) const {
    auto policies = policies_->list();
    if (!policies.ok()) return policies.status();
    auto counts = results_->counts(view);
    if (!counts.ok()) return counts.status();
    return summarize(*policies, *counts);
}

Result<FleetCompliance> Compliance::fleet_compliance(const AgentView& view) const {
    auto all = summaries(view);
    if (!all.ok()) return all.status();
    return fleet_compliance_of(*all);
}

const std::string& Compliance::db_path() const {
    return db_->path();
}

Status Compliance::ready() const {
    auto conn = db_->lock();
    return conn.exec("SELECT 1 FROM policies LIMIT 1");
}

}  // namespace yuzu::compliance
