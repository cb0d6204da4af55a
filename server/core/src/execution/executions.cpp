#include "yuzu/execution/executions.hpp"

#include <filesystem>

#include "yuzu/execution/execution_schema.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"
#include "yuzu/store/private_dir.hpp"

namespace yuzu::execution {

Executions::~Executions() {
    // The tracker's sweeper publishes on the bus: stop it before anything
    // it uses is destroyed (members die in reverse order of declaration).
    if (tracker_) tracker_->stop();
}

Result<std::unique_ptr<Executions>> Executions::open(const ExecutionsOptions& options,
                                                     fleet::Fleet& fleet, const Clock& clock) {
    if (options.data_dir.empty()) {
        return Status::InvalidArgument("executions need a data directory");
    }
    YUZU_RETURN_IF_ERROR(store::ensure_private_dir(options.data_dir));
    if (options.tracker.execution_timeout_ms < 1000 ||
        options.tracker.execution_timeout_ms > kMaxExecutionTimeoutMs) {
        return Status::InvalidArgument("--execution-timeout must be between 1 s and 24 h");
    }
    if (options.tracker.sweep_interval_ms <= 0) {
        return Status::InvalidArgument("the execution sweep interval must be positive");
    }
    std::unique_ptr<Executions> ex(new Executions());
    const std::string path = (std::filesystem::path(options.data_dir) / "executions.db").string();
    // An execution on ten thousand agents writes and counts ten thousand
    // rows; 64 MiB of page cache keeps them off the OS's read path.
    auto db = store::Database::open(path, store::OpenOptions{.cache_kib = 64 * 1024});
    if (!db.ok()) return db.status();
    ex->db_ = std::move(db).value();
    YUZU_RETURN_IF_ERROR(
        store::apply_migrations(*ex->db_, "executions.db", execution_migrations(), clock));

    ex->events_ = std::make_unique<ExecutionEventBus>();
    ex->definitions_ = std::make_unique<DefinitionStore>(*ex->db_, clock);
    YUZU_RETURN_IF_ERROR(ex->definitions_->seed_builtins());
    ex->responses_ = std::make_unique<ResponseStore>(*ex->db_);
    ex->tracker_ =
        std::make_unique<ExecutionTracker>(*ex->db_, *ex->definitions_, fleet.registry(),
                                           fleet.commands(), *ex->events_, clock, options.tracker);
    ex->bundles_ =
        std::make_unique<BundleService>(*ex->db_, *ex->definitions_, *ex->tracker_, clock);
    ex->quarantine_ = std::make_unique<QuarantineService>(*ex->db_, fleet.registry(), clock);
    return ex;
}

const std::string& Executions::db_path() const {
    return db_->path();
}

Status Executions::ready() const {
    auto conn = db_->lock();
    auto stmt = conn.prepare("SELECT 1");
    if (!stmt.ok()) return stmt.status();
    auto row = stmt->step();
    return row.ok() ? Status::Ok() : row.status();
}

void Executions::shutdown() {
    tracker_->stop();
    events_->shutdown();
}

}  // namespace yuzu::execution
