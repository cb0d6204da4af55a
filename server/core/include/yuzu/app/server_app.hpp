// ServerApp: builds every part of yuzu-server from a ServerConfig, in
// dependency order, and tears them down in reverse.
//
// Start: data dir → listeners (TLS loaded, sockets bound) → stores (opened
// and migrated, the first admin bootstrapped) → services → routes → address
// file written → serve. Stop: listeners stop accepting and finish in-flight
// requests → services → stores closed.
#pragma once

#include <memory>

#include "yuzu/app/config.hpp"
#include "yuzu/audit/audit_log.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::app {

// What a benchmark build swaps in for a production part. yuzu-server passes
// none, and no flag or config key reaches these: they exist so that
// bench/pipeline/ can measure what a part costs, with the rest unchanged.
struct ServerOverrides {
    // The audit trail instead of audit.db (yuzu-bench-memaudit).
    std::unique_ptr<audit::AuditLog> audit_log;
};

class ServerApp {
  public:
    // Step one: the data dir, then both listeners' TLS certificates and keys
    // loaded and their sockets bound. Nothing else exists yet (no store, no
    // first admin, no password or token file), so a mistake found here leaves
    // no trace: an address in use ("cannot listen on 127.0.0.1:8080: Address
    // already in use"), a bad certificate ("TLS certificate <path>: <reason>").
    // yuzu-server prints the message as one line and exits 2.
    static Result<std::unique_ptr<ServerApp>> prepare(const ServerConfig& config,
                                                      ServerOverrides overrides = {});
    // Step two: stores opened and migrated, the first admin bootstrapped,
    // services wired, routes registered. Call once, after prepare().
    Status open();
    // prepare() then open().
    static Result<std::unique_ptr<ServerApp>> create(const ServerConfig& config);
    ~ServerApp();
    ServerApp(const ServerApp&) = delete;
    ServerApp& operator=(const ServerApp&) = delete;

    // Starts the background work (execution sweeper, schedule engine,
    // compliance scheduler)
    // and writes <data-dir>/listen.json (the bound addresses, for scripts and
    // tests that ask for port 0).
    Status start();
    // Serves until stop(); returns after in-flight requests have finished.
    void serve();
    // Safe from any thread (the signal watcher calls it).
    void stop();

    int management_port() const;

  private:
    struct Parts;
    static Status wire_pki(Parts& parts);
    static Status bind_listeners(Parts& parts);
    static Status wire_fleet(Parts& parts);
    static Status wire_executions(Parts& parts);
    static Status wire_compliance(Parts& parts);
    static Status wire_schedules(Parts& parts);
    static Status wire_mcp(Parts& parts);
    explicit ServerApp(std::unique_ptr<Parts> parts);
    std::unique_ptr<Parts> parts_;
};

}  // namespace yuzu::app
