// What the GET channel and streamed POST responses share: credential
// re-checks and the stream-closed frame.
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <utility>

#include "mcp/transport/transport_support.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/http/authenticator.hpp"
#include "yuzu/http/sse_writer.hpp"

namespace yuzu::mcp {
namespace {

constexpr const char* kCredentialHeaders[] = {"Authorization", "X-Yuzu-Token"};

// A frame of our own: never near any cap.
const http::SseWriter kControlWriter(size_t{16} * 1024);

}  // namespace

httplib::Request credential_headers_of(const httplib::Request& req) {
    httplib::Request credential;
    for (const char* name : kCredentialHeaders) {
        const auto range = req.headers.equal_range(name);
        for (auto it = range.first; it != range.second; ++it) {
            credential.headers.emplace(it->first, it->second);
        }
    }
    return credential;
}

bool has_token_credential(const httplib::Request& credential) {
    return !credential.headers.empty();
}

CredentialCheck recheck_credential(const httplib::Request& credential,
                                   const http::CredentialResolver& resolver,
                                   const std::string& principal) {
    http::AuthFailure failure = http::AuthFailure::kNone;
    auto who = http::authenticate(credential, resolver, false, &failure);
    if (who.ok()) {
        return who->principal.username == principal ? CredentialCheck::kValid
                                                    : CredentialCheck::kInvalid;
    }
    return failure == http::AuthFailure::kUnverifiedToken ? CredentialCheck::kUnverifiable
                                                          : CredentialCheck::kInvalid;
}

void start_event_stream(httplib::Response& res, const std::string& correlation_id, const char* what,
                        std::function<bool(httplib::DataSink&)> pump,
                        std::function<bool(httplib::DataSink&)> on_fault,
                        std::function<void()> on_end) {
    res.status = 200;
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_chunked_content_provider(
        "text/event-stream",
        [correlation_id, what, pump = std::move(pump), on_fault = std::move(on_fault)](
            size_t, httplib::DataSink& sink) {
            try {
                return pump(sink);
            } catch (const std::exception& e) {
                spdlog::error("correlation_id={} mcp: {} failed: {}", correlation_id, what,
                              e.what());
            } catch (...) {
                spdlog::error("correlation_id={} mcp: {} failed", correlation_id, what);
            }
            try {
                return on_fault(sink);
            } catch (...) {
                return false;
            }
        },
        [on_end = std::move(on_end)](bool) { on_end(); });
}

std::string stream_closed_frame(CloseReason reason, const std::string& correlation_id,
                                const std::vector<std::string>& execution_ids) {
    nlohmann::json data = {{"reason", std::string(close_reason_name(reason))},
                           {"correlation_id", correlation_id},
                           {"retry_after_ms", nullptr},
                           {"remediation", std::string(close_reason_remediation(reason))}};
    if (!execution_ids.empty()) data["execution_ids"] = execution_ids;
    http::SseEvent event;
    event.event = "stream-closed";
    event.data = dump_json(data);
    return kControlWriter.frame(event).value();
}

}  // namespace yuzu::mcp
