#include "yuzu/fleet/fleet.hpp"

#include <filesystem>

#include "fleet/fleet_schema.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/command_queue.hpp"
#include "yuzu/fleet/enrollment.hpp"
#include "yuzu/fleet/inventory_store.hpp"
#include "yuzu/fleet/tag_store.hpp"
#include "yuzu/store/database.hpp"
#include "yuzu/store/migrations.hpp"
#include "yuzu/store/private_dir.hpp"

namespace yuzu::fleet {
namespace {

constexpr std::string_view kStoreName = "fleet.db";

Status check_options(const FleetOptions& o) {
    if (o.data_dir.empty()) return Status::InvalidArgument("fleet: data_dir must be set");
    if (o.offline_timeout_ms <= 0) {
        return Status::InvalidArgument("fleet: the agent offline timeout must be positive");
    }
    if (o.heartbeat_interval_s <= 0 || o.inventory_interval_s <= 0 || o.max_poll_wait_s <= 0) {
        return Status::InvalidArgument(
            "fleet: heartbeat, inventory and poll intervals must be positive");
    }
    if (o.max_queued_commands_per_agent == 0) {
        return Status::InvalidArgument("fleet: max_queued_commands_per_agent must be positive");
    }
    return Status::Ok();
}

}  // namespace

Fleet::~Fleet() = default;

Result<std::unique_ptr<Fleet>> Fleet::open(const FleetOptions& options, const Clock& clock) {
    YUZU_RETURN_IF_ERROR(check_options(options));
    YUZU_RETURN_IF_ERROR(store::ensure_private_dir(options.data_dir));
    const std::string path = (std::filesystem::path(options.data_dir) / kStoreName).string();
    // 64 MiB of page cache per connection: at ten thousand agents the
    // inventory and registry indexes are written and read all the time.
    constexpr int kFleetCacheKib = 64 * 1024;
    auto db = store::Database::open(path, store::OpenOptions{.cache_kib = kFleetCacheKib});
    if (!db.ok()) return db.status();
    YUZU_RETURN_IF_ERROR(store::apply_migrations(**db, kStoreName, fleet_migrations(), clock));

    // A second, read-only connection: with WAL, token lookups, agent reads
    // and inventory queries run beside a write (a fleet's inventory reports
    // are long ones) instead of queueing behind it.
    auto reader = store::Database::open(
        path, store::OpenOptions{.read_only = true, .cache_kib = kFleetCacheKib});
    if (!reader.ok()) return reader.status();

    std::unique_ptr<Fleet> fleet(new Fleet());
    fleet->options_ = options;
    fleet->db_ = std::move(db).value();
    fleet->reader_ = std::move(reader).value();
    store::Database& d = *fleet->db_;
    store::Database* r = fleet->reader_.get();
    fleet->enrollment_ = std::make_unique<EnrollmentService>(d, clock, r);
    fleet->registry_ = std::make_unique<AgentRegistry>(d, clock, options.offline_timeout_ms, r);
    fleet->inventory_ = std::make_unique<InventoryStore>(d, clock, r);
    fleet->tags_ = std::make_unique<TagStore>(d, clock);
    fleet->commands_ = std::make_unique<CommandQueue>(clock, options.max_queued_commands_per_agent);
    return fleet;
}

const std::string& Fleet::db_path() const {
    return db_->path();
}

Status Fleet::ready() const {
    auto conn = db_->lock();
    return conn.exec("SELECT 1 FROM agents LIMIT 1");
}

void Fleet::shutdown() {
    commands_->shutdown();
}

}  // namespace yuzu::fleet
