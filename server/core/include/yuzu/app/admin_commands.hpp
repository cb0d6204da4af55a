// Everyday admin without the REST API, run on the server host against the
// data directory (safe while yuzu-server runs: SQLite WAL):
//
//   yuzu-server token create --user NAME --name NAME [--tier T] [--expires 30d]
//   yuzu-server user add --username NAME --role ROLE... --password-file FILE
//   yuzu-server user unlock NAME
//
// All refuse a data directory the server has never started in (no auth.db),
// so they never bootstrap an admin as a side effect. Each writes an audit
// row (principal "cli:<local user>") like its REST twin, and prints one JSON
// object on stdout. A password is read from a file or YUZU_USER_PASSWORD,
// never from the command line (visible to every local user in ps).
#pragma once

#include <string>

namespace yuzu::app {

// True when argv[1] is "token" or "user".
bool is_admin_command(int argc, const char* const* argv);
// Parses and runs the sub-command; returns the process exit code (0 ok,
// 1 runtime failure, 2 bad usage or refused input), having printed the
// result or a one-line reason.
int run_admin_command(int argc, const char* const* argv);

// "30d", "12h", "90m", "3600s" or "3600" → seconds; "never" → 0; -1 when
// malformed, zero or over 10 years. Exposed for tests.
long long parse_duration_s(const std::string& text);

}  // namespace yuzu::app
