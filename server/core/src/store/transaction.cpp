#include "yuzu/store/transaction.hpp"

#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <cassert>
#include <utility>

#include "store/sqlite_error.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::store {

Transaction::Transaction(Database* db, Status begin_status)
    : db_(db), begin_status_(std::move(begin_status)) {}

Transaction::Transaction(Transaction&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), begin_status_(std::move(other.begin_status_)) {}

Transaction::~Transaction() {
    if (db_ == nullptr) return;
    // Touch the connection only from the thread that holds it; anything else
    // means the Transaction outlived its Conn, which already rolled back.
    const bool held = db_->held_by_current_thread();
    assert(held && "a Transaction outlived the Conn it came from");
    if (!held) return;
    if (begin_status_.ok() && sqlite3_get_autocommit(db_->handle_) == 0) {
        const int rc = sqlite3_exec(db_->handle_, "ROLLBACK", nullptr, nullptr, nullptr);
        if (rc != SQLITE_OK) {
            spdlog::error("store: ROLLBACK failed on {}: {}", db_->path_,
                          sqlite3_errmsg(db_->handle_));
        }
    }
    finish();
}

void Transaction::finish() {
    db_->tx_open_ = false;
    db_->begin_failure_ = Status::Ok();
    db_ = nullptr;
}

Status Transaction::commit() {
    assert(db_ != nullptr && "Transaction::commit() called twice or after a move");
    if (db_ == nullptr) return Status::Internal("Transaction::commit() on a finished transaction");
    assert(db_->held_by_current_thread());
    if (!begin_status_.ok()) return begin_status_;

    const int rc = sqlite3_exec(db_->handle_, "COMMIT", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) {
        finish();
        return Status::Ok();
    }
    Status status = internal::sqlite_error(db_->handle_, rc, "COMMIT", db_->path_, {});
    // A failed COMMIT can leave the transaction open; do not leave it half-way.
    if (sqlite3_get_autocommit(db_->handle_) == 0) {
        sqlite3_exec(db_->handle_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    finish();
    return status;
}

}  // namespace yuzu::store
