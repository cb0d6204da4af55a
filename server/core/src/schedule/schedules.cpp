#include "yuzu/schedule/schedules.hpp"

#include <filesystem>
#include <utility>

#include "yuzu/store/private_dir.hpp"

namespace yuzu::schedule {

Schedules::Schedules(std::unique_ptr<ScheduleStore> store, DispatchServices services,
                     audit::AuditLog& audit, const Clock& clock, EngineOptions engine)
    : store_(std::move(store)),
      services_(services),
      clock_(clock),
      engine_(std::make_unique<ScheduleEngine>(*store_, services, audit, clock, engine)) {}

Schedules::~Schedules() {
    if (engine_) engine_->stop();
}

Result<std::unique_ptr<Schedules>> Schedules::open(const SchedulesOptions& options,
                                                   DispatchServices services,
                                                   audit::AuditLog& audit, const Clock& clock) {
    if (options.data_dir.empty()) return Status::InvalidArgument("schedules need a data directory");
    if (options.max_schedules == 0 || options.engine.max_runs_per_tick == 0 ||
        options.engine.tick.count() <= 0 || options.engine.once_grace_s < 0) {
        return Status::InvalidArgument(
            "schedules: the cap, the runs per tick and the tick must be positive");
    }
    YUZU_RETURN_IF_ERROR(store::ensure_private_dir(options.data_dir));
    const std::string path = (std::filesystem::path(options.data_dir) / kSchedulesDbFile).string();
    auto store = ScheduleStore::open(path, clock, options.max_schedules);
    if (!store.ok()) return store.status();
    return std::unique_ptr<Schedules>(
        new Schedules(std::move(store).value(), services, audit, clock, options.engine));
}

Result<std::vector<Schedule>> Schedules::list() const {
    return store_->list();
}

Result<Schedule> Schedules::get(const std::string& id) const {
    return store_->get(id);
}

Result<int64_t> Schedules::first_run(const ScheduleSpec& spec, int64_t now) const {
    if (!spec.enabled) return int64_t{0};
    if (spec.frequency.type == FrequencyType::kOnce && spec.frequency.run_at < now) {
        return Status::InvalidArgument("run_at " + std::to_string(spec.frequency.run_at) +
                                       " is in the past (now " + std::to_string(now) + ")");
    }
    return first_run_at(spec.frequency, now);
}

Result<Schedule> Schedules::create(const auth::Principal& who, const ScheduleSpec& spec) {
    YUZU_RETURN_IF_ERROR(validate_spec(spec));
    const int64_t now = clock_.now_s();
    auto next = first_run(spec, now);
    if (!next.ok()) return next.status();
    auto dispatch = authorize_schedule_dispatch(services_, who, spec);
    if (!dispatch.ok()) return dispatch.status();
    auto lock = engine_->hold_runs();
    return store_->create(spec, who.username, *next);
}

Result<Schedule> Schedules::update(const auth::Principal& who, const std::string& id,
                                   const ScheduleChange& change) {
    auto lock = engine_->hold_runs();
    auto current = store_->get(id);
    if (!current.ok()) return current.status();
    const ScheduleSpec spec = apply_change(current->spec, change);
    YUZU_RETURN_IF_ERROR(validate_spec(spec));
    const int64_t now = clock_.now_s();
    int64_t next = current->next_execution_at;
    if (!spec.enabled) {
        next = 0;
    } else if (!current->spec.enabled || !(spec.frequency == current->spec.frequency)) {
        auto first = first_run(spec, now);
        if (!first.ok()) return first.status();
        next = *first;
    }
    auto dispatch = authorize_schedule_dispatch(services_, who, spec);
    if (!dispatch.ok()) return dispatch.status();
    return store_->replace(id, spec, who.username, next);
}

Result<Schedule> Schedules::set_enabled(const auth::Principal& who, const std::string& id,
                                        bool enabled) {
    auto lock = engine_->hold_runs();
    auto current = store_->get(id);
    if (!current.ok()) return current.status();
    if (current->spec.enabled == enabled) return current;
    int64_t next = 0;
    if (enabled) {
        ScheduleSpec spec = current->spec;
        spec.enabled = true;
        auto first = first_run(spec, clock_.now_s());
        if (!first.ok()) {
            return Status::FailedPrecondition(first.status().message() +
                                              "; give the schedule a new run_at to enable it");
        }
        next = *first;
        // Re-arming a schedule is running it: whoever enables it must be
        // able to dispatch it by hand, whatever the owner may do.
        auto dispatch = authorize_schedule_dispatch(services_, who, spec);
        if (!dispatch.ok()) return dispatch.status();
    }
    return store_->set_enabled(id, enabled, next);
}

Status Schedules::remove(const std::string& id) {
    auto lock = engine_->hold_runs();
    return store_->remove(id);
}

Status Schedules::ready() const {
    return store_->ready();
}

const std::string& Schedules::db_path() const {
    return store_->path();
}

void Schedules::shutdown() {
    engine_->stop();
}

}  // namespace yuzu::schedule
