// Database and Conn: one SQLite connection guarded by a mutex.
//
// Every store family (auth.db, audit.db, approvals.db, fleet.db) opens one
// Database and runs all SQL through Conn, the lock guard:
//
//   auto conn = db->lock();                 // holds the mutex until conn dies
//   auto tx = conn.transaction();           // BEGIN IMMEDIATE
//   auto stmt = conn.prepare("INSERT INTO t(a) VALUES(?)");
//   if (!stmt.ok()) return stmt.status();
//   YUZU_RETURN_IF_ERROR(stmt->bind(1, a).run());
//   return tx.commit();
//
// Thread-safety: Database is safe to use from any thread; lock() blocks until
// the connection is free. Calling lock() on a thread that already holds it
// would deadlock and is asserted. A Conn belongs to the thread that made it:
// it may be moved, but not handed to another thread.
//
// Lock order: a lock() made while this thread already holds a Conn on
// another Database takes its mutex at the Conn's first use instead (any
// method but path()). So `held = other->lock();` gives up the old mutex
// before it takes the new one: replacing a Conn never holds two Databases'
// mutexes, which would be a lock-order inversion against any thread going
// the other way. Two Conns that are really used together still nest. A Conn
// whose only job is to guard a kept Statement (statement.hpp) is therefore
// taken while the thread holds no other Conn.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "yuzu/common/status.hpp"
#include "yuzu/store/busy_stats.hpp"
#include "yuzu/store/statement.hpp"
#include "yuzu/store/transaction.hpp"

struct sqlite3;

namespace yuzu::store {

struct OpenOptions {
    int busy_timeout_ms = 5000;  // how long a statement waits for another process's lock
    bool read_only = false;      // open an existing file for reading only
    // The connection's page cache; 0 keeps SQLite's default (2 MiB). A store
    // written by thousands of agents (fleet.db) keeps its hot index pages
    // here instead of reading them back from the OS on every write.
    int cache_kib = 0;
};

class Conn;

class Database {
  public:
    // Opens (creating unless read_only) the database file at `path` and sets
    // journal_mode=WAL, foreign_keys=ON, synchronous=NORMAL, and a busy
    // handler that retries for busy_timeout_ms and counts (busy_stats.hpp).
    // A missing or unwritable directory fails with the path in the message.
    // The path ":memory:" opens a private in-memory database (for tests).
    static Result<std::unique_ptr<Database>> open(const std::string& path,
                                                  const OpenOptions& options = {});

    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;
    ~Database();

    // Blocks until the connection is free; SQL runs through the returned Conn.
    // When this thread already holds another Database's Conn, the wait moves
    // to the returned Conn's first use (see "Lock order" above).
    Conn lock();
    const std::string& path() const { return path_; }

  private:
    friend class Conn;
    friend class Statement;
    friend class Transaction;

    Database(std::string path, sqlite3* handle);
    bool held_by_current_thread() const {
        return owner_.load(std::memory_order_relaxed) == std::this_thread::get_id();
    }

    const std::string path_;
    sqlite3* const handle_;       // owned; closed with sqlite3_close_v2
    internal::BusyContext busy_;  // the busy handler's; set once in open()

    std::mutex mu_;
    std::atomic<std::thread::id> owner_{};  // thread holding mu_, for asserts
    // Guarded by mu_:
    bool tx_open_ = false;  // a Transaction is alive on the current Conn
    Status begin_failure_;  // non-ok while a Transaction whose BEGIN failed lives
};

// The lock guard through which all SQL runs. Movable, not copyable.
class Conn {
  public:
    Conn(Conn&& other) noexcept;
    Conn& operator=(Conn&& other) noexcept;
    Conn(const Conn&) = delete;
    Conn& operator=(const Conn&) = delete;
    ~Conn();

    // Compiles exactly one statement (trailing statements are an error; use
    // exec() for scripts). Only on a named Conn: a Statement from a temporary
    // Conn would run unlocked.
    Result<Statement> prepare(std::string_view sql) &;
    // Runs one or more statements, discarding any rows (migrations, pragmas).
    Status exec(std::string_view sql);
    // Of the most recent INSERT / INSERT-UPDATE-DELETE on this connection.
    int64_t last_insert_rowid() const;
    int changes() const;
    // BEGIN IMMEDIATE; see transaction.hpp. Only on a named Conn.
    Transaction transaction() &;

    const std::string& path() const;

  private:
    friend class Database;
    // Takes the mutex now, or at first use when `defer` (see "Lock order").
    Conn(Database& db, bool defer);
    // Takes the mutex unless this Conn holds it already; every SQL method
    // starts here.
    void acquire() const;
    void release();

    Database* db_;  // null when moved from
    // Mutable so that the const accessors can take a deferred lock.
    mutable std::unique_lock<std::mutex> lock_;
};

}  // namespace yuzu::store
