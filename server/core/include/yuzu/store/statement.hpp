// Statement: one prepared SQLite statement (RAII over sqlite3_stmt).
//
// Made by Conn::prepare(). Binds are chainable; a bind that fails (unknown
// index or name) is remembered and returned by the next step()/run(), so a
// chain of binds needs no error check of its own. Indices are 1-based,
// column indices 0-based.
//
// Thread-safety: not thread-safe. step()/run()/reset() must be called while
// the calling thread holds the Database's Conn (asserted); a Statement may be
// kept and reused across several lock() scopes of the same Database, and may
// be destroyed at any time, even after its Database. One destroyed while its
// thread holds the Conn goes back to the Database's statement cache
// (database.hpp) rather than being finalized.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/common/status.hpp"

struct sqlite3_stmt;

namespace yuzu::store {

class Database;

class Statement {
  public:
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement();

    // Positional binds (1-based). Text is UTF-8 and copied (SQLITE_TRANSIENT);
    // an empty string or blob binds an empty value, never NULL.
    Statement& bind(int index, int64_t value);
    Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view text);
    Statement& bind(int index, std::nullptr_t) = delete;  // use bind_null()
    // Like bind(), without the copy (SQLITE_STATIC): `text` must stay valid
    // and unchanged until this Statement is destroyed, its bindings are
    // cleared or `index` is bound again. For a hot path binding the fields
    // of an object that outlives the statement.
    Statement& bind_borrowed(int index, std::string_view text);
    Statement& bind_blob(int index, std::span<const uint8_t> bytes);
    Statement& bind_null(int index);

    // Named binds; `name` includes its prefix, e.g. ":user_id".
    Statement& bind(std::string_view name, int64_t value);
    Statement& bind(std::string_view name, int value) {
        return bind(name, static_cast<int64_t>(value));
    }
    Statement& bind(std::string_view name, double value);
    Statement& bind(std::string_view name, std::string_view text);
    Statement& bind(std::string_view name, std::nullptr_t) = delete;  // use bind_null()
    Statement& bind_blob(std::string_view name, std::span<const uint8_t> bytes);
    Statement& bind_null(std::string_view name);

    // Sets every parameter back to NULL and forgets a remembered bind error.
    Statement& clear_bindings();

    // true: a row is available through the column getters; false: done.
    // SQLITE_BUSY/LOCKED -> Unavailable; UNIQUE/PRIMARY KEY violations ->
    // AlreadyExists; other constraint violations -> FailedPrecondition;
    // anything else -> Internal. Messages carry sqlite's text, the database
    // path and the first 80 characters of the SQL.
    Result<bool> step();
    // Steps until done, discarding rows, then resets (bindings are kept), so
    // the statement can run again with new binds.
    Status run();
    // Rewinds to before the first row; bindings are kept.
    void reset();

    // Column getters are valid only while step() has just returned true.
    int column_count() const;
    bool column_is_null(int column) const;
    int64_t column_int64(int column) const;
    double column_double(int column) const;
    std::string column_text(int column) const;           // NULL reads as ""
    std::vector<uint8_t> column_blob(int column) const;  // NULL reads as {}

  private:
    friend class Conn;
    Statement(Database* db, sqlite3_stmt* stmt, bool reusable = false);
    // Hands the compiled statement back to the cache, or finalizes it.
    void release();

    int index_of(std::string_view name);
    Statement& record_bind(int rc, int index);
    void check_column(int column) const;
    std::string sql_excerpt() const;

    Database* db_ = nullptr;  // not owned; only read while its Conn is held
    sqlite3_stmt* stmt_ = nullptr;
    Status bind_error_;  // first failed bind, reported by step()
    bool has_row_ = false;
    bool reusable_ = false;  // came from prepare(): the cache may keep it
};

// Steps `stmt` to the end and returns column 0 of every row as text (the
// common "list of ids" query). The caller holds the statement's Conn.
Result<std::vector<std::string>> read_text_column(Statement& stmt);

}  // namespace yuzu::store
