#include "yuzu/schedule/schedule_store.hpp"

#include <nlohmann/json.hpp>
#include <utility>

#include "yuzu/auth/random.hpp"
#include "yuzu/common/json_parse.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::schedule {
namespace {

constexpr std::string_view kStoreName = kSchedulesDbFile;
constexpr int kCreateAttempts = 3;

constexpr std::string_view kSelect =
    "SELECT schedule_id, name, definition_id, scope, agent_ids_json, params_json, "
    "frequency_type, run_at, interval_seconds, time_of_day, day_of_week, enabled, owner, "
    "created_at, updated_at, next_execution_at, last_run_at, last_execution_id, run_count, "
    "last_error FROM schedules ";

Status not_found(const std::string& id) {
    return Status::NotFound("schedule not found: " + id);
}

std::string agent_ids_text(const ScheduleTarget& target) {
    if (!target.agent_ids) return "";
    return dump_json(nlohmann::json(*target.agent_ids));
}

Result<Schedule> read_row(const store::Statement& s) {
    Schedule out;
    out.id = s.column_text(0);
    const Status corrupt = Status::Internal("schedules.db: schedule " + out.id + " is unreadable");
    ScheduleSpec& spec = out.spec;
    spec.name = s.column_text(1);
    spec.definition_id = s.column_text(2);
    spec.target.scope = s.column_text(3);
    const std::string ids = s.column_text(4);
    if (!ids.empty()) {
        auto parsed = parse_json(ids);
        if (!parsed.ok() || !parsed->is_array()) return corrupt;
        std::vector<std::string> list;
        for (const auto& id : *parsed) {
            if (!id.is_string()) return corrupt;
            list.push_back(id.get<std::string>());
        }
        spec.target.agent_ids = std::move(list);
    }
    spec.params_json = s.column_text(5);
    auto type = parse_frequency_type(s.column_text(6));
    if (!type) return corrupt;
    spec.frequency.type = *type;
    spec.frequency.run_at = s.column_int64(7);
    spec.frequency.interval_seconds = s.column_int64(8);
    spec.frequency.time_of_day = s.column_text(9);
    spec.frequency.day_of_week = static_cast<int>(s.column_int64(10));
    spec.enabled = s.column_int64(11) != 0;
    out.owner = s.column_text(12);
    out.created_at = s.column_int64(13);
    out.updated_at = s.column_int64(14);
    out.next_execution_at = s.column_int64(15);
    out.last_run_at = s.column_int64(16);
    out.last_execution_id = s.column_text(17);
    out.run_count = s.column_int64(18);
    out.last_error = s.column_text(19);
    return out;
}

Result<std::vector<Schedule>> read_all(store::Statement& stmt) {
    std::vector<Schedule> out;
    while (true) {
        auto row = stmt.step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        auto s = read_row(stmt);
        if (!s.ok()) return s.status();
        out.push_back(std::move(s).value());
    }
    return out;
}

Result<std::optional<Schedule>> fetch(store::Conn& conn, const std::string& id) {
    auto stmt = conn.prepare(std::string(kSelect) + "WHERE schedule_id = ?1");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, id);
    auto all = read_all(*stmt);
    if (!all.ok()) return all.status();
    if (all->empty()) return std::optional<Schedule>{};
    return std::optional<Schedule>{std::move(all->front())};
}

// Binds the spec's columns at ?2..?12 (the order of the INSERT and UPDATE
// below).
void bind_spec(store::Statement& stmt, const ScheduleSpec& spec) {
    const Frequency& f = spec.frequency;
    stmt.bind(2, spec.name).bind(3, spec.definition_id).bind(4, spec.target.scope);
    stmt.bind(5, agent_ids_text(spec.target)).bind(6, spec.params_json);
    stmt.bind(7, frequency_type_name(f.type)).bind(8, f.run_at).bind(9, f.interval_seconds);
    stmt.bind(10, f.time_of_day).bind(11, f.day_of_week).bind(12, spec.enabled ? 1 : 0);
}

Status check_params_object(const std::string& params_json) {
    auto params = parse_json(params_json);
    if (!params.ok() || !params->is_object()) {
        return Status::InvalidArgument("params must be a JSON object");
    }
    return Status::Ok();
}

// At most kMaxLastErrorBytes, never ending inside a UTF-8 sequence.
std::string clip(std::string text) {
    if (text.size() <= kMaxLastErrorBytes) return text;
    size_t end = kMaxLastErrorBytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    text.resize(end);
    return text;
}

}  // namespace

ScheduleStore::ScheduleStore(std::unique_ptr<store::Database> db, const Clock& clock,
                             size_t max_schedules)
    : db_(std::move(db)), clock_(clock), max_schedules_(max_schedules) {}

ScheduleStore::~ScheduleStore() = default;

Result<std::unique_ptr<ScheduleStore>> ScheduleStore::open(const std::string& path,
                                                           const Clock& clock,
                                                           size_t max_schedules) {
    auto db = store::Database::open(path);
    if (!db.ok()) return db.status();
    YUZU_RETURN_IF_ERROR(store::apply_migrations(**db, kStoreName, schedule_migrations(), clock));
    return std::unique_ptr<ScheduleStore>(
        new ScheduleStore(std::move(db).value(), clock, max_schedules));
}

Result<Schedule> ScheduleStore::create(const ScheduleSpec& spec, const std::string& owner,
                                       int64_t next_execution_at) {
    YUZU_RETURN_IF_ERROR(validate_spec(spec));
    YUZU_RETURN_IF_ERROR(check_params_object(spec.params_json));
    if (owner.empty()) return Status::InvalidArgument("a schedule needs an owner");
    Schedule s;
    s.spec = spec;
    s.owner = owner;
    s.created_at = s.updated_at = clock_.now_s();
    s.next_execution_at = next_execution_at;

    auto conn = db_->lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    {
        auto count = conn.prepare("SELECT COUNT(*) FROM schedules");
        if (!count.ok()) return count.status();
        auto row = count->step();
        if (!row.ok()) return row.status();
        if (*row && static_cast<size_t>(count->column_int64(0)) >= max_schedules_) {
            return Status::ResourceExhausted("there are already " + std::to_string(max_schedules_) +
                                             " schedules, the most this server keeps; delete "
                                             "one before adding another");
        }
    }
    auto insert = conn.prepare(
        "INSERT INTO schedules(schedule_id, name, definition_id, scope, agent_ids_json, "
        "params_json, frequency_type, run_at, interval_seconds, time_of_day, day_of_week, "
        "enabled, owner, created_at, updated_at, next_execution_at) "
        "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?14, ?15)");
    if (!insert.ok()) return insert.status();
    for (int attempt = 0; attempt < kCreateAttempts; ++attempt) {
        auto id = auth::random_hex(16);
        if (!id.ok()) return id.status();
        insert->bind(1, *id);
        bind_spec(*insert, spec);
        insert->bind(13, owner).bind(14, s.created_at).bind(15, next_execution_at);
        Status inserted = insert->run();
        if (inserted.code() == StatusCode::kAlreadyExists) continue;
        YUZU_RETURN_IF_ERROR(inserted);
        YUZU_RETURN_IF_ERROR(tx.commit());
        s.id = *id;
        return s;
    }
    return Status::Internal("could not allocate a unique schedule id");
}

Result<Schedule> ScheduleStore::get(const std::string& id) const {
    auto conn = db_->lock();
    auto s = fetch(conn, id);
    if (!s.ok()) return s.status();
    if (!*s) return not_found(id);
    return std::move(**s);
}

Result<std::vector<Schedule>> ScheduleStore::list() const {
    auto conn = db_->lock();
    auto stmt = conn.prepare(std::string(kSelect) + "ORDER BY created_at DESC, schedule_id");
    if (!stmt.ok()) return stmt.status();
    return read_all(*stmt);
}

Result<Schedule> ScheduleStore::replace(const std::string& id, const ScheduleSpec& spec,
                                        const std::string& owner, int64_t next_execution_at) {
    YUZU_RETURN_IF_ERROR(validate_spec(spec));
    YUZU_RETURN_IF_ERROR(check_params_object(spec.params_json));
    if (owner.empty()) return Status::InvalidArgument("a schedule needs an owner");
    auto conn = db_->lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    auto current = fetch(conn, id);
    if (!current.ok()) return current.status();
    if (!*current) return not_found(id);
    Schedule s = std::move(**current);
    s.spec = spec;
    s.owner = owner;
    s.updated_at = clock_.now_s();
    s.next_execution_at = next_execution_at;
    s.last_error.clear();
    auto write = conn.prepare(
        "UPDATE schedules SET name = ?2, definition_id = ?3, scope = ?4, agent_ids_json = ?5, "
        "params_json = ?6, frequency_type = ?7, run_at = ?8, interval_seconds = ?9, "
        "time_of_day = ?10, day_of_week = ?11, enabled = ?12, owner = ?13, updated_at = ?14, "
        "next_execution_at = ?15, last_error = '' WHERE schedule_id = ?1");
    if (!write.ok()) return write.status();
    write->bind(1, id);
    bind_spec(*write, spec);
    write->bind(13, owner).bind(14, s.updated_at).bind(15, next_execution_at);
    YUZU_RETURN_IF_ERROR(write->run());
    YUZU_RETURN_IF_ERROR(tx.commit());
    return s;
}

Result<Schedule> ScheduleStore::set_enabled(const std::string& id, bool enabled,
                                            int64_t next_execution_at) {
    auto conn = db_->lock();
    auto tx = conn.transaction();
    if (!tx.ok()) return tx.status();
    auto current = fetch(conn, id);
    if (!current.ok()) return current.status();
    if (!*current) return not_found(id);
    Schedule s = std::move(**current);
    s.spec.enabled = enabled;
    s.next_execution_at = next_execution_at;
    s.updated_at = clock_.now_s();
    auto write = conn.prepare(
        "UPDATE schedules SET enabled = ?2, next_execution_at = ?3, updated_at = ?4 "
        "WHERE schedule_id = ?1");
    if (!write.ok()) return write.status();
    write->bind(1, id).bind(2, enabled ? 1 : 0).bind(3, next_execution_at).bind(4, s.updated_at);
    YUZU_RETURN_IF_ERROR(write->run());
    YUZU_RETURN_IF_ERROR(tx.commit());
    return s;
}

Status ScheduleStore::remove(const std::string& id) {
    auto conn = db_->lock();
    auto stmt = conn.prepare("DELETE FROM schedules WHERE schedule_id = ?1");
    if (!stmt.ok()) return stmt.status();
    YUZU_RETURN_IF_ERROR(stmt->bind(1, id).run());
    if (conn.changes() == 0) return not_found(id);
    return Status::Ok();
}

Result<std::vector<Schedule>> ScheduleStore::due(int64_t now, size_t limit) const {
    auto conn = db_->lock();
    auto stmt = conn.prepare(std::string(kSelect) +
                             "WHERE enabled = 1 AND next_execution_at > 0 AND "
                             "next_execution_at <= ?1 ORDER BY next_execution_at, schedule_id "
                             "LIMIT ?2");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, now).bind(2, static_cast<int64_t>(limit));
    return read_all(*stmt);
}

Status ScheduleStore::record_run(const std::string& id, const RunRecord& run) {
    const bool dispatched = !run.execution_id.empty();
    auto conn = db_->lock();
    auto stmt = conn.prepare(
        "UPDATE schedules SET next_execution_at = ?2, enabled = ?3, last_error = ?4, "
        "run_count = run_count + ?5, "
        "last_run_at = CASE WHEN ?5 = 1 THEN ?6 ELSE last_run_at END, "
        "last_execution_id = CASE WHEN ?5 = 1 THEN ?7 ELSE last_execution_id END "
        "WHERE schedule_id = ?1");
    if (!stmt.ok()) return stmt.status();
    stmt->bind(1, id).bind(2, run.next_execution_at).bind(3, run.enabled ? 1 : 0);
    stmt->bind(4, clip(run.error)).bind(5, dispatched ? 1 : 0).bind(6, run.ran_at);
    stmt->bind(7, run.execution_id);
    YUZU_RETURN_IF_ERROR(stmt->run());
    if (conn.changes() == 0) return not_found(id);
    return Status::Ok();
}

Status ScheduleStore::ready() const {
    auto conn = db_->lock();
    return conn.exec("SELECT 1 FROM schedules LIMIT 1");
}

const std::string& ScheduleStore::path() const {
    return db_->path();
}

}  // namespace yuzu::schedule
