// Process-wide spdlog set-up shared by yuzu-server and yuzu-agent: one stderr
// logger, as text lines or as one JSON object per line for log shippers.
//
// Thread-safety: call configure_stderr_logging before other threads log; a
// second call replaces the default logger (used when a command switches from
// its early settings to the configured ones).
#pragma once

#include <string>

#include "yuzu/common/status.hpp"

namespace yuzu::logging {

// level: trace, debug, info, warn, error, critical or off; format: text or
// json. InvalidArgument names the bad value and changes nothing.
Status configure_stderr_logging(const std::string& logger_name, const std::string& level,
                                const std::string& format);

// One JSON log line without the newline: {"ts", "level", "msg"} plus one
// field per "key=value" word of the message (key [a-z][a-z0-9_]*, first
// occurrence wins; plain decimal numbers become JSON numbers). Those words
// leave "msg", which keeps the rest: "correlation_id=req-1 listener=agent
// enrolled" gives {"correlation_id":"req-1","listener":"agent","msg":"enrolled"}.
std::string format_json_log_line(long long epoch_ms, const std::string& level,
                                 const std::string& message);

}  // namespace yuzu::logging
