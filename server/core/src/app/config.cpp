#include "yuzu/app/config.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <thread>

namespace yuzu::app {

std::string ListenAddress::to_string() const {
    if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
    return host + ":" + std::to_string(port);
}

int ServerConfig::effective_worker_threads() const {
    if (http_worker_threads > 0) return http_worker_threads;
    // A worker is held for a whole request, including a held-open stream
    // and a slowly arriving upload (idle connections wait in the listener's
    // poller instead), so the derived pool holds every stream the cap
    // allows plus a reserve, and is never smaller than a core-sized pool.
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const int core_sized = static_cast<int>(std::max(16u, cores * 8u));
    return std::max(core_sized, max_sse_streams + kWorkerReserve);
}

int ServerConfig::effective_max_streams() const {
    const int workers = effective_worker_threads();
    // A small explicit pool keeps half of itself for short requests.
    const int reserve = std::min(kWorkerReserve, workers / 2);
    return std::max(1, std::min(max_sse_streams, workers - reserve));
}

Result<ListenAddress> parse_listen_address(const std::string& text) {
    std::string host;
    std::string port_text;
    if (!text.empty() && text.front() == '[') {
        const auto close = text.find(']');
        if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
            return Status::InvalidArgument("listen address '" + text +
                                           "' must look like [v6-address]:port");
        }
        host = text.substr(1, close - 1);
        port_text = text.substr(close + 2);
    } else {
        const auto colon = text.rfind(':');
        if (colon == std::string::npos || colon == 0) {
            return Status::InvalidArgument("listen address '" + text +
                                           "' must look like host:port, e.g. 127.0.0.1:8080");
        }
        host = text.substr(0, colon);
        port_text = text.substr(colon + 1);
        if (host.find(':') != std::string::npos) {
            return Status::InvalidArgument("IPv6 listen address '" + text +
                                           "' must be bracketed, e.g. [::1]:8080");
        }
    }
    int port = -1;
    const auto* end = port_text.data() + port_text.size();
    auto [ptr, ec] = std::from_chars(port_text.data(), end, port);
    if (port_text.empty() || ec != std::errc() || ptr != end || port < 0 || port > 65535) {
        return Status::InvalidArgument("listen port '" + port_text +
                                       "' must be a number from 0 to 65535");
    }
    if (host.empty()) return Status::InvalidArgument("listen address '" + text + "' has no host");
    return ListenAddress{host, port};
}

Result<size_t> parse_byte_size(const std::string& text) {
    size_t i = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i == 0) {
        return Status::InvalidArgument("size '" + text + "' must start with a number, e.g. 4MiB");
    }
    unsigned long long value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + i, value);
    (void)ptr;
    if (ec != std::errc()) return Status::InvalidArgument("size '" + text + "' is too large");
    std::string unit = text.substr(i);
    std::transform(unit.begin(), unit.end(), unit.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    unsigned long long mult = 0;
    if (unit.empty() || unit == "b")
        mult = 1;
    else if (unit == "kib" || unit == "k")
        mult = 1024ULL;
    else if (unit == "mib" || unit == "m")
        mult = 1024ULL * 1024;
    else if (unit == "gib" || unit == "g")
        mult = 1024ULL * 1024 * 1024;
    else if (unit == "kb")
        mult = 1000ULL;
    else if (unit == "mb")
        mult = 1000ULL * 1000;
    else if (unit == "gb")
        mult = 1000ULL * 1000 * 1000;
    else {
        return Status::InvalidArgument("size '" + text +
                                       "' has an unknown unit; use B, KiB, MiB, GiB, KB, MB or GB");
    }
    if (value > (~0ULL) / mult) return Status::InvalidArgument("size '" + text + "' is too large");
    return static_cast<size_t>(value * mult);
}

}  // namespace yuzu::app
