// Private to the store module: turning SQLite result codes into Status.
#pragma once

#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

struct sqlite3;

namespace yuzu::store::internal {

// BUSY/LOCKED -> Unavailable; UNIQUE/PRIMARY KEY/ROWID constraint ->
// AlreadyExists; other constraints -> FailedPrecondition; else Internal.
StatusCode status_code_for_sqlite(int rc);

// The SQL squeezed onto one line and cut to its first 80 characters.
std::string sql_excerpt(std::string_view sql);

// "<action> on <path>: <sqlite message> (sqlite code N) [SQL: ...]"; reads
// sqlite3_errmsg(db), so call it right after the failing call, lock held.
Status sqlite_error(sqlite3* db, int rc, std::string_view action, std::string_view path,
                    std::string_view sql);

}  // namespace yuzu::store::internal
