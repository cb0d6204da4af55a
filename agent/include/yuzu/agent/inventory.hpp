// Inventory of the real host, one collector per source of the agent
// protocol's table (docs/agent-protocol.md, "Inventory"). A collector either
// reads its source or says why it could not; it never invents a value.
//
// Thread-safety: collectors keep no state; call them from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "yuzu/agent/host_paths.hpp"

namespace yuzu::agent {

// What a collector reads from and how long its programs may run.
struct InventoryEnv {
    HostPaths paths;
    std::chrono::milliseconds command_timeout{30'000};
    size_t command_output_cap = size_t{16} * 1024 * 1024;
    const std::atomic<bool>* cancel = nullptr;  // stops running programs early when true
};

// One source's reading: {"status": "ok", "data": ...} or
// {"status": "unavailable", "reason": ...} on the wire.
struct SourceReading {
    bool available = false;
    std::string data_json;  // a JSON value when available
    std::string reason;     // one line when unavailable

    static SourceReading ok(std::string data_json);
    static SourceReading unavailable(std::string reason);
    // {"status": ..., "data"|"reason": ...} as JSON text.
    std::string to_json() const;
};

SourceReading collect_os_release(const InventoryEnv& env);
SourceReading collect_kernel(const InventoryEnv& env);
SourceReading collect_host(const InventoryEnv& env);
SourceReading collect_cpu(const InventoryEnv& env);
SourceReading collect_memory(const InventoryEnv& env);
SourceReading collect_disks(const InventoryEnv& env);
SourceReading collect_network(const InventoryEnv& env);
SourceReading collect_packages(const InventoryEnv& env);
SourceReading collect_listening_sockets(const InventoryEnv& env);
SourceReading collect_processes(const InventoryEnv& env);
SourceReading collect_reboot_pending(const InventoryEnv& env);
SourceReading collect_systemd_units(const InventoryEnv& env);

// The protocol's source names, in the protocol's order.
const std::vector<std::string>& inventory_source_names();

// Runs the named source's collector; an unknown name is "unavailable".
SourceReading collect_source(const std::string& name, const InventoryEnv& env);

// Limits that keep an inventory body under the server's 16 MiB cap.
struct InventoryBudget {
    size_t max_source_bytes = size_t{4} * 1024 * 1024;
    size_t max_total_bytes = size_t{12} * 1024 * 1024;
};

// Every source as the protocol's "sources" object (JSON text). A source
// whose data is over max_source_bytes, or the largest sources while the
// whole is over max_total_bytes, is sent as unavailable with the size as
// the reason, never cut short.
std::string collect_inventory_sources(const InventoryEnv& env, const InventoryBudget& budget = {});

}  // namespace yuzu::agent
