#include "yuzu/logging/stderr_logging.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
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
    nlohmann::json line = {{"ts", iso8601_utc(epoch_ms)}, {"level", level}, {"msg", message}};
    constexpr std::string_view kKey = "correlation_id=";
    if (const auto pos = message.find(kKey); pos != std::string::npos) {
        const auto start = pos + kKey.size();
        const auto end = message.find(' ', start);
        line["correlation_id"] =
            message.substr(start, end == std::string::npos ? end : end - start);
    }
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
