#include "store/sqlite_error.hpp"

#include <sqlite3.h>

#include <cctype>

namespace yuzu::store::internal {

StatusCode status_code_for_sqlite(int rc) {
    switch (rc & 0xff) {
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            return StatusCode::kUnavailable;
        case SQLITE_CONSTRAINT:
            if (rc == SQLITE_CONSTRAINT_UNIQUE || rc == SQLITE_CONSTRAINT_PRIMARYKEY ||
                rc == SQLITE_CONSTRAINT_ROWID) {
                return StatusCode::kAlreadyExists;
            }
            return StatusCode::kFailedPrecondition;
        default:
            return StatusCode::kInternal;
    }
}

std::string sql_excerpt(std::string_view sql) {
    constexpr size_t kMaxChars = 80;
    std::string out;
    bool pending_space = false;
    size_t chars = 0;
    size_t i = 0;
    while (i < sql.size()) {
        const auto byte = static_cast<unsigned char>(sql[i]);
        if (std::isspace(byte)) {
            pending_space = !out.empty();
            ++i;
            continue;
        }
        if (pending_space) {
            if (chars == kMaxChars) break;
            out += ' ';
            ++chars;
            pending_space = false;
        }
        if (chars == kMaxChars) break;
        // Copy one whole UTF-8 sequence so the cut never splits a character.
        size_t len = 1;
        while (i + len < sql.size() && (static_cast<unsigned char>(sql[i + len]) & 0xC0) == 0x80) {
            ++len;
        }
        out.append(sql.substr(i, len));
        ++chars;
        i += len;
    }
    // Anything but trailing whitespace left over means the excerpt was cut.
    while (i < sql.size() && std::isspace(static_cast<unsigned char>(sql[i]))) ++i;
    if (i < sql.size()) out += "...";
    return out;
}

Status sqlite_error(sqlite3* db, int rc, std::string_view action, std::string_view path,
                    std::string_view sql) {
    std::string message(action);
    message += " on ";
    message += path;
    message += ": ";
    message += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    message += " (sqlite code ";
    message += std::to_string(rc);
    message += ")";
    if (!sql.empty()) {
        message += " [SQL: ";
        message += sql_excerpt(sql);
        message += "]";
    }
    return Status(status_code_for_sqlite(rc), std::move(message));
}

}  // namespace yuzu::store::internal
