// The yuzu-server command line: the server itself and its admin and
// enroll-token commands. main.cpp is this and nothing else, so a benchmark
// binary (bench/pipeline/memaudit_main.cpp) runs the same server with one
// part swapped (ServerOverrides).
#pragma once

#include "yuzu/app/server_app.hpp"

namespace yuzu::app {

// Parses flags, builds the app, serves until a shutdown signal, drains, and
// returns the exit code (0 clean, 1 failed to start, 2 bad configuration).
int run_server_main(int argc, char** argv, ServerOverrides overrides = {});

}  // namespace yuzu::app
