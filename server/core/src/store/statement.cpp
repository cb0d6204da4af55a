#include "yuzu/store/statement.hpp"

#include <sqlite3.h>

#include <cassert>
#include <utility>

#include "store/sqlite_error.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::store {

Statement::Statement(Database* db, sqlite3_stmt* stmt, bool reusable)
    : db_(db), stmt_(stmt), reusable_(reusable) {}

Statement::Statement(Statement&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      stmt_(std::exchange(other.stmt_, nullptr)),
      bind_error_(std::move(other.bind_error_)),
      has_row_(std::exchange(other.has_row_, false)),
      reusable_(std::exchange(other.reusable_, false)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
    if (this != &other) {
        release();
        db_ = std::exchange(other.db_, nullptr);
        stmt_ = std::exchange(other.stmt_, nullptr);
        bind_error_ = std::move(other.bind_error_);
        has_row_ = std::exchange(other.has_row_, false);
        reusable_ = std::exchange(other.reusable_, false);
    }
    return *this;
}

Statement::~Statement() {
    release();
}

// Only a thread holding the Conn may touch the cache, and holding it proves
// the Database is alive. Otherwise finalize: the connection is opened
// FULLMUTEX, so that is safe without our lock, even after the Database.
void Statement::release() {
    if (stmt_ == nullptr) return;
    if (reusable_ && Database::held_here(db_) && db_->keep_for_reuse(stmt_)) {
        stmt_ = nullptr;
        return;
    }
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
}

std::string Statement::sql_excerpt() const {
    const char* sql = sqlite3_sql(stmt_);
    return internal::sql_excerpt(sql != nullptr ? sql : "");
}

// ---- binds -----------------------------------------------------------------

Statement& Statement::record_bind(int rc, int index) {
    if (rc != SQLITE_OK && bind_error_.ok()) {
        std::string reason = sqlite3_errstr(rc);
        if (rc == SQLITE_RANGE) {
            reason = "no such parameter; the SQL has " +
                     std::to_string(sqlite3_bind_parameter_count(stmt_));
        } else if (rc == SQLITE_MISUSE) {
            reason += " (bind while the statement is running? reset() first)";
        }
        bind_error_ =
            Status::Internal("bind of parameter " + std::to_string(index) + " on " + db_->path() +
                             ": " + reason + " [SQL: " + sql_excerpt() + "]");
    }
    return *this;
}

Statement& Statement::bind(int index, int64_t value) {
    assert(stmt_ != nullptr);
    return record_bind(sqlite3_bind_int64(stmt_, index, value), index);
}

Statement& Statement::bind(int index, double value) {
    assert(stmt_ != nullptr);
    return record_bind(sqlite3_bind_double(stmt_, index, value), index);
}

Statement& Statement::bind(int index, std::string_view text) {
    assert(stmt_ != nullptr);
    // A null data pointer would bind NULL; an empty string must stay a string.
    const char* data = text.data() != nullptr ? text.data() : "";
    return record_bind(
        sqlite3_bind_text64(stmt_, index, data, text.size(), SQLITE_TRANSIENT, SQLITE_UTF8), index);
}

Statement& Statement::bind_borrowed(int index, std::string_view text) {
    assert(stmt_ != nullptr);
    const char* data = text.data() != nullptr ? text.data() : "";
    return record_bind(
        sqlite3_bind_text64(stmt_, index, data, text.size(), SQLITE_STATIC, SQLITE_UTF8), index);
}

Statement& Statement::bind_blob(int index, std::span<const uint8_t> bytes) {
    assert(stmt_ != nullptr);
    if (bytes.empty()) return record_bind(sqlite3_bind_zeroblob(stmt_, index, 0), index);
    return record_bind(
        sqlite3_bind_blob64(stmt_, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT), index);
}

Statement& Statement::bind_null(int index) {
    assert(stmt_ != nullptr);
    return record_bind(sqlite3_bind_null(stmt_, index), index);
}

int Statement::index_of(std::string_view name) {
    assert(stmt_ != nullptr);
    const std::string terminated(name);
    const int index = sqlite3_bind_parameter_index(stmt_, terminated.c_str());
    if (index == 0 && bind_error_.ok()) {
        bind_error_ = Status::Internal("bind on " + db_->path() + ": the SQL has no parameter '" +
                                       terminated + "' [SQL: " + sql_excerpt() + "]");
    }
    return index;
}

Statement& Statement::bind(std::string_view name, int64_t value) {
    const int index = index_of(name);
    return index == 0 ? *this : bind(index, value);
}

Statement& Statement::bind(std::string_view name, double value) {
    const int index = index_of(name);
    return index == 0 ? *this : bind(index, value);
}

Statement& Statement::bind(std::string_view name, std::string_view text) {
    const int index = index_of(name);
    return index == 0 ? *this : bind(index, text);
}

Statement& Statement::bind_blob(std::string_view name, std::span<const uint8_t> bytes) {
    const int index = index_of(name);
    return index == 0 ? *this : bind_blob(index, bytes);
}

Statement& Statement::bind_null(std::string_view name) {
    const int index = index_of(name);
    return index == 0 ? *this : bind_null(index);
}

Statement& Statement::clear_bindings() {
    assert(stmt_ != nullptr);
    sqlite3_clear_bindings(stmt_);
    bind_error_ = Status::Ok();
    return *this;
}

// ---- execution -------------------------------------------------------------

Result<bool> Statement::step() {
    assert(stmt_ != nullptr && "Statement used after being moved from");
    assert(db_->held_by_current_thread() &&
           "Statement stepped without holding its Database's Conn");
    has_row_ = false;
    if (!bind_error_.ok()) return bind_error_;
    if (!db_->begin_failure_.ok()) return db_->begin_failure_;

    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) {
        has_row_ = true;
        return true;
    }
    if (rc == SQLITE_DONE) return false;
    Status status = internal::sqlite_error(sqlite3_db_handle(stmt_), rc, "step", db_->path(),
                                           sqlite3_sql(stmt_));
    sqlite3_reset(stmt_);  // release any locks the failed statement holds
    return status;
}

Status Statement::run() {
    for (;;) {
        auto row = step();
        if (!row.ok()) return row.status();
        if (!*row) break;
    }
    reset();
    return Status::Ok();
}

void Statement::reset() {
    assert(stmt_ != nullptr);
    assert(db_->held_by_current_thread() && "Statement reset without holding its Database's Conn");
    sqlite3_reset(stmt_);  // returns the last step's error, already reported
    has_row_ = false;
}

// ---- columns ---------------------------------------------------------------

void Statement::check_column(int column) const {
    assert(has_row_ && "column read while no row is available");
    assert(column >= 0 && column < sqlite3_column_count(stmt_) && "column index out of range");
    (void)column;
}

int Statement::column_count() const {
    assert(stmt_ != nullptr);
    return sqlite3_column_count(stmt_);
}

bool Statement::column_is_null(int column) const {
    check_column(column);
    return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

int64_t Statement::column_int64(int column) const {
    check_column(column);
    return sqlite3_column_int64(stmt_, column);
}

double Statement::column_double(int column) const {
    check_column(column);
    return sqlite3_column_double(stmt_, column);
}

std::string Statement::column_text(int column) const {
    check_column(column);
    // Pointer first, then length: the documented order for a stable result.
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    if (text == nullptr) return {};
    return std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::vector<uint8_t> Statement::column_blob(int column) const {
    check_column(column);
    const auto* data = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, column));
    if (data == nullptr) return {};
    const auto size = static_cast<size_t>(sqlite3_column_bytes(stmt_, column));
    return std::vector<uint8_t>(data, data + size);
}

Result<std::vector<std::string>> read_text_column(Statement& stmt) {
    std::vector<std::string> out;
    while (true) {
        auto row = stmt.step();
        if (!row.ok()) return row.status();
        if (!*row) break;
        out.push_back(stmt.column_text(0));
    }
    return out;
}

}  // namespace yuzu::store
