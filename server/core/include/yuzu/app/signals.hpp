// Shutdown signals. block_shutdown_signals() must run in main() before any
// thread starts, so every thread inherits the mask and only the watcher
// thread receives SIGTERM/SIGINT (no async-signal-safety traps in handlers).
#pragma once

#include <functional>
#include <thread>

namespace yuzu::app {

void block_shutdown_signals();

class ShutdownSignalWatcher {
  public:
    // `on_first` runs on the watcher thread for the first SIGTERM/SIGINT. A
    // second signal ends the process at once with 128 + signal number.
    explicit ShutdownSignalWatcher(std::function<void(int)> on_first);
    ~ShutdownSignalWatcher();
    ShutdownSignalWatcher(const ShutdownSignalWatcher&) = delete;
    ShutdownSignalWatcher& operator=(const ShutdownSignalWatcher&) = delete;

  private:
    std::thread thread_;
};

}  // namespace yuzu::app
