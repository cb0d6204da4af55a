// Executions: executions.db and the services built on it — instruction
// definitions, the execution tracker and its event bus, responses, bundles
// and quarantine — opened and migrated together. The app owns it, wires
// result_sink() into the agent plane and starts the tracker's sweeper.
//
// Thread-safety: every service is safe to call from any thread.
#pragma once

#include <memory>
#include <string>

#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/execution/bundle_service.hpp"
#include "yuzu/execution/definition_store.hpp"
#include "yuzu/execution/event_bus.hpp"
#include "yuzu/execution/execution_tracker.hpp"
#include "yuzu/execution/quarantine_service.hpp"
#include "yuzu/execution/response_store.hpp"

namespace yuzu::store {
class Database;
}
namespace yuzu::fleet {
class Fleet;
}

namespace yuzu::execution {

struct ExecutionsOptions {
    std::string data_dir;  // executions.db lives here (created 0700 when missing)
    TrackerOptions tracker;
};

class Executions {
  public:
    // Opens and migrates <data_dir>/executions.db and seeds the built-in
    // definitions. `fleet` and `clock` must outlive the result. The sweeper
    // is not started.
    static Result<std::unique_ptr<Executions>> open(const ExecutionsOptions& options,
                                                    fleet::Fleet& fleet, const Clock& clock);
    ~Executions();
    Executions(const Executions&) = delete;
    Executions& operator=(const Executions&) = delete;

    DefinitionStore& definitions() { return *definitions_; }
    ExecutionEventBus& events() { return *events_; }
    ExecutionTracker& tracker() { return *tracker_; }
    ResponseStore& responses() { return *responses_; }
    BundleService& bundles() { return *bundles_; }
    QuarantineService& quarantine() { return *quarantine_; }
    // For AgentPlaneContext::on_result.
    fleet::CommandResultSink result_sink() { return tracker_->result_sink(); }

    const std::string& db_path() const;
    // For /readyz: executions.db answers a trivial query.
    Status ready() const;
    // Stops the sweeper and closes every event subscription.
    void shutdown();

  private:
    Executions() = default;
    std::unique_ptr<store::Database> db_;
    std::unique_ptr<ExecutionEventBus> events_;
    std::unique_ptr<DefinitionStore> definitions_;
    std::unique_ptr<ResponseStore> responses_;
    std::unique_ptr<ExecutionTracker> tracker_;
    std::unique_ptr<BundleService> bundles_;
    std::unique_ptr<QuarantineService> quarantine_;
};

}  // namespace yuzu::execution
