#include "yuzu/logging/stderr_logging.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace yuzu::logging {
namespace {

std::string iso8601_utc(long long epoch_ms) {
    const std::time_t secs = static_cast<std::time_t>(epoch_ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char date[40];
    const size_t n = std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    char out[48];
    std::snprintf(out, sizeof out, "%.*s.%03lldZ", static_cast<int>(n), date, epoch_ms % 1000);
    return out;
}

// A "key=value" word of a log message: key is [a-z][a-z0-9_]* (at most 32
// bytes), the value is non-empty. Returns the value and sets `key`; the
// names ts, level and msg are the line's own and never lifted.
std::optional<std::string_view> log_field(std::string_view token, std::string& key) {
    const size_t eq = token.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq > 32 || eq + 1 >= token.size()) {
        return std::nullopt;
    }
    if (token[0] < 'a' || token[0] > 'z') return std::nullopt;
    for (size_t i = 1; i < eq; ++i) {
        const char c = token[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return std::nullopt;
    }
    key.assign(token.substr(0, eq));
    if (key == "ts" || key == "level" || key == "msg") return std::nullopt;
    return token.substr(eq + 1);
}

// A field's JSON value: a number when the text is exactly a plain decimal
// number (status=200, ms=1.25), else the text.
nlohmann::json field_value(std::string_view text) {
    const bool plain = text.size() <= 24 &&
                       text.find_first_not_of("0123456789.-") == std::string_view::npos &&
                       std::isdigit(static_cast<unsigned char>(text.back())) != 0;
    if (plain) {
        int64_t whole = 0;
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), whole);
        if (ec == std::errc() && p == text.data() + text.size()) return whole;
        double real = 0;
        auto [q, ec2] = std::from_chars(text.data(), text.data() + text.size(), real);
        if (ec2 == std::errc() && q == text.data() + text.size()) return real;
    }
    return std::string(text);
}

class JsonLineFormatter final : public spdlog::formatter {
  public:
    void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
        const long long ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(msg.time.time_since_epoch())
                .count();
        const auto level = spdlog::level::to_string_view(msg.level);
        std::string line =
            format_json_log_line(ms, std::string(level.data(), level.size()),
                                 std::string(msg.payload.data(), msg.payload.size()));
        line.push_back('\n');
        dest.append(line.data(), line.data() + line.size());
    }
    std::unique_ptr<spdlog::formatter> clone() const override {
        return std::make_unique<JsonLineFormatter>();
    }
};

}  // namespace

std::string format_json_log_line(long long epoch_ms, const std::string& level,
                                 const std::string& message) {
    nlohmann::json line = {{"ts", iso8601_utc(epoch_ms)}, {"level", level}};
    // Words that are not fields keep their order and spacing.
    std::string rest;
    bool first = true;
    size_t pos = 0;
    while (pos <= message.size()) {
        size_t end = message.find(' ', pos);
        if (end == std::string::npos) end = message.size();
        const std::string_view token(message.data() + pos, end - pos);
        std::string key;
        if (auto value = log_field(token, key); value && !line.contains(key)) {
            line[key] = field_value(*value);
        } else {
            if (!first) rest.push_back(' ');
            rest.append(token);
            first = false;
        }
        pos = end + 1;
    }
    line["msg"] = rest;
    // Log lines carry whatever a peer sent; invalid UTF-8 must not throw.
    return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Status configure_stderr_logging(const std::string& logger_name, const std::string& level,
                                const std::string& format) {
    const auto parsed = spdlog::level::from_str(level);
    // from_str maps unknown names to "off"; only "off" itself may mean off.
    if (parsed == spdlog::level::off && level != "off") {
        return Status::InvalidArgument(
            "log level must be trace, debug, info, warn, error, critical or off, not '" + level +
            "'");
    }
    if (format != "text" && format != "json") {
        return Status::InvalidArgument("log format must be text or json, not '" + format + "'");
    }
    auto logger = spdlog::get(logger_name);
    if (!logger) logger = spdlog::stderr_logger_mt(logger_name);
    if (format == "json") {
        logger->set_formatter(std::make_unique<JsonLineFormatter>());
    } else {
        logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);
    }
    logger->set_level(parsed);
    logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(logger);
    return Status::Ok();
}

}  // namespace yuzu::logging
