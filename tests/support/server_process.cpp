#include "support/server_process.hpp"

#include <fcntl.h>
#include <httplib.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

extern char** environ;

namespace yuzu::testing {
namespace {

std::vector<std::string> merged_environment(const std::map<std::string, std::string>& extra) {
    std::map<std::string, std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
        std::string kv = *e;
        const auto eq = kv.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = kv.substr(0, eq);
        // Keep the parent's YUZU_* settings from leaking into the child.
        if (key.rfind("YUZU_", 0) == 0) continue;
        env[key] = kv.substr(eq + 1);
    }
    for (const auto& [k, v] : extra) env[k] = v;
    std::vector<std::string> out;
    for (const auto& [k, v] : env) out.push_back(k + "=" + v);
    return out;
}

pid_t spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
            const std::string& output_file) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output_file.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);

    // The child must not inherit a blocked signal mask from a test thread.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t empty;
    sigemptyset(&empty);
    posix_spawnattr_setsigmask(&attr, &empty);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

    std::vector<char*> cargv;
    for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
    cargv.push_back(nullptr);
    const auto env_strings = merged_environment(env);
    std::vector<char*> cenv;
    for (const auto& e : env_strings) cenv.push_back(const_cast<char*>(e.c_str()));
    cenv.push_back(nullptr);

    pid_t pid = -1;
    const int rc = posix_spawn(&pid, cargv[0], &actions, &attr, cargv.data(), cenv.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return rc == 0 ? pid : -1;
}

int decode_status(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

}  // namespace

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
    std::vector<std::string> argv = {bin_path("yuzu-server"), "--listen", "127.0.0.1:0",
                                     "--data-dir", data_dir_};
    argv.insert(argv.end(), options.args.begin(), options.args.end());
    std::filesystem::create_directories(std::filesystem::path(data_dir_).parent_path());
    pid_ = spawn(argv, options.env, data_dir_ + ".log");
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
        exit_code_ = decode_status(status);
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
    const pid_t pid = spawn(argv, env, out_file);
    if (pid <= 0) return -1;
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (output != nullptr) {
        std::ifstream in(out_file);
        std::stringstream ss;
        ss << in.rdbuf();
        *output = ss.str();
    }
    return decode_status(status);
}

}  // namespace yuzu::testing
