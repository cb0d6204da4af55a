#include "yuzu/schedule/schedule_engine.hpp"

#include <spdlog/spdlog.h>

#include <utility>

#include "yuzu/audit/audit_log.hpp"
#include "yuzu/common/correlation_id.hpp"
#include "yuzu/execution/executions.hpp"

namespace yuzu::schedule {
namespace {

constexpr char kMissedMessage[] = "missed: more than 24 h late";

void audit_run(audit::AuditLog& audit, const Clock& clock, const Schedule& s,
               audit::AuditResult result, const std::string& detail) {
    audit::AuditEvent ev;
    // The owner acted, through a background job: no request, no address.
    ev.principal = s.owner;
    ev.principal_kind = "system";
    ev.action = "schedule.run";
    ev.target_type = "schedule";
    ev.target_id = s.id;
    ev.detail = "schedule_id=" + s.id + " definition_id=" + s.spec.definition_id + " " + detail;
    ev.result = result;
    ev.correlation_id = next_correlation_id(clock);
    if (Status st = audit.record(std::move(ev)); !st.ok()) {
        spdlog::error("schedule {}: audit write for schedule.run failed: {}", s.id, st.message());
    }
}

audit::AuditResult audit_result_of(const Status& st) {
    return audit::parse_audit_result(audit_result_for(st.code()))
        .value_or(audit::AuditResult::kError);
}

}  // namespace

ScheduleEngine::ScheduleEngine(ScheduleStore& store, DispatchServices services,
                               audit::AuditLog& audit, const Clock& clock, EngineOptions options)
    : store_(store), services_(services), audit_(audit), clock_(clock), options_(options) {}

ScheduleEngine::~ScheduleEngine() {
    stop();
}

void ScheduleEngine::start() {
    std::lock_guard<std::mutex> lock(lifecycle_mu_);
    if (task_) return;
    task_ = std::make_unique<PeriodicTask>(
        "schedule.engine", options_.tick,
        [this]() -> Status {
            auto report = run_due(clock_.now_s());
            if (!report.ok()) return report.status();
            if (report->more_due) {
                spdlog::info("schedules: {} ran this tick, more are due and wait for the next",
                             report->ran + report->refused + report->missed);
            }
            return Status::Ok();
        },
        [this](const Status& failure) {
            failed_ticks_.fetch_add(1);
            spdlog::warn("schedules: a tick failed: {}", failure.to_string());
        });
    task_->start();
}

void ScheduleEngine::stop() {
    std::unique_ptr<PeriodicTask> task;
    {
        std::lock_guard<std::mutex> lock(lifecycle_mu_);
        task = std::move(task_);
    }
    if (task) task->stop();
}

Result<TickReport> ScheduleEngine::run_due(int64_t now) {
    TickReport report;
    // One more than the bound, to know whether any are left for next tick.
    auto due = store_.due(now, options_.max_runs_per_tick + 1);
    if (!due.ok()) return due.status();
    if (due->size() > options_.max_runs_per_tick) {
        report.more_due = true;
        due->resize(options_.max_runs_per_tick);
    }
    Status first_failure = Status::Ok();
    for (const auto& s : *due) {
        auto lock = hold_runs();
        Status st = run_one(s.id, now, report);
        if (!st.ok()) {
            spdlog::error("schedule {}: {}", s.id, st.to_string());
            if (first_failure.ok()) first_failure = st;
        }
    }
    if (!first_failure.ok()) return first_failure;
    return report;
}

Status ScheduleEngine::run_one(const std::string& id, int64_t now, TickReport& report) {
    // Read again under the run lock: the schedule may have changed, been
    // disabled or deleted since the due list was read.
    auto current = store_.get(id);
    if (!current.ok()) {
        return current.status().code() == StatusCode::kNotFound ? Status::Ok() : current.status();
    }
    const Schedule& s = *current;
    const int64_t slot = s.next_execution_at;
    if (!s.spec.enabled || slot <= 0 || slot > now) return Status::Ok();
    const Frequency& frequency = s.spec.frequency;
    const bool once = frequency.type == FrequencyType::kOnce;

    if (once && now - slot > options_.once_grace_s) {
        RunRecord missed;
        missed.error = kMissedMessage;
        missed.next_execution_at = 0;
        missed.enabled = false;
        YUZU_RETURN_IF_ERROR(store_.record_run(s.id, missed));
        ++report.missed;
        audit_run(audit_, clock_, s, audit::AuditResult::kFailure,
                  std::string(kMissedMessage) + " (due at " + std::to_string(slot) + ")");
        return Status::Ok();
    }

    RunRecord run;
    run.next_execution_at = next_run_after(frequency, slot, now);
    run.enabled = !once;
    // The slot is claimed before anything is dispatched: if the outcome
    // cannot be written afterwards, the schedule is still not due again.
    YUZU_RETURN_IF_ERROR(store_.record_run(s.id, run));
    // The owner's rights as they are now, never as they were at creation.
    Result<execution::DispatchResult> dispatched = Status::Internal("not dispatched");
    auto who = owner_principal(services_.identity, s.owner);
    if (!who.ok()) {
        dispatched = who.status();
    } else {
        auto spec = authorize_schedule_dispatch(services_, *who, s.spec);
        dispatched = spec.ok() ? services_.executions.tracker().dispatch(*spec)
                               : Result<execution::DispatchResult>(spec.status());
    }

    if (!dispatched.ok()) {
        run.error = "run refused: " + dispatched.status().message();
        YUZU_RETURN_IF_ERROR(store_.record_run(s.id, run));
        ++report.refused;
        refusals_.fetch_add(1);
        audit_run(audit_, clock_, s, audit_result_of(dispatched.status()), run.error);
        return Status::Ok();
    }
    const execution::DispatchResult& result = *dispatched;
    run.execution_id = result.execution_id;
    run.ran_at = now;
    const Status recorded = store_.record_run(s.id, run);
    ++report.ran;
    runs_.fetch_add(1);
    audit_run(audit_, clock_, s, audit::AuditResult::kSuccess,
              "execution_id=" + result.execution_id + " command_id=" + result.command_id + " " +
                  result.plugin + "." + result.action +
                  " agents_targeted=" + std::to_string(result.agents_targeted) +
                  " agents_reached=" + std::to_string(result.agents_reached));
    return recorded;
}

}  // namespace yuzu::schedule
