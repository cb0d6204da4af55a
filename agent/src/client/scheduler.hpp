// The scheduler threads: heartbeats and inventory reports for the active
// identities, each on the intervals the server sets. The identities are
// split into contiguous shards of about 500, one thread each: with 10,000
// identities and 10 s heartbeats a single thread would owe the server
// 1,000 blocking requests a second. The host readings behind the bodies
// are shared by every shard (virtual identities report the same real
// host): one heartbeat reading a second, one inventory collection for all.
//
// Thread-safety: run_scheduler is the body of one shard's thread and uses
// only its own identities' control channels; a HostReadings may be used by
// every shard at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "client/identity.hpp"

namespace yuzu::agent {

inline constexpr size_t kIdentitiesPerShard = 500;
inline constexpr size_t kMaxShards = 20;

// Identities [begin, end) of the runtime's list.
struct ShardRange {
    size_t begin = 0;
    size_t end = 0;
};
// ceil(identities / 500) shards, at least 1 and at most 20, contiguous and
// in order, their sizes differing by at most one.
std::vector<ShardRange> scheduler_shards(size_t identities);

class HostReadings {
  public:
    explicit HostReadings(const RuntimeContext& ctx);
    ~HostReadings();
    HostReadings(const HostReadings&) = delete;
    HostReadings& operator=(const HostReadings&) = delete;

    // The heartbeat body; the host is read again when the reading is over a
    // second old.
    std::shared_ptr<const std::string> heartbeat_body();
    // The inventory report; collected again when over max_age old. A caller
    // arriving during a collection waits for it. Cut short by a stop.
    std::shared_ptr<const InventoryReport> inventory_report(std::chrono::milliseconds max_age);

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Returns when the agent stops.
void run_scheduler(std::span<Identity* const> shard, HostReadings& readings,
                   const RuntimeContext& ctx);

}  // namespace yuzu::agent
