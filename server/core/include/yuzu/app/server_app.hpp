// ServerApp: builds every part of yuzu-server from a ServerConfig, in
// dependency order, and tears them down in reverse.
//
// Start: data dir → stores (opened and migrated) → services → listeners bound
// → address file written → serve. Stop: listeners stop accepting and finish
// in-flight requests → services → stores closed.
#pragma once

#include <memory>

#include "yuzu/app/config.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::app {

class ServerApp {
  public:
    static Result<std::unique_ptr<ServerApp>> create(const ServerConfig& config);
    ~ServerApp();
    ServerApp(const ServerApp&) = delete;
    ServerApp& operator=(const ServerApp&) = delete;

    // Binds the listeners and writes <data-dir>/listen.json (the bound
    // addresses, for scripts and tests that ask for port 0).
    Status start();
    // Serves until stop(); returns after in-flight requests have finished.
    void serve();
    // Safe from any thread (the signal watcher calls it).
    void stop();

    int management_port() const;

  private:
    struct Parts;
    static Status wire_fleet(Parts& parts);
    static Status wire_executions(Parts& parts);
    static Status wire_compliance(Parts& parts);
    static Status wire_mcp(Parts& parts);
    explicit ServerApp(std::unique_ptr<Parts> parts);
    std::unique_ptr<Parts> parts_;
};

}  // namespace yuzu::app
