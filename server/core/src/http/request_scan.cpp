#include "http/request_scan.hpp"

#include <cstring>

#include "yuzu/common/ascii.hpp"

namespace yuzu::http {
namespace {

// Whether the header line starting at `at` is named `name` (lower case).
bool header_named(std::string_view buf, size_t at, size_t end, const char* name) {
    size_t i = at;
    for (const char* p = name; *p; ++p, ++i) {
        if (i >= end || ascii_lower(buf[i]) != *p) return false;
    }
    return i < end && buf[i] == ':';
}

}  // namespace

size_t header_block_end(std::string_view buf, size_t from) {
    const size_t at = buf.find("\r\n\r\n", from);
    return at == std::string_view::npos ? std::string_view::npos : at + 4;
}

bool body_arrived(std::string_view buf, size_t end) {
    bool has_length = false;
    unsigned long long length = 0;
    for (size_t line = buf.find('\n'); line != std::string_view::npos && line + 1 < end;
         line = buf.find('\n', line + 1)) {
        const size_t at = line + 1;
        if (header_named(buf, at, end, "transfer-encoding")) return false;
        if (!header_named(buf, at, end, "content-length")) continue;
        if (has_length) return false;  // duplicates: left to the framing checks
        has_length = true;
        size_t i = at + std::strlen("content-length") + 1;
        while (i < end && (buf[i] == ' ' || buf[i] == '\t')) ++i;
        int digits = 0;
        while (i < end && buf[i] >= '0' && buf[i] <= '9') {
            if (++digits > 18) return false;
            length = length * 10 + static_cast<unsigned long long>(buf[i] - '0');
            ++i;
        }
        while (i < end && (buf[i] == ' ' || buf[i] == '\t')) ++i;
        if (digits == 0 || i >= end || buf[i] != '\r') return false;
    }
    return static_cast<unsigned long long>(buf.size() - end) >= length;
}

}  // namespace yuzu::http
