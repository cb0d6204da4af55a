#include "yuzu/app/server_metrics.hpp"

#include <spdlog/spdlog.h>

#include "yuzu/common/json_text.hpp"
#include "yuzu/common/thread_guard.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/command_queue.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/metrics/builder.hpp"
#include "yuzu/metrics/process_metrics.hpp"
#include "yuzu/store/busy_stats.hpp"

namespace yuzu::app {
namespace {

// Adds to `counter` what `total` grew by since the last scrape: the store
// keeps plain totals, a Prometheus counter only goes up.
void catch_up(metrics::Counter& counter, uint64_t total) {
    if (const double grown = static_cast<double>(total) - counter.Value(); grown > 0) {
        counter.Increment(grown);
    }
}

void register_store_metrics(metrics::Registry& registry) {
    auto* retries = &metrics::BuildCounter()
                         .Name("yuzu_store_busy_retries_total")
                         .Help(
                             "Times a SQLite statement found its database locked and waited "
                             "to retry, by database file.")
                         .Register(registry);
    auto* timeouts = &metrics::BuildCounter()
                          .Name("yuzu_store_busy_timeouts_total")
                          .Help(
                              "SQLite statements that gave up with SQLITE_BUSY after the busy "
                              "timeout, by database file.")
                          .Register(registry);
    registry.AddCollector([retries, timeouts] {
        for (const store::BusyCounts& c : store::busy_counts()) {
            catch_up(retries->Add({{"db", c.db}}), c.retries);
            catch_up(timeouts->Add({{"db", c.db}}), c.timeouts);
        }
    });
}

// dump_json keeps a process-wide total; the counter catches up at scrape time.
void register_json_metrics(metrics::Registry& registry) {
    auto* replaced = &metrics::BuildCounter()
                          .Name("yuzu_json_invalid_utf8_total")
                          .Help("JSON documents serialised with invalid UTF-8 replaced by U+FFFD")
                          .Register(registry)
                          .Add({});
    registry.AddCollector([replaced] { catch_up(*replaced, json_invalid_utf8_total()); });
}

// run_guarded keeps process-wide totals per thread; caught up at scrape time.
void register_thread_metrics(metrics::Registry& registry) {
    auto* caught = &metrics::BuildCounter()
                        .Name("yuzu_thread_exceptions_total")
                        .Help(
                            "Exceptions a background thread caught, logged and carried on "
                            "after, by thread.")
                        .Register(registry);
    registry.AddCollector([caught] {
        for (const ThreadExceptionCount& c : thread_exception_counts()) {
            catch_up(caught->Add({{"thread", c.thread}}), c.count);
        }
    });
}

void register_fleet_metrics(metrics::Registry& registry, fleet::Fleet& fleet) {
    auto& agents = metrics::BuildGauge()
                       .Name("yuzu_agents")
                       .Help(
                           "Enrolled agents by state (online: contact within the offline "
                           "timeout).")
                       .Register(registry);
    auto* online = &agents.Add({{"state", "online"}});
    auto* offline = &agents.Add({{"state", "offline"}});
    auto* queued = &metrics::BuildGauge()
                        .Name("yuzu_command_queue_depth")
                        .Help("Commands queued for agents and not yet delivered.")
                        .Register(registry)
                        .Add({});
    registry.AddCollector([&fleet, online, offline, queued] {
        const auto total = static_cast<double>(fleet.registry().total_count());
        const auto up = static_cast<double>(fleet.registry().online_count());
        online->Set(up);
        offline->Set(total > up ? total - up : 0);
        queued->Set(static_cast<double>(fleet.commands().undelivered()));
    });
}

void register_execution_metrics(metrics::Registry& registry, execution::Executions& executions) {
    auto* in_flight = &metrics::BuildGauge()
                           .Name("yuzu_executions_in_flight")
                           .Help(
                               "Executions dispatched and not yet settled (every agent "
                               "answered or timed out).")
                           .Register(registry)
                           .Add({});
    registry.AddCollector([&executions, in_flight] {
        auto running = executions.tracker().running_count();
        if (running.ok()) {
            in_flight->Set(static_cast<double>(*running));
        } else {
            // Keeps the last value; the store's own health shows in /readyz.
            spdlog::warn("metrics: cannot count running executions: {}",
                         running.status().message());
        }
    });
}

}  // namespace

void register_server_metrics(metrics::Registry& registry, fleet::Fleet* fleet,
                             execution::Executions* executions) {
    metrics::BuildGauge()
        .Name("yuzu_build_info")
        .Help("Always 1; the labels say which build is running.")
        .Register(registry)
        .Add({{"version", YUZU_VERSION}})
        .Set(1);
    metrics::register_process_metrics(registry);
    register_store_metrics(registry);
    register_json_metrics(registry);
    register_thread_metrics(registry);
    if (fleet != nullptr) register_fleet_metrics(registry, *fleet);
    if (executions != nullptr) register_execution_metrics(registry, *executions);
}

}  // namespace yuzu::app
