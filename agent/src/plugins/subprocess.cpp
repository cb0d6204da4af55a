#include "plugins/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <thread>

namespace yuzu::agent::plugins {
namespace {

using Clock = std::chrono::steady_clock;

// The child sees only this environment: no inherited secrets, a fixed PATH,
// the C locale (stable output to parse), no pagers or colour.
constexpr std::array<const char*, 6> kChildEnv = {
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LANG=C",
    "LC_ALL=C",
    "SYSTEMD_PAGER=",
    "SYSTEMD_COLORS=0",
    nullptr,
};

class Pipe {
  public:
    Pipe() {
        if (::pipe2(fds_.data(), O_CLOEXEC) != 0) fds_ = {-1, -1};
    }
    ~Pipe() {
        close_read();
        close_write();
    }
    Pipe(const Pipe&) = delete;
    Pipe& operator=(const Pipe&) = delete;
    bool ok() const { return fds_[0] >= 0; }
    int read_fd() const { return fds_[0]; }
    int write_fd() const { return fds_[1]; }
    void close_read() { close_fd(fds_[0]); }
    void close_write() { close_fd(fds_[1]); }

  private:
    static void close_fd(int& fd) {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
    std::array<int, 2> fds_{};
};

// Owns the spawn attribute/file-action objects for one spawn.
class SpawnSetup {
  public:
    SpawnSetup() {
        ::posix_spawn_file_actions_init(&actions_);
        ::posix_spawnattr_init(&attr_);
    }
    ~SpawnSetup() {
        ::posix_spawn_file_actions_destroy(&actions_);
        ::posix_spawnattr_destroy(&attr_);
    }
    SpawnSetup(const SpawnSetup&) = delete;
    SpawnSetup& operator=(const SpawnSetup&) = delete;
    posix_spawn_file_actions_t* actions() { return &actions_; }
    posix_spawnattr_t* attr() { return &attr_; }

  private:
    posix_spawn_file_actions_t actions_{};
    posix_spawnattr_t attr_{};
};

int spawn_child(const std::vector<std::string>& argv, const Pipe& out, const Pipe& err,
                pid_t* pid) {
    SpawnSetup setup;
    int rc =
        ::posix_spawn_file_actions_addopen(setup.actions(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (rc == 0) rc = ::posix_spawn_file_actions_adddup2(setup.actions(), out.write_fd(), 1);
    if (rc == 0) rc = ::posix_spawn_file_actions_adddup2(setup.actions(), err.write_fd(), 2);
    // Own process group so the deadline kill reaches grandchildren too;
    // default signal dispositions and an empty mask whatever the agent set.
    sigset_t none;
    sigset_t all;
    sigemptyset(&none);
    sigfillset(&all);
    if (rc == 0) {
        rc = ::posix_spawnattr_setflags(
            setup.attr(), POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    }
    if (rc == 0) rc = ::posix_spawnattr_setpgroup(setup.attr(), 0);
    if (rc == 0) rc = ::posix_spawnattr_setsigmask(setup.attr(), &none);
    if (rc == 0) rc = ::posix_spawnattr_setsigdefault(setup.attr(), &all);
    if (rc != 0) return rc;
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    return ::posix_spawn(pid, argv[0].c_str(), setup.actions(), setup.attr(), args.data(),
                         const_cast<char* const*>(kChildEnv.data()));
}

void kill_group(pid_t pid) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
}

// Reaps the child; after kill_group this returns promptly.
void reap(pid_t pid, CommandResult& result) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return;
    }
    if (WIFEXITED(status)) {
        result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        result.exit_code = -1;
        result.signal = WTERMSIG(status);
    }
}

// Waits for the child to exit by itself until the deadline; true if it did.
bool wait_until(pid_t pid, Clock::time_point deadline, CommandResult& result) {
    for (;;) {
        int status = 0;
        const pid_t r = ::waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            if (WIFEXITED(status)) {
                result.exit_code = WEXITSTATUS(status);
            } else if (WIFSIGNALED(status)) {
                result.exit_code = -1;
                result.signal = WTERMSIG(status);
            }
            return true;
        }
        if (r < 0 && errno != EINTR) return true;  // nothing left to wait for
        if (Clock::now() >= deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

}  // namespace

Result<CommandResult> run_command(const std::vector<std::string>& argv,
                                  std::chrono::milliseconds timeout, size_t max_output_bytes) {
    assert(!argv.empty() && !argv[0].empty() && argv[0].front() == '/');
    Pipe out;
    Pipe err;
    if (!out.ok() || !err.ok()) return Status::Internal("cannot create pipes");
    pid_t pid = -1;
    const int rc = spawn_child(argv, out, err, &pid);
    if (rc != 0) {
        return Status::Unavailable("cannot run " + argv[0] + ": " + std::strerror(rc));
    }
    out.close_write();
    err.close_write();

    const auto deadline = Clock::now() + timeout;
    CommandResult result;
    std::array<pollfd, 2> fds = {pollfd{out.read_fd(), POLLIN, 0},
                                 pollfd{err.read_fd(), POLLIN, 0}};
    std::array<std::string*, 2> sinks = {&result.out, &result.err};
    std::array<char, 16 * 1024> buf{};
    int open_fds = 2;
    while (open_fds > 0) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            result.timed_out = true;
            break;
        }
        // Wake at least once a second so a very long timeout cannot overflow poll's int.
        const auto wait_ms = std::min<int64_t>(left.count() + 1, 1000);
        const int ready = ::poll(fds.data(), fds.size(), static_cast<int>(wait_ms));
        if (ready < 0 && errno != EINTR) break;
        for (size_t i = 0; i < fds.size() && ready > 0; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0) continue;
            const ssize_t n = ::read(fds[i].fd, buf.data(), buf.size());
            if (n > 0) {
                sinks[i]->append(buf.data(), static_cast<size_t>(n));
            } else if (n == 0 || errno != EINTR) {
                fds[i].fd = -1;
                --open_fds;
            }
        }
        if (result.out.size() + result.err.size() > max_output_bytes) {
            result.output_capped = true;
            break;
        }
    }
    if (result.timed_out || result.output_capped) {
        kill_group(pid);
        reap(pid, result);
        return result;
    }
    // Both pipes closed; the child normally exits right away, but it may
    // have closed them and kept running.
    if (!wait_until(pid, deadline, result)) {
        result.timed_out = true;
        kill_group(pid);
        reap(pid, result);
    }
    return result;
}

}  // namespace yuzu::agent::plugins
