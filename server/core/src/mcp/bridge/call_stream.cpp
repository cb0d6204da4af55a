#include "yuzu/mcp/bridge/call_stream.hpp"

#include <utility>

#include "yuzu/common/json_text.hpp"
#include "yuzu/mcp/bridge/progress_bridge.hpp"
#include "yuzu/mcp/session/session_log.hpp"

namespace yuzu::mcp {

CallStream::CallStream(std::shared_ptr<Session> session, std::shared_ptr<CallRecord> record)
    : session_(std::move(session)), record_(std::move(record)) {}

void CallStream::progress(double progress, std::optional<double> total,
                          const std::string& message) {
    if (record_) record_->bridge().report(*record_, progress, total, message);
}

void CallStream::log(LogLevel level, std::string_view logger, nlohmann::json data) {
    if (!session_) return;
    if (record_ && record_->streamed()) {
        if (!session_->wants_log(level)) return;
        record_->bridge().deliver_log(*record_, log_message_json(level, logger, data));
        return;
    }
    publish_log(*session_, level, logger, std::move(data));
}

void CallStream::follow(const std::vector<std::string>& execution_ids) {
    if (record_) record_->bridge().follow(*record_, execution_ids);
}

}  // namespace yuzu::mcp
