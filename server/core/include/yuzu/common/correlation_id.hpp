// Correlation ids: "req-<hex-ms>-<hex-seq>" — wall-clock milliseconds since the
// epoch and a process-wide sequence, both lowercase hex. The same format is
// used for the HTTP X-Correlation-Id header and the MCP error.data field, so a
// client can quote one handle that also appears on the server's log line.
#pragma once

#include <string>
#include <string_view>

#include "yuzu/common/clock.hpp"

namespace yuzu {

// Safe to call from any thread; never returns the same id twice in a process.
std::string next_correlation_id(const Clock& clock = SystemClock::instance());

// True when `id` has the exact shape next_correlation_id() produces.
bool is_correlation_id(std::string_view id);

}  // namespace yuzu
