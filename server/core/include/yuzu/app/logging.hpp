// Process-wide spdlog set-up: a stderr sink in text or JSON-lines form.
#pragma once

#include <string>

namespace yuzu::app {

// `level` and `format` are already validated (validate_config). Call once,
// before any other thread logs.
void configure_logging(const std::string& level, const std::string& format);

// One log line as a JSON object: {"ts","level","msg"} plus "correlation_id"
// when the message carries "correlation_id=<id>". Exposed for tests.
std::string format_json_log_line(long long epoch_ms, const std::string& level,
                                 const std::string& message);

}  // namespace yuzu::app
