#include "yuzu/agent/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace yuzu::agent {
namespace {

using SteadyClock = std::chrono::steady_clock;
constexpr auto kPollSlice = std::chrono::milliseconds(100);

// Closes its descriptor when it goes out of scope.
class Fd {
  public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() { reset(); }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }
    void reset() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

  private:
    int fd_ = -1;
};

std::string first_line(const std::string& text) {
    const size_t end = text.find('\n');
    std::string line = text.substr(0, end);
    constexpr size_t kMax = 200;
    if (line.size() > kMax) line = line.substr(0, kMax) + "...";
    return line;
}

// The child's environment: a known locale so output parses the same on
// every host, and the PATH (and HOME, which rpm wants) of the agent.
std::vector<std::string> child_environment() {
    std::vector<std::string> env = {"LC_ALL=C", "LANG=C", "SYSTEMD_COLORS=0"};
    const char* path = std::getenv("PATH");
    env.emplace_back(std::string("PATH=") +
                     (path ? path : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"));
    if (const char* home = std::getenv("HOME")) env.emplace_back(std::string("HOME=") + home);
    return env;
}

std::vector<char*> c_array(std::vector<std::string>& strings) {
    std::vector<char*> out;
    out.reserve(strings.size() + 1);
    for (auto& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

// Reads what is available from fd into sink (keeping at most cap bytes).
// Returns false at EOF or on error; sets *over when more than cap arrived.
bool drain(int fd, std::string& sink, size_t cap, bool* over) {
    char buf[65536];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) return errno == EINTR || errno == EAGAIN;
    if (n == 0) return false;
    const size_t room = cap > sink.size() ? cap - sink.size() : 0;
    const size_t take = std::min(room, static_cast<size_t>(n));
    sink.append(buf, take);
    if (take < static_cast<size_t>(n) && over != nullptr) *over = true;
    return true;
}

// The child leads its own process group; killing the group also ends what it started.
void kill_group(pid_t pid) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);  // in case it left the group
}

bool cancelled(const SubprocessOptions& options) {
    return options.cancel != nullptr && options.cancel->load();
}

// Waits for pid; kills its group if it outlives the deadline or cancellation.
int reap(pid_t pid, SteadyClock::time_point deadline, const SubprocessOptions& options,
         SubprocessResult& result, bool killed) {
    int status = 0;
    for (;;) {
        const pid_t r = ::waitpid(pid, &status, killed ? 0 : WNOHANG);
        if (r == pid) return status;
        if (r < 0 && errno != EINTR) return status;
        if (r == 0) {
            if (!killed && (SteadyClock::now() >= deadline || cancelled(options))) {
                if (cancelled(options)) {
                    result.cancelled = true;
                } else {
                    result.timed_out = true;
                }
                kill_group(pid);
                killed = true;
                continue;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
}

}  // namespace

std::string SubprocessResult::describe_failure() const {
    if (timed_out) return "timed out";
    if (cancelled) return "cancelled";
    if (output_truncated) return "output over the size limit";
    std::string text = term_signal != 0 ? "killed by signal " + std::to_string(term_signal)
                                        : "exited with status " + std::to_string(exit_code);
    const std::string detail = first_line(error_output);
    if (!detail.empty()) text += ": " + detail;
    return text;
}

Result<SubprocessResult> run_subprocess(const std::vector<std::string>& argv,
                                        const SubprocessOptions& options) {
    assert(!argv.empty() && "run_subprocess needs a program name");
    int out_pipe[2];
    int err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
        return Status::Internal(std::string("pipe2 failed: ") + std::strerror(errno));
    }
    Fd out_read(out_pipe[0]);
    Fd out_write(out_pipe[1]);
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
        return Status::Internal(std::string("pipe2 failed: ") + std::strerror(errno));
    }
    Fd err_read(err_pipe[0]);
    Fd err_write(err_pipe[1]);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_write.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, err_write.get(), STDERR_FILENO);

    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(
        &attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);  // the agent blocks SIGTERM/SIGINT in its threads
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int sig : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&defaults, sig);
    posix_spawnattr_setsigdefault(&attr, &defaults);

    std::vector<std::string> args(argv);
    std::vector<std::string> env = child_environment();
    auto c_args = c_array(args);
    auto c_env = c_array(env);
    pid_t pid = -1;
    const int rc = ::posix_spawnp(&pid, c_args[0], &actions, &attr, c_args.data(), c_env.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc == ENOENT || rc == EACCES || rc == ENOTDIR) {
        return Status::NotFound(argv[0] + " was not found on PATH");
    }
    if (rc != 0) {
        return Status::Internal("cannot start " + argv[0] + ": " + std::strerror(rc));
    }
    out_write.reset();
    err_write.reset();

    SubprocessResult result;
    const auto deadline = SteadyClock::now() + options.timeout;
    bool out_open = true;
    bool err_open = true;
    while ((out_open || err_open) && !result.output_truncated) {
        const auto now = SteadyClock::now();
        if (now >= deadline || cancelled(options)) break;  // reap() kills and records why
        const auto slice = std::min<SteadyClock::duration>(deadline - now, kPollSlice);
        pollfd fds[2] = {{out_open ? out_read.get() : -1, POLLIN, 0},
                         {err_open ? err_read.get() : -1, POLLIN, 0}};
        const int wait_ms =
            static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(slice).count()) +
            1;
        if (::poll(fds, 2, wait_ms) < 0 && errno != EINTR) break;
        if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            out_open = drain(out_read.get(), result.output, options.max_output_bytes,
                             &result.output_truncated);
        }
        if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
            err_open = drain(err_read.get(), result.error_output, options.max_error_bytes, nullptr);
        }
    }
    if (result.output_truncated) kill_group(pid);
    // A program that closed its output but keeps running is still bound by the deadline.
    const int status = reap(pid, deadline, options, result, result.output_truncated);
    if (WIFEXITED(status)) {
        result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        result.exit_code = -1;
        result.term_signal = WTERMSIG(status);
    }
    return result;
}

}  // namespace yuzu::agent
