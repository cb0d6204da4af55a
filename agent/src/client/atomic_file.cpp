#include "client/atomic_file.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace yuzu::agent {
namespace {

namespace fs = std::filesystem;

std::string errno_text() {
    return std::strerror(errno);
}

Status write_all(int fd, std::string_view data, const std::string& path) {
    size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return Status::Unavailable("cannot write " + path + ": " + errno_text());
        }
        done += static_cast<size_t>(n);
    }
    return Status::Ok();
}

}  // namespace

Status write_file_atomically(const fs::path& path, std::string_view data, mode_t mode) {
    std::string tmp = path.string() + ".tmp-XXXXXX";
    const int fd = ::mkstemp(tmp.data());  // created 0600
    if (fd < 0) {
        return Status::Unavailable("cannot create a file beside " + path.string() + ": " +
                                   errno_text());
    }
    Status status = write_all(fd, data, tmp);
    if (status.ok() && ::fchmod(fd, mode) != 0) {
        status = Status::Unavailable("cannot chmod " + tmp + ": " + errno_text());
    }
    if (status.ok() && ::fsync(fd) != 0) {
        status = Status::Unavailable("cannot fsync " + tmp + ": " + errno_text());
    }
    ::close(fd);
    if (status.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) {
        status = Status::Unavailable("cannot rename " + tmp + " to " + path.string() + ": " +
                                     errno_text());
    }
    if (!status.ok()) {
        ::unlink(tmp.c_str());
        return status;
    }
    return sync_directory(path.parent_path());
}

Status sync_directory(const fs::path& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return Status::Unavailable("cannot open " + dir.string() + ": " + errno_text());
    const bool synced = ::fsync(fd) == 0;
    const std::string why = synced ? std::string() : errno_text();
    ::close(fd);
    if (!synced) return Status::Unavailable("cannot fsync " + dir.string() + ": " + why);
    return Status::Ok();
}

}  // namespace yuzu::agent
