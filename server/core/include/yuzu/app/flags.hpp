// Command-line parsing for yuzu-server (CLI11, with YUZU_* environment
// twins for every flag).
#pragma once

#include <string>
#include <variant>

#include "yuzu/app/config.hpp"

namespace yuzu::app {

// What the command line asked for: run the server, or exit at once with a
// code and a message (help text, or a one-line reason for a bad value).
struct ExitRequest {
    int code = 0;
    std::string output;  // printed to stdout when code == 0, else stderr
};

using ParsedCommand = std::variant<ServerConfig, ExitRequest>;

ParsedCommand parse_server_flags(int argc, const char* const* argv);

// Semantic checks that CLI11 cannot express (files exist, ranges, both TLS
// files or neither). The message is one line, for the operator.
Status validate_config(const ServerConfig& config);

}  // namespace yuzu::app
