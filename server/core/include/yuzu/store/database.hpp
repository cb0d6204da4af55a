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
//
// Statement cache: prepare() hands out a compiled statement the same SQL
// text left behind, when there is one. A Statement destroyed while its
// thread still holds the Conn (the usual `auto stmt = conn.prepare(...)`
// scope) is reset and kept for the next prepare() of that text instead of
// being finalized. Compiling is most of the cost of a short query, so the
// hot paths (token lookup, RBAC, the audit INSERT) skip it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "yuzu/common/status.hpp"
#include "yuzu/store/busy_stats.hpp"
#include "yuzu/store/statement.hpp"
#include "yuzu/store/transaction.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace yuzu::store {

struct OpenOptions {
    int busy_timeout_ms = 5000;  // how long a statement waits for another process's lock
    bool read_only = false;      // open an existing file for reading only
    // The connection's page cache; 0 keeps SQLite's default (2 MiB). A store
    // written by thousands of agents (fleet.db) keeps its hot index pages
    // here instead of reading them back from the OS on every write.
    int cache_kib = 0;
    // synchronous=FULL instead of NORMAL: every commit is fsynced before it
    // returns, so a committed row survives a power loss, not only a crash of
    // the process. For a store whose rows are promises (audit.db).
    bool sync_every_commit = false;
    // Read-only connections beside the one read-write connection, for
    // read(): a store read on every request (auth.db) does not queue behind
    // its writers. 0 = read() shares the read-write connection. Ignored for
    // ":memory:", which cannot be shared between connections.
    int read_connections = 0;
};

class Conn;

class Database {
  public:
    // Opens (creating unless read_only) the database file at `path` and sets
    // journal_mode=WAL, foreign_keys=ON, synchronous=NORMAL (FULL with
    // sync_every_commit), and a busy
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
    // A Conn for reading only, on a free read connection when the store has
    // them (OpenOptions::read_connections), else lock(). WAL lets readers
    // and the writer run at once; a reader sees every transaction committed
    // before its statement started. Not for reads that must see this
    // thread's uncommitted writes: those run on the lock() Conn that wrote.
    Conn read();
    const std::string& path() const { return path_; }

  private:
    friend class Conn;
    friend class Statement;
    friend class Transaction;

    // At most this many compiled statements wait in the cache; beyond it a
    // Statement is finalized as before. Stores use a few dozen SQL texts.
    static constexpr size_t kStatementCacheSize = 64;

    struct SqlHash {
        using is_transparent = void;
        size_t operator()(std::string_view sql) const { return std::hash<std::string_view>{}(sql); }
    };

    Database(std::string path, sqlite3* handle);
    bool held_by_current_thread() const {
        return owner_.load(std::memory_order_relaxed) == std::this_thread::get_id();
    }
    // Whether the calling thread holds `db`'s Conn. Never dereferences `db`,
    // so it is safe on a pointer whose Database may be gone.
    static bool held_here(const Database* db);
    // Both need mu_ held by the calling thread.
    sqlite3_stmt* take_cached(std::string_view sql);
    bool keep_for_reuse(sqlite3_stmt* stmt);

    const std::string path_;
    sqlite3* const handle_;       // owned; closed with sqlite3_close_v2
    internal::BusyContext busy_;  // the busy handler's; set once in open()

    std::mutex mu_;
    std::atomic<std::thread::id> owner_{};  // thread holding mu_, for asserts
    // Guarded by mu_:
    bool tx_open_ = false;  // a Transaction is alive on the current Conn
    Status begin_failure_;  // non-ok while a Transaction whose BEGIN failed lives
    // Reset statements by SQL text (trailing whitespace and ';' trimmed).
    std::unordered_map<std::string, sqlite3_stmt*, SqlHash, std::equal_to<>> stmt_cache_;
    // The read-only connections read() hands out; fixed after open().
    std::vector<std::unique_ptr<Database>> readers_;
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
    // Compiled statements waiting in this connection's cache (for tests and
    // the store's own checks; see "Statement cache").
    size_t cached_statements() const;

  private:
    friend class Database;
    // Takes the mutex now, or at first use when `defer` (see "Lock order").
    Conn(Database& db, bool defer);
    // Adopts db's mutex, which this thread has just taken with try_lock.
    Conn(Database& db, std::adopt_lock_t);
    // Takes the mutex unless this Conn holds it already; every SQL method
    // starts here.
    void acquire() const;
    void release();

    Database* db_;  // null when moved from
    // Mutable so that the const accessors can take a deferred lock.
    mutable std::unique_lock<std::mutex> lock_;
};

}  // namespace yuzu::store
