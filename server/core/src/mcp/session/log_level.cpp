// The RFC 5424 level names of MCP logging, apart from the session so the
// 2026 _meta parser (and its fuzz target) need nothing else of it.
#include <array>
#include <string_view>

#include "yuzu/mcp/session/session.hpp"

namespace yuzu::mcp {
namespace {

constexpr std::array<std::string_view, 8> kLogLevelNames = {
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};

}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view name) {
    for (size_t i = 0; i < kLogLevelNames.size(); ++i) {
        if (kLogLevelNames[i] == name) return static_cast<LogLevel>(i);
    }
    return std::nullopt;
}

std::string_view log_level_name(LogLevel level) {
    return kLogLevelNames[static_cast<size_t>(level)];
}

}  // namespace yuzu::mcp
