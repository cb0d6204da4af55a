// Transaction: RAII over BEGIN IMMEDIATE ... COMMIT, made by Conn::transaction().
//
// The destructor rolls back unless commit() succeeded; it never throws.
// A Transaction must not outlive the Conn it came from, and one Conn holds at
// most one Transaction at a time (nesting is a programming error, asserted).
//
// If BEGIN fails (another process held the write lock past busy_timeout), the
// Transaction is not ok(): status() and commit() return that error, and every
// exec()/step() on the Conn fails with it while the Transaction lives, so no
// write can slip out in autocommit mode.
//
// Thread-safety: used only by the thread holding the Conn.
#pragma once

#include "yuzu/common/status.hpp"

namespace yuzu::store {

class Database;

class Transaction {
  public:
    Transaction(Transaction&& other) noexcept;
    Transaction& operator=(Transaction&&) = delete;
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    ~Transaction();

    // Whether BEGIN succeeded.
    bool ok() const { return begin_status_.ok(); }
    const Status& status() const { return begin_status_; }

    // COMMIT. On failure the transaction is rolled back and the error
    // returned (e.g. a deferred foreign-key violation). Call at most once.
    Status commit();

  private:
    friend class Conn;
    Transaction(Database* db, Status begin_status);
    void finish();

    Database* db_;  // null once committed, rolled back or moved from
    Status begin_status_;
};

}  // namespace yuzu::store
