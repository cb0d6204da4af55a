// ServerProcess: runs the real yuzu-server binary as a child on ephemeral
// loopback ports (--listen and --agent-listen 127.0.0.1:0, unless the test
// passes its own), waits until it serves, and kills it when the test ends.
// stdout/stderr go to <data dir>.log.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace yuzu::testing {

class ServerProcess {
  public:
    struct Options {
        std::vector<std::string> args;           // extra flags
        std::map<std::string, std::string> env;  // extra environment
        std::string data_dir;                    // default: a fresh temp dir
        bool wait_until_ready = true;

        static Options with_args(std::vector<std::string> extra) {
            Options o;
            o.args = std::move(extra);
            return o;
        }
    };

    explicit ServerProcess(Options options);
    ServerProcess() : ServerProcess(Options{}) {}
    ~ServerProcess();
    ServerProcess(const ServerProcess&) = delete;
    ServerProcess& operator=(const ServerProcess&) = delete;

    // Waits for <data dir>/listen.json and a 200 from /livez. False on timeout
    // or if the process died (its exit code is then in exit_code()).
    bool wait_ready(std::chrono::milliseconds timeout = std::chrono::seconds(30));

    const std::string& base_url() const { return base_url_; }    // "http://127.0.0.1:PORT"
    const std::string& agent_url() const { return agent_url_; }  // the agent plane
    std::string host() const { return "127.0.0.1"; }
    int port() const { return port_; }
    pid_t pid() const { return pid_; }
    const std::string& data_dir() const { return data_dir_; }

    // Sends `sig` and waits; returns the exit code (128+n when killed by
    // signal n), or -1 on timeout.
    int signal_and_wait(int sig, std::chrono::milliseconds timeout = std::chrono::seconds(10));
    // Waits for exit without signalling (for processes that exit by themselves).
    int wait_exit(std::chrono::milliseconds timeout = std::chrono::seconds(10));
    bool running();
    std::string log() const;

  private:
    std::unique_ptr<TempDir> owned_dir_;
    std::string data_dir_;
    std::string base_url_;
    std::string agent_url_;
    int port_ = 0;
    pid_t pid_ = -1;
    int exit_code_ = -1;
};

// Runs a command to completion, capturing stdout+stderr; returns the exit code.
int run_command(const std::vector<std::string>& argv, std::string* output,
                const std::map<std::string, std::string>& env = {});

// Path of a binary built into <build>/bin.
std::string bin_path(const std::string& name);

}  // namespace yuzu::testing
