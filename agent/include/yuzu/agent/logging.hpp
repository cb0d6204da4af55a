// The agent's log: spdlog to stderr, as text lines or one JSON object per
// line ({"ts", "level", "msg"}) for log shippers.
//
// Thread-safety: call configure_agent_logging once, before other threads log.
#pragma once

#include <string>

#include "yuzu/common/status.hpp"

namespace yuzu::agent {

// level: trace, debug, info, warn, error, critical or off; format: text or
// json. InvalidArgument names the bad value.
Status configure_agent_logging(const std::string& level, const std::string& format);

// One JSON log line (without the newline); exposed for tests.
std::string format_agent_json_log_line(long long epoch_ms, const std::string& level,
                                       const std::string& message);

}  // namespace yuzu::agent
