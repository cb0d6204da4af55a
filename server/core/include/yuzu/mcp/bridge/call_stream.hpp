// CallStream: what a tool handler may tell its caller while it runs
// (ToolCall::stream). Progress needs the caller's _meta.progressToken and a
// bridge record; without one it is dropped. Log messages go on the call's
// streamed response when it has one, else on the session's GET stream.
//
// Used by the one thread running the call.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/mcp/session/session.hpp"

namespace yuzu::mcp {

class CallRecord;

class CallStream {
  public:
    CallStream(std::shared_ptr<Session> session, std::shared_ptr<CallRecord> record);

    // Whether progress reaches anyone (the caller sent a token).
    bool wants_progress() const { return record_ != nullptr; }
    // notifications/progress; a value that does not advance is dropped.
    void progress(double progress, std::optional<double> total, const std::string& message = "");
    // notifications/message, when the session's logging level admits it.
    void log(LogLevel level, std::string_view logger, nlohmann::json data);
    // The call dispatched these executions: progress follows them, and a
    // streamed response stays open until they complete (or its cap).
    void follow(const std::vector<std::string>& execution_ids);

  private:
    std::shared_ptr<Session> session_;
    std::shared_ptr<CallRecord> record_;
};

}  // namespace yuzu::mcp
