// yuzu-agent: enrolls with a yuzu-server, reports heartbeats and inventory
// of this host, and answers instructions through the built-in plugins.
//
//   yuzu-agent --server URL --enrollment-token TOKEN --state-dir DIR
//              [--virtual N] [--no-virtual-source-addresses] [--ca-file F]
//              [--log-level L] [--log-format text|json]
//
// Every flag has a YUZU_AGENT_* environment twin, so the enrollment token can
// stay out of `ps`. Exit status: 0 after SIGTERM/SIGINT, 2 for bad flags or
// settings, 1 when the agent cannot run or every identity has stopped.
#include <pthread.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <thread>

#include "yuzu/agent/agent_runtime.hpp"
#include "yuzu/agent/server_endpoint.hpp"
#include "yuzu/common/thread_guard.hpp"
#include "yuzu/logging/stderr_logging.hpp"
#include "yuzu/logging/thread_exception_logging.hpp"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

sigset_t shutdown_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGUSR2);  // only to wake the watcher when main is done
    return set;
}

// Runs on its own thread: the first SIGTERM/SIGINT asks the runtime to stop
// (goodbyes are sent); a second one exits at once.
void watch_signals(yuzu::agent::AgentRuntime& runtime) noexcept {
    sigset_t set = shutdown_signals();
    bool first = true;
    for (;;) {
        int sig = 0;
        if (sigwait(&set, &sig) != 0) continue;
        if (sig == SIGUSR2) return;
        if (first) {
            first = false;
            // A throw is logged and counted; the watcher stays for a second signal.
            (void)yuzu::run_guarded("agent.signals", [&runtime, sig] {
                spdlog::info("{} received; stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
                runtime.request_stop();
            });
            continue;
        }
        const char msg[] = "yuzu-agent: second shutdown signal, exiting immediately\n";
        (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
        ::_exit(128 + sig);
    }
}

int usage_error(const std::string& message) {
    std::fprintf(stderr, "yuzu-agent: %s\n", message.c_str());
    return kExitUsage;
}

int run_agent(int argc, char** argv) {
    yuzu::agent::AgentOptions options;
    std::string state_dir;
    std::string log_level = "info";
    std::string log_format = "text";

    CLI::App app{"yuzu-agent: the Yuzu endpoint agent"};
    app.set_version_flag("--version", YUZU_VERSION);
    app.add_option("--server", options.server_url, "Server agent-plane URL (http:// or https://)")
        ->envname("YUZU_AGENT_SERVER")
        ->required()
        ->check([](const std::string& url) {
            auto parsed = yuzu::agent::parse_server_url(url);
            return parsed.ok() ? std::string() : parsed.status().message();
        });
    app.add_option("--enrollment-token", options.enrollment_token,
                   "Enrollment token; needed until every identity is enrolled (prefer the "
                   "environment variable)")
        ->envname("YUZU_AGENT_ENROLLMENT_TOKEN");
    app.add_option("--state-dir", state_dir, "Directory for identity state (created 0700)")
        ->envname("YUZU_AGENT_STATE_DIR")
        ->required();
    app.add_option("--virtual", options.virtual_count,
                   "Run N identities (agent-0..agent-N-1) in this process")
        ->envname("YUZU_AGENT_VIRTUAL")
        ->check(CLI::Range(1, 10'000));
    bool no_virtual_source_addresses = false;
    app.add_flag("--no-virtual-source-addresses", no_virtual_source_addresses,
                 "With --virtual N against a loopback server, connect every identity from the "
                 "default address instead of one 127.100.x.y address each")
        ->envname("YUZU_AGENT_NO_VIRTUAL_SOURCE_ADDRESSES");
    app.add_option("--ca-file", options.ca_file, "PEM CA bundle to verify an https server")
        ->envname("YUZU_AGENT_CA_FILE")
        ->check(CLI::ExistingFile);
    app.add_option("--log-level", log_level, "trace, debug, info, warn, error, critical, off")
        ->envname("YUZU_AGENT_LOG_LEVEL")
        ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
    app.add_option("--log-format", log_format, "text or json")
        ->envname("YUZU_AGENT_LOG_FORMAT")
        ->check(CLI::IsMember({"text", "json"}));
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        return usage_error(e.what());
    }
    if (state_dir.empty()) return usage_error("--state-dir must not be empty");
    options.state_dir = state_dir;
    options.virtual_source_addresses = !no_virtual_source_addresses;

    if (auto logging = yuzu::logging::configure_stderr_logging("yuzu-agent", log_level, log_format);
        !logging.ok()) {
        return usage_error(logging.message());
    }
    yuzu::logging::install_thread_exception_logging();

    // Signals are taken by the watcher thread alone; every thread started
    // after this inherits the mask. A server that hangs up mid-write must
    // not kill the agent.
    sigset_t set = shutdown_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    ::signal(SIGPIPE, SIG_IGN);

    const yuzu::agent::PluginRegistry plugins = yuzu::agent::PluginRegistry::builtin();
    yuzu::agent::AgentRuntime runtime(std::move(options), plugins);
    std::thread watcher(watch_signals, std::ref(runtime));
    // Guarded so the watcher is always joined (a joinable std::thread
    // destroyed by an exception would end the process).
    yuzu::Status status;
    if (!yuzu::run_guarded("agent.runtime", [&] { status = runtime.run(); })) {
        status = yuzu::Status::Internal("the agent runtime failed; see the log");
    }
    pthread_kill(watcher.native_handle(), SIGUSR2);
    watcher.join();
    if (status.ok()) return 0;
    if (status.code() == yuzu::StatusCode::kInvalidArgument) return usage_error(status.message());
    std::fprintf(stderr, "yuzu-agent: %s\n", status.message().c_str());
    return kExitFailure;
}

}  // namespace

// Nothing escapes main: an exception is logged, counted and exits 1.
int main(int argc, char** argv) {
    int code = kExitFailure;
    (void)yuzu::run_guarded("agent.main", [&] { code = run_agent(argc, argv); });
    return code;
}
