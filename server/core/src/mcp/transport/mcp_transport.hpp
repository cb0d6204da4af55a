// McpTransport: the Streamable HTTP binding's request handlers. One per
// listener, built by register_mcp_routes(); its handlers run on the
// listener's workers and share nothing mutable but the session registry
// and the stream budget (both thread-safe).
#pragma once

#include <httplib.h>

#include <memory>
#include <optional>
#include <string>

#include "yuzu/http/host_policy.hpp"
#include "yuzu/mcp/http_transport.hpp"

namespace yuzu::http {
class CredentialResolver;
class StreamBudget;
struct Authenticated;
}  // namespace yuzu::http

namespace yuzu::mcp {

class McpServer;
class Session;
struct CallContext;
struct McpSettings;
struct RequestInfo;
struct RequestMeta;
struct RpcMessage;

class McpTransport {
  public:
    McpTransport(const McpServer& mcp, const McpSettings& settings,
                 const http::CredentialResolver& resolver, TransportOptions options,
                 http::StreamBudget& budget);

    void post(const httplib::Request& req, httplib::Response& res) const;
    // The session's server→client stream (get_channel.cpp).
    void get(const httplib::Request& req, httplib::Response& res) const;
    void del(const httplib::Request& req, httplib::Response& res) const;
    void preflight(const httplib::Request& req, httplib::Response& res) const;

  private:
    bool streaming() const { return options_.sessions != nullptr; }
    // --mcp-disable, then (for GET and DELETE) --mcp-no-streaming, then the
    // Host and Origin checks; false after writing the refusal.
    bool pass_prechecks(const httplib::Request& req, httplib::Response& res,
                        bool needs_streaming) const;
    // Authenticates; nullopt after writing the 401 (or 403 for CSRF).
    // `allow_cookie` false: bearer tokens only.
    std::optional<http::Authenticated> authenticate(const httplib::Request& req,
                                                    httplib::Response& res,
                                                    bool allow_cookie = true) const;
    // The live session the request names, checked against the caller and
    // the MCP-Protocol-Version header; null after writing the 404 or 400.
    std::shared_ptr<Session> live_session(const httplib::Request& req, httplib::Response& res,
                                          const std::string& session_id,
                                          const std::string& principal) const;
    // Mints the session for a successful initialize; false after writing
    // the 429.
    bool open_session(httplib::Response& res, const std::string& principal,
                      const std::string& version) const;

    // --- the 2026-07-28 era (modern_post.cpp) ----------------------------------
    // A stateless request: its _meta and header rules, then the call, with
    // its own response stream when it asks for progress.
    void post_modern(const httplib::Request& req, httplib::Response& res, const RpcMessage& message,
                     const http::Authenticated& who, const RequestInfo& info) const;
    // The unregistered session that carries one 2026 request's streamed
    // response; null under --mcp-no-streaming.
    std::shared_ptr<Session> request_session(const std::string& principal, const RequestMeta& meta,
                                             const std::string& correlation_id) const;

    // --- progress (post_stream.cpp) -------------------------------------------
    // A tools/call of a tool that reports progress, with
    // _meta.progressToken: admission, the call, and either an SSE response
    // or plain JSON with progress on the GET channel. False when the call is
    // not one (the caller answers it as usual); true once answered.
    bool post_with_progress(const httplib::Request& req, httplib::Response& res,
                            const RpcMessage& message, const http::Authenticated& who,
                            const RequestInfo& info, CallContext& ctx) const;
    // Whether `message` is a tools/call with params._meta.progressToken.
    static bool carries_progress_token(const RpcMessage& message);
    // notifications/cancelled: detaches the named call's progress.
    void cancel(const RpcMessage& message, const std::shared_ptr<Session>& session) const;

    const McpServer& mcp_;
    const McpSettings& settings_;
    const http::CredentialResolver& resolver_;
    const TransportOptions options_;
    http::StreamBudget& budget_;
    http::HostPolicy policy_;
};

// The session header, and the one refusal every dead session gets.
inline constexpr char kSessionHeader[] = "Mcp-Session-Id";
void write_unknown_session(httplib::Response& res);

}  // namespace yuzu::mcp
