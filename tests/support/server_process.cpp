#include "support/server_process.hpp"

#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "support/child_process.hpp"

namespace yuzu::testing {

std::string bin_path(const std::string& name) {
    return std::string(YUZU_BIN_DIR) + "/" + name;
}

ServerProcess::ServerProcess(Options options) {
    if (options.data_dir.empty()) {
        owned_dir_ = std::make_unique<TempDir>();
        data_dir_ = (owned_dir_->path() / "data").string();
    } else {
        data_dir_ = options.data_dir;
    }
    // Ephemeral loopback ports unless the test chose its own addresses.
    auto given = [&options](const std::string& flag) {
        return std::find(options.args.begin(), options.args.end(), flag) != options.args.end();
    };
    std::vector<std::string> argv = {bin_path("yuzu-server"), "--data-dir", data_dir_};
    for (const char* flag : {"--listen", "--agent-listen"}) {
        if (!given(flag)) argv.insert(argv.end(), {flag, "127.0.0.1:0"});
    }
    argv.insert(argv.end(), options.args.begin(), options.args.end());
    std::filesystem::create_directories(std::filesystem::path(data_dir_).parent_path());
    pid_ = spawn_process(argv, options.env, data_dir_ + ".log");
    if (options.wait_until_ready) wait_ready();
}

ServerProcess::~ServerProcess() {
    if (pid_ > 0 && exit_code_ < 0) {
        ::kill(pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
    }
}

bool ServerProcess::running() {
    if (pid_ <= 0 || exit_code_ >= 0) return false;
    int status = 0;
    const pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
        exit_code_ = decode_wait_status(status);
        return false;
    }
    return true;
}

bool ServerProcess::wait_ready(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    const std::string listen_file = data_dir_ + "/listen.json";
    while (std::chrono::steady_clock::now() < deadline) {
        if (!running()) return false;
        std::ifstream in(listen_file);
        if (in) {
            try {
                auto j = nlohmann::json::parse(in);
                base_url_ = j.at("management").get<std::string>();
                agent_url_ = j.value("agent", "");
                port_ = std::stoi(base_url_.substr(base_url_.rfind(':') + 1));
                httplib::Client client(base_url_);
                client.set_connection_timeout(1);
                if (auto res = client.Get("/livez"); res && res->status == 200) return true;
            } catch (const std::exception&) {
                // Not written completely yet; retry.
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

int ServerProcess::wait_exit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (!running()) return exit_code_;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
}

int ServerProcess::signal_and_wait(int sig, std::chrono::milliseconds timeout) {
    if (!running()) return exit_code_;
    ::kill(pid_, sig);
    return wait_exit(timeout);
}

std::string ServerProcess::log() const {
    std::ifstream in(data_dir_ + ".log");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

int run_command(const std::vector<std::string>& argv, std::string* output,
                const std::map<std::string, std::string>& env) {
    TempDir dir;
    const std::string out_file = (dir.path() / "out.txt").string();
    const pid_t pid = spawn_process(argv, env, out_file);
    if (pid <= 0) return -1;
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (output != nullptr) {
        std::ifstream in(out_file);
        std::stringstream ss;
        ss << in.rdbuf();
        *output = ss.str();
    }
    return decode_wait_status(status);
}

}  // namespace yuzu::testing
