#include "inventory/text_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>

namespace yuzu::agent {

Result<std::string> read_text_file(const std::string& path, size_t max_bytes) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        if (err == ENOENT || err == ENOTDIR) return Status::NotFound(path + " does not exist");
        return Status::Unavailable("cannot open " + path + ": " + std::strerror(err));
    }
    std::string text;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            const int err = errno;
            ::close(fd);
            return Status::Unavailable("cannot read " + path + ": " + std::strerror(err));
        }
        if (n == 0) break;
        if (text.size() + static_cast<size_t>(n) > max_bytes) {
            ::close(fd);
            return Status::PayloadTooLarge(path + " is over " + std::to_string(max_bytes) +
                                           " bytes");
        }
        text.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return text;
}

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
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

std::string_view trim(std::string_view s) {
    constexpr std::string_view kSpace = " \t\r\n";
    const size_t first = s.find_first_not_of(kSpace);
    if (first == std::string_view::npos) return {};
    const size_t last = s.find_last_not_of(kSpace);
    return s.substr(first, last - first + 1);
}

std::optional<uint64_t> parse_u64(std::string_view s, int base) {
    uint64_t v = 0;
    const auto* end = s.data() + s.size();
    const auto r = std::from_chars(s.data(), end, v, base);
    if (s.empty() || r.ec != std::errc() || r.ptr != end) return std::nullopt;
    return v;
}

std::optional<int64_t> parse_i64(std::string_view s) {
    int64_t v = 0;
    const auto* end = s.data() + s.size();
    const auto r = std::from_chars(s.data(), end, v);
    if (s.empty() || r.ec != std::errc() || r.ptr != end) return std::nullopt;
    return v;
}

std::optional<double> parse_double(std::string_view s) {
    double v = 0;
    const auto* end = s.data() + s.size();
    const auto r = std::from_chars(s.data(), end, v);
    if (s.empty() || r.ec != std::errc() || r.ptr != end || !std::isfinite(v)) return std::nullopt;
    return v;
}

double round1(double v) {
    return std::round(v * 10.0) / 10.0;
}

}  // namespace yuzu::agent
