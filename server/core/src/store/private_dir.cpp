#include "yuzu/store/private_dir.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace yuzu::store {
namespace {

namespace fs = std::filesystem;

constexpr mode_t kPrivateMode = 0700;

std::string mode_text(mode_t mode) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
    return buf;
}

Status check_existing(const std::string& dir, const struct stat& st) {
    if (!S_ISDIR(st.st_mode)) {
        return Status::FailedPrecondition("data directory " + dir +
                                          " exists but is not a directory");
    }
    if (::access(dir.c_str(), R_OK | W_OK | X_OK) != 0) {
        return Status::FailedPrecondition(
            "data directory " + dir + " (mode " + mode_text(st.st_mode) + ", owner uid " +
            std::to_string(st.st_uid) + ") is not usable by uid " + std::to_string(::geteuid()) +
            ": " + std::strerror(errno));
    }
    if ((st.st_mode & 077) != 0) {
        // Group or others could read the stores (credentials, the audit log,
        // secrets.key) through a looser directory, whatever the files' own
        // modes: tighten it, or refuse to start.
        if (::chmod(dir.c_str(), kPrivateMode) != 0) {
            return Status::FailedPrecondition("data directory " + dir + " is mode " +
                                              mode_text(st.st_mode) +
                                              " and cannot be made 0700: " + std::strerror(errno));
        }
        spdlog::warn(
            "store: data directory {} was mode {}; made it 0700 (it holds credentials "
            "and the audit log)",
            dir, mode_text(st.st_mode));
    }
    return Status::Ok();
}

}  // namespace

Status ensure_private_dir(const std::string& dir) {
    if (dir.empty()) return Status::InvalidArgument("data directory path is empty");

    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) return check_existing(dir, st);
    if (errno != ENOENT) {
        return Status::FailedPrecondition("cannot inspect data directory " + dir + ": " +
                                          std::strerror(errno));
    }

    // "a/b/" names the directory b: drop the empty last component.
    fs::path target = fs::path(dir).lexically_normal();
    if (!target.has_filename()) target = target.parent_path();
    const fs::path parent = target.parent_path();
    if (!parent.empty()) {
        std::error_code ec;
        fs::create_directories(parent, ec);
        if (ec) {
            return Status::FailedPrecondition("cannot create " + parent.string() +
                                              " (parent of data directory " + dir +
                                              "): " + ec.message());
        }
    }
    if (::mkdir(target.c_str(), kPrivateMode) != 0) {
        if (errno == EEXIST && ::stat(dir.c_str(), &st) == 0) {
            return check_existing(dir, st);  // created concurrently
        }
        return Status::FailedPrecondition("cannot create data directory " + dir + ": " +
                                          std::strerror(errno));
    }
    // mkdir's mode is filtered by the umask; set it exactly.
    if (::chmod(target.c_str(), kPrivateMode) != 0) {
        return Status::FailedPrecondition("created data directory " + dir +
                                          " but cannot set mode 0700: " + std::strerror(errno));
    }
    return Status::Ok();
}

}  // namespace yuzu::store
