#include "yuzu/mcp/session/session_log.hpp"

#include <string>

#include "yuzu/common/json_text.hpp"
#include "yuzu/mcp/session/stream_metrics.hpp"
#include "yuzu/metrics/counter.hpp"

namespace yuzu::mcp {
namespace {

// What a shortened string field keeps; the marker says it was cut.
constexpr size_t kShortenedFieldBytes = 512;
constexpr char kShortenedMarker[] = " [truncated]";

// Cuts at a UTF-8 boundary: never inside a multi-byte sequence.
std::string shorten_utf8(const std::string& text, size_t max) {
    if (text.size() <= max) return text;
    size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return text.substr(0, cut) + kShortenedMarker;
}

}  // namespace

std::string log_message_json(LogLevel level, std::string_view logger, const nlohmann::json& data) {
    const nlohmann::json message = {
        {"jsonrpc", "2.0"},
        {"method", "notifications/message"},
        {"params",
         {{"level", std::string(log_level_name(level))}, {"logger", logger}, {"data", data}}}};
    return dump_json(message);
}

void publish_log(Session& session, LogLevel level, std::string_view logger, nlohmann::json data) {
    if (!session.wants_log(level)) return;
    const StreamMetrics* metrics = session.metrics();
    try {
        Status published = session.publish(log_message_json(level, logger, data));
        if (published.code() == StatusCode::kResourceExhausted) {
            if (metrics) metrics->frames_too_large.Increment();
            if (data.is_object()) {
                for (auto& [key, value] : data.items()) {
                    if (value.is_string()) {
                        value = shorten_utf8(value.get<std::string>(), kShortenedFieldBytes);
                    } else if (!value.is_number() && !value.is_boolean() && !value.is_null()) {
                        value = "[omitted: too large]";
                    }
                }
            } else {
                data = "[omitted: too large]";
            }
            published = session.publish(log_message_json(level, logger, data));
        }
        // A closed session refuses quietly: nobody is left to read it.
        if (!published.ok() && published.code() != StatusCode::kFailedPrecondition && metrics) {
            metrics->publish_failures.Increment();
        }
    } catch (const std::exception&) {
        // An allocation failure while formatting: the frame was never
        // committed, so no event id was used.
        if (metrics) metrics->publish_failures.Increment();
    }
}

}  // namespace yuzu::mcp
