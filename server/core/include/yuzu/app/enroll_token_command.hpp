// `yuzu-server enroll-token create --data-dir DIR`: creates an agent
// enrollment token on the server host, without the REST API, by opening the
// data directory's fleet.db (safe while the server runs: SQLite WAL).
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "yuzu/app/flags.hpp"

namespace yuzu::app {

struct EnrollTokenCommand {
    std::string data_dir = "./var";
    int64_t ttl_s = 24 * 3600;
    int max_uses = 0;  // 0 = unlimited until expiry
    std::string note;
};

// True when argv names the enroll-token subcommand.
bool is_enroll_token_command(int argc, const char* const* argv);
// Parses `enroll-token create [flags]`; an ExitRequest for help or bad input.
std::variant<EnrollTokenCommand, ExitRequest> parse_enroll_token_flags(int argc,
                                                                       const char* const* argv);
// Creates the token, records an audit row, and prints
// {"id", "token", "expires_at"} (expires_at in epoch seconds, like every
// time in the REST API) on stdout.
// Returns the process exit code.
int run_enroll_token_command(const EnrollTokenCommand& command);

}  // namespace yuzu::app
