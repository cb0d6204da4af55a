#include "yuzu/store/database.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "store/sqlite_error.hpp"

namespace yuzu::store {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMemoryPath = ":memory:";

// Databases whose mutex this thread holds, through its Conns. Any makes
// lock() defer its wait to the new Conn's first use (database.hpp, "Lock
// order"). A Conn never changes threads, so a thread-local list is exact.
// Conns that are really used together nest only a few deep.
constexpr int kMaxHeld = 8;
thread_local const Database* t_held[kMaxHeld];
thread_local int t_conns_held = 0;

// The cache key: the SQL without the trailing whitespace and ';' that
// prepare() accepts, so sqlite3_sql()'s text and the caller's text agree.
std::string_view cache_key(std::string_view sql) {
    const size_t end = sql.find_last_not_of(" \t\r\n;");
    return end == std::string_view::npos ? std::string_view{} : sql.substr(0, end + 1);
}

std::string errno_text(int err) {
    return std::strerror(err);
}

// SQLite's own "unable to open database file" names neither the path nor the
// reason; checking the directory first gives the operator both.
Status check_location(const std::string& path, bool read_only) {
    if (path.empty()) return Status::InvalidArgument("cannot open database: the path is empty");
    fs::path dir = fs::path(path).parent_path();
    if (dir.empty()) dir = ".";
    const std::string prefix = "cannot open database " + path + ": ";

    std::error_code ec;
    const fs::file_status dir_status = fs::status(dir, ec);
    if (ec && ec != std::errc::no_such_file_or_directory) {
        return Status::FailedPrecondition(prefix + "cannot inspect directory " + dir.string() +
                                          ": " + ec.message());
    }
    if (!fs::exists(dir_status)) {
        return Status::FailedPrecondition(prefix + "directory " + dir.string() +
                                          " does not exist; create it or fix the data path");
    }
    if (!fs::is_directory(dir_status)) {
        return Status::FailedPrecondition(prefix + dir.string() + " is not a directory");
    }

    const bool file_exists = fs::exists(fs::path(path), ec);
    if (read_only) {
        if (!file_exists) {
            return Status::NotFound(prefix + "the file does not exist (opened read-only)");
        }
        return Status::Ok();
    }
    // WAL mode creates <path>-wal and <path>-shm beside the file.
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
        return Status::FailedPrecondition(prefix + "directory " + dir.string() +
                                          " is not writable by uid " + std::to_string(::geteuid()) +
                                          ": " + errno_text(errno));
    }
    if (file_exists && ::access(path.c_str(), R_OK | W_OK) != 0) {
        return Status::FailedPrecondition(prefix + "the file is not readable and writable by uid " +
                                          std::to_string(::geteuid()) + ": " + errno_text(errno));
    }
    return Status::Ok();
}

// Runs one PRAGMA that answers with a single row and returns that value.
Result<std::string> pragma_value(Conn& conn, std::string_view sql) {
    auto stmt = conn.prepare(sql);
    if (!stmt.ok()) return stmt.status();
    auto row = stmt->step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::Internal(std::string(sql) + " returned no row");
    std::string value = stmt->column_text(0);
    // Drain so the statement releases its locks before the next pragma.
    YUZU_RETURN_IF_ERROR(stmt->run());
    return value;
}

Status configure(Database& db, const OpenOptions& options) {
    auto conn = db.lock();
    const bool in_memory = db.path() == kMemoryPath;
    if (!options.read_only) {
        auto mode = pragma_value(conn, "PRAGMA journal_mode=WAL");
        if (!mode.ok()) return mode.status();
        const std::string expected = in_memory ? "memory" : "wal";
        if (*mode != expected) {
            return Status::FailedPrecondition("cannot open database " + db.path() +
                                              ": journal_mode stays '" + *mode + "' instead of '" +
                                              expected + "' (does the file system support WAL?)");
        }
        YUZU_RETURN_IF_ERROR(conn.exec(options.sync_every_commit ? "PRAGMA synchronous=FULL"
                                                                 : "PRAGMA synchronous=NORMAL"));
    } else {
        YUZU_RETURN_IF_ERROR(conn.exec("PRAGMA query_only=ON"));
    }
    YUZU_RETURN_IF_ERROR(conn.exec("PRAGMA foreign_keys=ON"));
    if (options.cache_kib > 0) {
        // Negative: a size in KiB rather than in pages.
        YUZU_RETURN_IF_ERROR(conn.exec("PRAGMA cache_size=-" + std::to_string(options.cache_kib)));
    }
    // Reading the schema here makes "file is not a database" surface at open.
    auto schema = pragma_value(conn, "PRAGMA schema_version");
    return schema.ok() ? Status::Ok() : schema.status();
}

}  // namespace

// ---- Database --------------------------------------------------------------

Result<std::unique_ptr<Database>> Database::open(const std::string& path,
                                                 const OpenOptions& options) {
    assert(options.busy_timeout_ms >= 0);
    if (path != kMemoryPath) YUZU_RETURN_IF_ERROR(check_location(path, options.read_only));

    // FULLMUTEX on top of our own mutex: statements may be finalized by any
    // thread after their Conn is gone.
    const int flags =
        (options.read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
        SQLITE_OPEN_FULLMUTEX;
    sqlite3* handle = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &handle, flags, nullptr);
    if (rc != SQLITE_OK) {
        Status status = internal::sqlite_error(handle, rc, "cannot open database", path, {});
        sqlite3_close_v2(handle);  // a handle is returned even on failure
        return status;
    }
    sqlite3_extended_result_codes(handle, 1);

    std::unique_ptr<Database> db(new Database(path, handle));
    // Our own busy handler waits like sqlite3_busy_timeout and counts each
    // retry and each give-up for /metrics.
    internal::bind_busy_context(db->busy_, path, options.busy_timeout_ms);
    sqlite3_busy_handler(handle, &internal::busy_handler, &db->busy_);
    Status configured = configure(*db, options);
    if (!configured.ok()) return configured;
    if (!options.read_only && path != kMemoryPath) {
        for (int i = 0; i < options.read_connections; ++i) {
            OpenOptions reader = options;
            reader.read_only = true;
            reader.read_connections = 0;
            auto r = Database::open(path, reader);
            if (!r.ok()) return r.status();
            db->readers_.push_back(std::move(r).value());
        }
    }
    return db;
}

Database::Database(std::string path, sqlite3* handle) : path_(std::move(path)), handle_(handle) {}

Database::~Database() {
    assert(!held_by_current_thread() && "Database destroyed while a Conn is alive");
    for (auto& [sql, stmt] : stmt_cache_) sqlite3_finalize(stmt);
    // close_v2 defers the close until outstanding Statements are finalized.
    sqlite3_close_v2(handle_);
}

Conn Database::lock() {
    assert(!held_by_current_thread() &&
           "Database::lock() on a thread that already holds it would deadlock");
    // `held = other.lock()` builds the new Conn before the old one is given
    // up; taking the new mutex at once would hold both, in an order another
    // thread may take the other way round.
    return Conn(*this, /*defer=*/t_conns_held > 0);
}

bool Database::held_here(const Database* db) {
    for (int i = 0; i < t_conns_held; ++i) {
        if (t_held[i] == db) return true;
    }
    return false;
}

sqlite3_stmt* Database::take_cached(std::string_view sql) {
    assert(held_by_current_thread());
    auto it = stmt_cache_.find(cache_key(sql));
    if (it == stmt_cache_.end()) return nullptr;
    sqlite3_stmt* stmt = it->second;
    stmt_cache_.erase(it);
    return stmt;
}

bool Database::keep_for_reuse(sqlite3_stmt* stmt) {
    assert(held_by_current_thread());
    // A Database at the address of a closed one must not adopt its statement.
    if (sqlite3_db_handle(stmt) != handle_) return false;
    if (stmt_cache_.size() >= kStatementCacheSize) return false;
    const char* sql = sqlite3_sql(stmt);
    if (sql == nullptr) return false;
    const std::string_view key = cache_key(sql);
    if (key.empty() || stmt_cache_.find(key) != stmt_cache_.end()) return false;
    // Drop the last run's row cursor, locks and values before it waits.
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    stmt_cache_.emplace(std::string(key), stmt);
    return true;
}

Conn Database::read() {
    if (readers_.empty()) return lock();
    // Spread threads over the readers; a thread keeps its slot, so its
    // statements stay warm in that reader's cache.
    static std::atomic<size_t> next_slot{0};
    thread_local const size_t slot = next_slot.fetch_add(1, std::memory_order_relaxed);
    const size_t n = readers_.size();
    const size_t first = slot % n;
    // Holding another Conn: wait at first use, as lock() does ("Lock order").
    if (t_conns_held > 0) return readers_[first]->lock();
    for (size_t i = 0; i < n; ++i) {
        Database& r = *readers_[(first + i) % n];
        if (r.mu_.try_lock()) return Conn(r, std::adopt_lock);
    }
    return readers_[first]->lock();
}

// ---- Conn ------------------------------------------------------------------

Conn::Conn(Database& db, bool defer) : db_(&db), lock_(db.mu_, std::defer_lock) {
    if (!defer) acquire();
}

Conn::Conn(Database& db, std::adopt_lock_t) : db_(&db), lock_(db.mu_, std::adopt_lock) {
    // acquire()'s bookkeeping for a mutex already held.
    if (t_conns_held == kMaxHeld) {
        std::fprintf(stderr, "yuzu store: more than %d Conns held on one thread\n", kMaxHeld);
        std::abort();
    }
    db.owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    t_held[t_conns_held++] = &db;
}

Conn::Conn(Conn&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), lock_(std::move(other.lock_)) {}

Conn& Conn::operator=(Conn&& other) noexcept {
    if (this != &other) {
        release();
        db_ = std::exchange(other.db_, nullptr);
        lock_ = std::move(other.lock_);
    }
    return *this;
}

Conn::~Conn() {
    release();
}

void Conn::acquire() const {
    assert(db_ != nullptr && "Conn used after being moved from");
    if (lock_.owns_lock()) return;
    assert(!db_->held_by_current_thread() &&
           "a second Conn on one Database used on the thread holding the first would deadlock");
    if (t_conns_held == kMaxHeld) {
        // A design bound, not an input: no code path nests this deep.
        std::fprintf(stderr, "yuzu store: more than %d Conns held on one thread\n", kMaxHeld);
        std::abort();
    }
    lock_.lock();
    db_->owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    t_held[t_conns_held++] = db_;
}

void Conn::release() {
    if (db_ == nullptr || !lock_.owns_lock()) return;
    assert(!db_->tx_open_ && "a Transaction outlived the Conn it came from");
    if (sqlite3_get_autocommit(db_->handle_) == 0) {
        // Never hand the next thread an open transaction (release builds).
        sqlite3_exec(db_->handle_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    db_->tx_open_ = false;
    db_->begin_failure_ = Status::Ok();
    db_->owner_.store(std::thread::id(), std::memory_order_relaxed);
    lock_.unlock();
    // Conns are usually given up in reverse order, but need not be.
    for (int i = 0; i < t_conns_held; ++i) {
        if (t_held[i] == db_) {
            t_held[i] = t_held[--t_conns_held];
            break;
        }
    }
    db_ = nullptr;
}

// The path is immutable: reading it needs no lock, so it takes none.
const std::string& Conn::path() const {
    assert(db_ != nullptr && "Conn used after being moved from");
    return db_->path_;
}

size_t Conn::cached_statements() const {
    acquire();
    return db_->stmt_cache_.size();
}

Result<Statement> Conn::prepare(std::string_view sql) & {
    acquire();
    if (sql.empty()) return Status::Internal("prepare on " + db_->path_ + ": the SQL is empty");
    assert(sql.size() < static_cast<size_t>(INT32_MAX));
    if (sqlite3_stmt* cached = db_->take_cached(sql)) {
        return Statement(db_, cached, /*reusable=*/true);
    }
    sqlite3_stmt* raw = nullptr;
    const char* tail = nullptr;
    int rc =
        sqlite3_prepare_v2(db_->handle_, sql.data(), static_cast<int>(sql.size()), &raw, &tail);
    if (rc != SQLITE_OK)
        return internal::sqlite_error(db_->handle_, rc, "prepare", db_->path_, sql);
    if (raw == nullptr) {
        return Status::Internal("prepare on " + db_->path_ + ": the SQL holds no statement [SQL: " +
                                internal::sql_excerpt(sql) + "]");
    }
    Statement stmt(db_, raw, /*reusable=*/true);

    // Refuse a second statement rather than silently ignore it.
    const std::string_view rest(tail, static_cast<size_t>(sql.data() + sql.size() - tail));
    if (rest.find_first_not_of(" \t\r\n;") != std::string_view::npos) {
        sqlite3_stmt* extra = nullptr;
        rc = sqlite3_prepare_v2(db_->handle_, rest.data(), static_cast<int>(rest.size()), &extra,
                                nullptr);
        sqlite3_finalize(extra);
        if (rc != SQLITE_OK || extra != nullptr) {
            return Status::Internal("prepare on " + db_->path_ +
                                    ": prepare() takes one statement but the SQL holds more; "
                                    "use exec() for scripts [SQL: " +
                                    internal::sql_excerpt(sql) + "]");
        }
    }
    return stmt;
}

Status Conn::exec(std::string_view sql) {
    acquire();
    if (!db_->begin_failure_.ok()) return db_->begin_failure_;
    const char* next = sql.data();
    const char* const end = sql.data() + sql.size();
    while (next != nullptr && next < end) {
        sqlite3_stmt* raw = nullptr;
        const char* tail = nullptr;
        const std::string_view rest(next, static_cast<size_t>(end - next));
        const int rc = sqlite3_prepare_v2(db_->handle_, rest.data(), static_cast<int>(rest.size()),
                                          &raw, &tail);
        if (rc != SQLITE_OK) {
            return internal::sqlite_error(db_->handle_, rc, "prepare", db_->path_, rest);
        }
        if (raw == nullptr) break;  // only whitespace or comments remain
        Statement stmt(db_, raw);
        YUZU_RETURN_IF_ERROR(stmt.run());
        next = tail;
    }
    return Status::Ok();
}

int64_t Conn::last_insert_rowid() const {
    acquire();
    return sqlite3_last_insert_rowid(db_->handle_);
}

int Conn::changes() const {
    acquire();
    return sqlite3_changes(db_->handle_);
}

Transaction Conn::transaction() & {
    acquire();
    assert(!db_->tx_open_ && sqlite3_get_autocommit(db_->handle_) != 0 &&
           "nested transaction: a transaction is already open on this Conn");
    db_->tx_open_ = true;
    const int rc = sqlite3_exec(db_->handle_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
        Status status = internal::sqlite_error(db_->handle_, rc, "BEGIN IMMEDIATE", db_->path_, {});
        db_->begin_failure_ = status;
        return Transaction(db_, std::move(status));
    }
    return Transaction(db_, Status::Ok());
}

}  // namespace yuzu::store
