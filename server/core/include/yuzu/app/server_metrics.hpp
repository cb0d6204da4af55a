// The /metrics families that mirror state held elsewhere and are refreshed
// at scrape time: process statistics, yuzu_build_info, SQLite busy counts
// the fleet gauges (agents by state, executions in flight, the command
// delivery backlog) and the exceptions background threads caught
// (yuzu_thread_exceptions_total, from common/thread_guard.hpp). Per-request families live beside
// the code they measure (http/, mcp/, audit/, fleet/).
#pragma once

namespace yuzu::metrics {
class Registry;
}
namespace yuzu::fleet {
class Fleet;
}
namespace yuzu::execution {
class Executions;
}

namespace yuzu::app {

// `fleet` and `executions` may be null (their gauges then stay absent); both
// must outlive `registry`'s last scrape.
void register_server_metrics(metrics::Registry& registry, fleet::Fleet* fleet,
                             execution::Executions* executions);

}  // namespace yuzu::app
