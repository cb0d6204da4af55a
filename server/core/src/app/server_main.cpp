#include "yuzu/app/server_main.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cstdio>
#include <utility>
#include <variant>

#include "yuzu/app/admin_commands.hpp"
#include "yuzu/app/enroll_token_command.hpp"
#include "yuzu/app/fd_limit.hpp"
#include "yuzu/app/flags.hpp"
#include "yuzu/app/signals.hpp"
#include "yuzu/common/thread_guard.hpp"
#include "yuzu/logging/stderr_logging.hpp"
#include "yuzu/logging/thread_exception_logging.hpp"

namespace yuzu::app {

int run_server_main(int argc, char** argv, ServerOverrides overrides) {
    // Every file the server creates (stores, keys, listen.json) is its own
    // alone: 0600 files, 0700 directories, whatever the caller's umask.
    ::umask(077);
    if (is_enroll_token_command(argc, argv)) {
        auto parsed = parse_enroll_token_flags(argc, argv);
        if (auto* exit_request = std::get_if<ExitRequest>(&parsed)) {
            std::fputs(exit_request->output.c_str(), exit_request->code == 0 ? stdout : stderr);
            return exit_request->code;
        }
        (void)yuzu::logging::configure_stderr_logging("yuzu", "warn", "text");
        return run_enroll_token_command(std::get<EnrollTokenCommand>(parsed));
    }
    if (is_admin_command(argc, argv)) {
        (void)yuzu::logging::configure_stderr_logging("yuzu", "warn", "text");
        return run_admin_command(argc, argv);
    }
    block_shutdown_signals();

    ParsedCommand parsed = parse_server_flags(argc, argv);
    if (auto* exit_request = std::get_if<ExitRequest>(&parsed)) {
        std::fputs(exit_request->output.c_str(), exit_request->code == 0 ? stdout : stderr);
        return exit_request->code;
    }
    const ServerConfig& config = std::get<ServerConfig>(parsed);
    // validate_config has vetted both values; a refusal here is a bug there.
    if (yuzu::Status logging =
            yuzu::logging::configure_stderr_logging("yuzu", config.log_level, config.log_format);
        !logging.ok()) {
        std::fprintf(stderr, "yuzu-server: %s\n", logging.message().c_str());
        return 2;
    }
    yuzu::logging::install_thread_exception_logging();

    // Listeners first (TLS loaded, sockets bound), before any store or the
    // first admin exists: a configuration mistake is one line and exit 2,
    // and leaves no bootstrap password file behind.
    auto app = ServerApp::prepare(config, std::move(overrides));
    if (!app.ok()) {
        std::fprintf(stderr, "yuzu-server: %s\n", app.status().message().c_str());
        return 2;
    }
    // Both listeners' caps, plus stores, logs and agent-side slack.
    (void)raise_open_files_limit(static_cast<uint64_t>(config.max_connections) +
                                 static_cast<uint64_t>(config.agent_max_connections) + 256);
    if (auto s = (*app)->open(); !s.ok()) {
        spdlog::critical("cannot start: {}", s.message());
        return 1;
    }
    ServerApp& server = **app;
    {
        // The watcher lives exactly as long as serving and draining, so a
        // second signal during a slow drain still ends the process at once.
        ShutdownSignalWatcher watcher([&server](int sig) {
            spdlog::info("received signal {}, draining in-flight requests", sig);
            server.stop();
        });
        if (auto s = server.start(); !s.ok()) {
            spdlog::critical("cannot start: {}", s.message());
            return 1;
        }
        server.serve();
    }
    app->reset();  // stores close here, before we report a clean exit
    spdlog::info("yuzu-server stopped cleanly");
    return 0;
}

}  // namespace yuzu::app
