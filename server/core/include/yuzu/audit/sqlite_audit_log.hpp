// SqliteAuditLog: the audit trail in <data_dir>/audit.db.
//
// record() returns only once its row is on disk: audit.db runs WAL with
// synchronous=FULL, so every commit is fsynced and a returned row survives
// a crash of the process and a power loss alike. An fsync costs a tenth of
// a millisecond or more, so concurrent record() calls share one (group
// commit): callers join the open batch; when no commit is running, one of
// them takes the batch (up to kMaxBatchRows rows) and writes it in one
// transaction while the next batch opens behind it, and each caller returns
// when the commit holding its row is done. A row that fails inside a batch
// is retried on its own, so one bad row never fails its neighbours.
//
// Waking is per batch, not per row: the rows of a batch wait on one of two
// condition variables (by the batch's parity) that its leader signals once,
// after releasing the lock, so a woken caller neither sleeps again on the
// mutex nor is woken for a batch it is not in.
//
// Queries filter in SQL on the indexed columns.
//
// Thread-safety: safe to call from any thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "yuzu/audit/audit_log.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::store {
class Conn;
class Database;
}  // namespace yuzu::store

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

    // The most rows one group commit writes. A caller finding the open batch
    // full waits until a leader takes it.
    static constexpr size_t kMaxBatchRows = 256;
    // The most rows one INSERT statement of a batch carries (a power of two).
    static constexpr size_t kMaxRowsPerInsert = 32;

    // Since open(): how many batches record() wrote and how many rows they
    // held; rows / commits is the mean group size (a batch that fell back to
    // row-by-row still counts once). And at the moment of the call: the rows
    // queued for the next batch, and whether a leader is writing one.
    struct GroupCommitStats {
        uint64_t commits = 0;
        uint64_t rows = 0;
        size_t rows_waiting = 0;
        bool committing = false;
    };
    GroupCommitStats group_commit_stats() const;

  private:
    // One record() call waiting for its row to be committed.
    struct PendingRow {
        AuditEvent* event = nullptr;
        Status status;
        bool settled = false;  // commit_batch set status
        bool done = false;     // guarded by queue_mu_
    };

    SqliteAuditLog(std::unique_ptr<store::Database> db, const Clock& clock);
    // Writes rows[0..n) and sets each one's status. Never throws: a leader
    // that left record() by an exception would strand every queued caller.
    void commit_batch(PendingRow* const* rows, size_t n) noexcept;
    // Inserts rows[0..n) in order, in as few statements as it can. With
    // n > 1 the caller holds a transaction: a failed statement leaves the
    // rows before it inserted.
    Status insert_rows(store::Conn& conn, PendingRow* const* rows, size_t n);

    std::unique_ptr<store::Database> db_;  // serialises all access itself
    const Clock& clock_;

    mutable std::mutex queue_mu_;
    // The rows of batch n wait on committed_[n % 2]; a caller waiting to lead
    // batch n waits there too. While batch n commits, only batch n + 1 has
    // waiters, except that a leader preempted between unlocking and its
    // notify_all can leave batch n - 1's rows sharing batch n + 1's variable
    // for a moment. Its notify_all still comes, and every waiter rechecks its
    // predicate, so a wake-up that reaches the wrong batch is only wasted.
    std::condition_variable committed_[2];
    std::condition_variable room_;  // the open batch was taken
    // Guarded by queue_mu_:
    std::vector<PendingRow*> open_;  // the batch no leader has taken yet
    uint64_t open_batch_ = 0;        // its number
    bool committing_ = false;
    // A leader finished with callers waiting and woke one of them to lead
    // the open batch; until one that has waited takes it, none that just
    // arrived does.
    bool handing_over_ = false;
    GroupCommitStats stats_;
};

}  // namespace yuzu::audit
