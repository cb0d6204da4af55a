#include "yuzu/app/signals.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "yuzu/common/thread_guard.hpp"

namespace yuzu::app {
namespace {

sigset_t shutdown_set() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGUSR2);  // used only to wake the watcher at exit
    return set;
}

}  // namespace

void block_shutdown_signals() {
    sigset_t set = shutdown_set();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    // A peer that disconnects mid-write must not kill the process.
    ::signal(SIGPIPE, SIG_IGN);
}

ShutdownSignalWatcher::ShutdownSignalWatcher(std::function<void(int)> on_first) {
    thread_ = std::thread([on_first = std::move(on_first)]() noexcept {
        sigset_t set = shutdown_set();
        bool first_seen = false;
        for (;;) {
            int sig = 0;
            if (sigwait(&set, &sig) != 0) continue;
            if (sig == SIGUSR2) return;  // the destructor's wake-up
            if (!first_seen) {
                first_seen = true;
                // A throwing callback is logged and counted; the watcher
                // stays, so a second signal still ends the process.
                (void)run_guarded("signals.watcher", [&on_first, sig] { on_first(sig); });
                continue;
            }
            const char msg[] = "yuzu-server: second shutdown signal, exiting immediately\n";
            (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
            ::_exit(128 + sig);
        }
    });
}

ShutdownSignalWatcher::~ShutdownSignalWatcher() {
    if (thread_.joinable()) {
        pthread_kill(thread_.native_handle(), SIGUSR2);
        thread_.join();
    }
}

}  // namespace yuzu::app
