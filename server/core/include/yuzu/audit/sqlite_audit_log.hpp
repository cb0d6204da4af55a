// SqliteAuditLog: the audit trail in <data_dir>/audit.db.
//
// Each record() is one INSERT committed before it returns (WAL,
// synchronous=NORMAL: a committed row survives a crash of the process; a
// power loss may drop the last few commits). Queries filter in SQL on the
// indexed columns.
//
// Thread-safety: safe to call from any thread; calls are serialised on the
// store's connection lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "yuzu/audit/audit_log.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Database;
}

namespace yuzu::audit {

class SqliteAuditLog final : public AuditLog {
  public:
    // Opens (creating if needed) <data_dir>/audit.db and applies its
    // migrations. `data_dir` must already exist (the app creates it with
    // store::ensure_private_dir). `clock` must outlive the log.
    static Result<std::unique_ptr<SqliteAuditLog>> open(
        const std::string& data_dir, const Clock& clock = SystemClock::instance());

    SqliteAuditLog(const SqliteAuditLog&) = delete;
    SqliteAuditLog& operator=(const SqliteAuditLog&) = delete;
    ~SqliteAuditLog() override;

    Status record(AuditEvent event) override;
    Result<AuditPage> query(const AuditQuery& q) const override;

    // For /readyz: reads from audit.db and reports whether that worked.
    Status ready() const;

    // Retention: deletes every row with timestamp_ms < cutoff_ms and returns
    // how many went. The only path that deletes rows. The policy (365 days by
    // default) is the caller's. On a store error nothing is deleted, a
    // warning is logged and 0 is returned.
    size_t prune_older_than(int64_t cutoff_ms);

    const std::string& path() const;

  private:
    SqliteAuditLog(std::unique_ptr<store::Database> db, const Clock& clock);

    std::unique_ptr<store::Database> db_;  // serialises all access itself
    const Clock& clock_;
};

}  // namespace yuzu::audit
