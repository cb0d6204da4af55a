#include "plugins/host_read.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <vector>

namespace yuzu::agent::plugins {
namespace {

// Closes a descriptor on every return path.
class FdCloser {
  public:
    explicit FdCloser(int fd) : fd_(fd) {}
    ~FdCloser() {
        if (fd_ >= 0) ::close(fd_);
    }
    FdCloser(const FdCloser&) = delete;
    FdCloser& operator=(const FdCloser&) = delete;

  private:
    int fd_;
};

std::string unquote(std::string_view value) {
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
        value = value.substr(1, value.size() - 2);
    }
    std::string out;
    out.reserve(value.size());
    for (size_t i = 0; i < value.size(); ++i) {
        if (value[i] == '\\' && i + 1 < value.size()) ++i;
        out.push_back(value[i]);
    }
    return out;
}

std::string decode_octal_escapes(std::string_view field) {
    std::string out;
    out.reserve(field.size());
    for (size_t i = 0; i < field.size(); ++i) {
        if (field[i] == '\\' && i + 3 < field.size()) {
            const std::string_view digits = field.substr(i + 1, 3);
            if (digits.find_first_not_of("01234567") == std::string::npos) {
                out.push_back(static_cast<char>(((digits[0] - '0') << 6) |
                                                ((digits[1] - '0') << 3) | (digits[2] - '0')));
                i += 3;
                continue;
            }
        }
        out.push_back(field[i]);
    }
    return out;
}

}  // namespace

Result<std::string> read_host_file(const std::string& path, size_t max_bytes) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        const int err = errno;
        if (err == ENOENT || err == ENOTDIR) return Status::NotFound(path + " does not exist");
        return Status::Unavailable("cannot open " + path + ": " + std::strerror(err));
    }
    FdCloser closer(fd);
    std::string data;
    std::vector<char> buf(64 * 1024);
    for (;;) {
        const ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            if (err == ESRCH) return Status::NotFound(path + " vanished while reading");
            return Status::Unavailable("cannot read " + path + ": " + std::strerror(err));
        }
        if (n == 0) break;
        if (data.size() + static_cast<size_t>(n) > max_bytes) {
            return Status::ResourceExhausted(path + " exceeds " + std::to_string(max_bytes) +
                                             " bytes");
        }
        data.append(buf.data(), static_cast<size_t>(n));
    }
    return data;
}

std::map<std::string, std::string> parse_os_release(std::string_view text) {
    std::map<std::string, std::string> out;
    for (const auto line : split_lines(text)) {
        const auto trimmed = trim(line);
        if (trimmed.empty() || trimmed.front() == '#') continue;
        const auto eq = trimmed.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;
        out[std::string(trimmed.substr(0, eq))] = unquote(trimmed.substr(eq + 1));
    }
    return out;
}

std::optional<std::string> find_executable(const HostPaths& paths, std::string_view name) {
    for (const auto& dir : paths.exec_dirs) {
        std::string candidate = dir + "/" + std::string(name);
        struct stat st {};
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
            ::access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
    }
    return std::nullopt;
}

std::string user_name(uid_t uid) {
    std::vector<char> buf(16 * 1024);
    struct passwd pw {};
    struct passwd* found = nullptr;
    if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr &&
        found->pw_name != nullptr) {
        return found->pw_name;
    }
    return std::to_string(uid);
}

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

std::vector<std::string_view> split_fields(std::string_view line) {
    std::vector<std::string_view> fields;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (i > start) fields.push_back(line.substr(start, i - start));
    }
    return fields;
}

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

std::optional<uint64_t> parse_u64(std::string_view text) {
    uint64_t value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

std::vector<MountEntry> parse_mounts(std::string_view text) {
    std::vector<MountEntry> mounts;
    for (const auto line : split_lines(text)) {
        const auto fields = split_fields(line);
        if (fields.size() < 3) continue;
        mounts.push_back(MountEntry{decode_octal_escapes(fields[0]),
                                    decode_octal_escapes(fields[1]), std::string(fields[2])});
    }
    return mounts;
}

}  // namespace yuzu::agent::plugins
