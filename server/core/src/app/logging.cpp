#include "yuzu/app/logging.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>

namespace yuzu::app {
namespace {

std::string iso8601_utc(long long epoch_ms) {
    const std::time_t secs = static_cast<std::time_t>(epoch_ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[40];
    const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char out[48];
    std::snprintf(out, sizeof out, "%.*s.%03lldZ", static_cast<int>(n), buf, epoch_ms % 1000);
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
    return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void configure_logging(const std::string& level, const std::string& format) {
    auto logger = spdlog::stderr_logger_mt("yuzu");
    if (format == "json") {
        logger->set_formatter(std::make_unique<JsonLineFormatter>());
    } else {
        logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);
    }
    logger->set_level(spdlog::level::from_str(level));
    logger->flush_on(spdlog::level::info);
    spdlog::set_default_logger(logger);
}

}  // namespace yuzu::app
