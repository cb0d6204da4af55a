// Fleet: the server's view of its agents. Owns fleet.db (WAL, numbered
// migrations) and the services built on it: enrollment and device tokens,
// the agent registry, inventory, tags, and the per-agent command queues the
// agent plane long-polls. REST routes, MCP tools and the agent plane all go
// through these services; none of them reaches into SQL.
//
// Thread-safety: every service is safe to call from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::fleet {

class EnrollmentService;
class AgentRegistry;
class InventoryStore;
class TagStore;
class CommandQueue;

struct FleetOptions {
    std::string data_dir;  // fleet.db lives here (created 0700 when missing)
    // An agent not seen for this long is offline.
    int64_t offline_timeout_ms = 30'000;
    // Told to agents at enrollment and on every heartbeat.
    int heartbeat_interval_s = 10;
    int inventory_interval_s = 300;
    // Long-poll hold time the server grants at most (the agent asks for less).
    int max_poll_wait_s = 60;
    // Commands queued per agent before enqueue answers ResourceExhausted.
    size_t max_queued_commands_per_agent = 256;
};

class Fleet {
  public:
    static Result<std::unique_ptr<Fleet>> open(const FleetOptions& options,
                                               const Clock& clock = SystemClock::instance());
    ~Fleet();
    Fleet(const Fleet&) = delete;
    Fleet& operator=(const Fleet&) = delete;

    EnrollmentService& enrollment() { return *enrollment_; }
    AgentRegistry& registry() { return *registry_; }
    InventoryStore& inventory() { return *inventory_; }
    TagStore& tags() { return *tags_; }
    CommandQueue& commands() { return *commands_; }
    const FleetOptions& options() const { return options_; }
    const std::string& db_path() const;
    // For /readyz: the store answers a trivial query.
    Status ready() const;
    // Wakes every held long-poll so shutdown does not wait for them.
    void shutdown();

  private:
    Fleet() = default;
    FleetOptions options_;
    std::unique_ptr<store::Database> db_;
    std::unique_ptr<store::Database> reader_;  // read-only, same file
    std::unique_ptr<EnrollmentService> enrollment_;
    std::unique_ptr<AgentRegistry> registry_;
    std::unique_ptr<InventoryStore> inventory_;
    std::unique_ptr<TagStore> tags_;
    std::unique_ptr<CommandQueue> commands_;
};

}  // namespace yuzu::fleet
