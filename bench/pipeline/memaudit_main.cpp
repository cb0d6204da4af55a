// yuzu-bench-memaudit: yuzu-server with the in-memory audit log.
//
// The same server code, flags and stores as yuzu-server, except that audit
// rows go to MemoryAuditLog instead of audit.db. The pipeline benchmark runs
// it beside yuzu-server to measure what the durable audit row costs
// (bench/README.md). Not installed, and no flag of yuzu-server reaches this
// wiring. Rows are kept in memory for the life of the process.
#include <memory>

#include "yuzu/app/server_main.hpp"
#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/common/thread_guard.hpp"

int main(int argc, char** argv) {
    int code = 1;
    (void)yuzu::run_guarded("server.main", [&] {
        yuzu::app::ServerOverrides overrides;
        overrides.audit_log = std::make_unique<yuzu::audit::MemoryAuditLog>();
        code = yuzu::app::run_server_main(argc, argv, std::move(overrides));
    });
    return code;
}
