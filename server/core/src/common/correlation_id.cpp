#include "yuzu/common/correlation_id.hpp"

#include <atomic>
#include <cstdio>

namespace yuzu {
namespace {

std::atomic<uint64_t> g_sequence{0};

bool is_lower_hex(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

}  // namespace

std::string next_correlation_id(const Clock& clock) {
    const uint64_t seq = g_sequence.fetch_add(1, std::memory_order_relaxed);
    char buf[64];
    const int n = std::snprintf(buf, sizeof buf, "req-%llx-%llx",
                                static_cast<unsigned long long>(clock.now_ms()),
                                static_cast<unsigned long long>(seq));
    return std::string(buf, static_cast<size_t>(n));
}

bool is_correlation_id(std::string_view id) {
    if (id.substr(0, 4) != "req-") return false;
    id.remove_prefix(4);
    const auto dash = id.find('-');
    if (dash == std::string_view::npos) return false;
    return is_lower_hex(id.substr(0, dash)) && is_lower_hex(id.substr(dash + 1));
}

}  // namespace yuzu
