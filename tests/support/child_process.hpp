// ChildProcess: a binary of the build (yuzu-agent, yuzu-server) run as a
// child with a clean environment, its stdout/stderr appended to a log file,
// killed when the test ends. spawn_process() is the primitive ServerProcess
// and run_command() share.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace yuzu::testing {

// Starts argv[0] (a path) with the parent's environment minus YUZU_*
// variables plus `env`; output appended to output_file. -1 on failure.
pid_t spawn_process(const std::vector<std::string>& argv,
                    const std::map<std::string, std::string>& env, const std::string& output_file);
// waitpid() status -> exit code, or 128+n when killed by signal n.
int decode_wait_status(int status);

class ChildProcess {
  public:
    ChildProcess(const std::vector<std::string>& argv,
                 const std::map<std::string, std::string>& env, std::string log_file);
    ~ChildProcess();  // SIGKILL if still running
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    bool started() const { return pid_ > 0; }
    pid_t pid() const { return pid_; }
    bool running();
    // Sends `sig` and waits; the exit code, or -1 on timeout.
    int signal_and_wait(int sig, std::chrono::milliseconds timeout = std::chrono::seconds(10));
    std::string log() const;

  private:
    std::string log_file_;
    pid_t pid_ = -1;
    int exit_code_ = -1;
};

}  // namespace yuzu::testing
