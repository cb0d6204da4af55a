#include "yuzu/logging/stderr_logging.hpp"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <string>

namespace yuzu::logging {
namespace {

TEST(JsonLogLine, EscapesAndLiftsTheCorrelationIdOutOfTheMessage) {
    const std::string line =
        format_json_log_line(0, "info", "correlation_id=req-1-2 GET /x \"quoted\"\n");
    EXPECT_EQ(
        line,
        R"({"correlation_id":"req-1-2","level":"info","msg":"GET /x \"quoted\"\n","ts":"1970-01-01T00:00:00.000Z"})");
}

TEST(JsonLogLine, AccessLogWordsBecomeTypedFields) {
    const auto line = nlohmann::json::parse(format_json_log_line(
        0, "info",
        "http request correlation_id=req-9 listener=management method=GET path=/livez "
        "status=200 route=/livez ms=0.42 peer=127.0.0.1"));
    EXPECT_EQ(line["msg"], "http request");
    EXPECT_EQ(line["correlation_id"], "req-9");
    EXPECT_EQ(line["listener"], "management");
    EXPECT_EQ(line["method"], "GET");
    EXPECT_EQ(line["path"], "/livez");
    EXPECT_EQ(line["status"], 200);
    EXPECT_TRUE(line["status"].is_number_integer());
    EXPECT_DOUBLE_EQ(line["ms"].get<double>(), 0.42);
    EXPECT_EQ(line["peer"], "127.0.0.1");  // not a number, though digits and dots
}

TEST(JsonLogLine, OnlyWellFormedWordsAreLiftedAndTheLinesOwnKeysStayPut) {
    const auto line = nlohmann::json::parse(
        format_json_log_line(0, "warn", "level=fake msg=x Key=up a= =b x=1 x=2 9z=3  tail"));
    EXPECT_EQ(line["level"], "warn");
    EXPECT_EQ(line["x"], 1);  // the first occurrence wins
    EXPECT_EQ(line["msg"], "level=fake msg=x Key=up a= =b x=2 9z=3  tail");
    EXPECT_FALSE(line.contains("Key"));
    EXPECT_FALSE(line.contains("9z"));
}

TEST(JsonLogLine, MillisecondsAndNoCorrelationId) {
    const auto line = nlohmann::json::parse(format_json_log_line(1764460800123, "warn", "hello"));
    EXPECT_EQ(line["ts"], "2025-11-30T00:00:00.123Z");
    EXPECT_EQ(line["level"], "warn");
    EXPECT_EQ(line["msg"], "hello");
    EXPECT_FALSE(line.contains("correlation_id"));
}

TEST(JsonLogLine, InvalidUtf8IsReplacedNotThrown) {
    const std::string line = format_json_log_line(0, "info", std::string("bad \xff byte"));
    const auto parsed = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    ASSERT_FALSE(parsed.is_discarded()) << line;
    EXPECT_EQ(parsed["msg"], "bad \xef\xbf\xbd byte");
}

TEST(ConfigureStderrLogging, RefusesBadSettingsAndKeepsTheLogger) {
    ASSERT_TRUE(configure_stderr_logging("yuzu-test", "warn", "text").ok());
    const Status level = configure_stderr_logging("yuzu-test", "loud", "text");
    EXPECT_EQ(level.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(level.message().find("'loud'"), std::string::npos);
    const Status format = configure_stderr_logging("yuzu-test", "info", "xml");
    EXPECT_EQ(format.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(format.message().find("'xml'"), std::string::npos);
    EXPECT_EQ(spdlog::default_logger()->level(), spdlog::level::warn);
}

TEST(ConfigureStderrLogging, ASecondCallReconfiguresTheSameLogger) {
    ASSERT_TRUE(configure_stderr_logging("yuzu-test-2", "warn", "text").ok());
    ASSERT_TRUE(configure_stderr_logging("yuzu-test-2", "debug", "json").ok());
    EXPECT_EQ(spdlog::default_logger()->name(), "yuzu-test-2");
    EXPECT_EQ(spdlog::default_logger()->level(), spdlog::level::debug);
    ASSERT_TRUE(configure_stderr_logging("yuzu-test-2", "off", "text").ok());
    EXPECT_EQ(spdlog::default_logger()->level(), spdlog::level::off);
}

}  // namespace
}  // namespace yuzu::logging
