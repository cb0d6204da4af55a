// Routes run_guarded()'s reports (yuzu/common/thread_guard.hpp) into the
// process log: one spdlog error line per caught exception,
// "thread=<name> caught an exception and carries on: <what>" (the JSON log
// format lifts `thread` into a field).
//
// Thread-safety: call once at start-up, after configure_stderr_logging.
#pragma once

namespace yuzu::logging {

void install_thread_exception_logging() noexcept;

}  // namespace yuzu::logging
