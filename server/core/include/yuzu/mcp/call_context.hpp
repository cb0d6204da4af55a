// What one MCP request carries besides its message, and what the server
// hands back to the transport.
#pragma once

#include <memory>
#include <string>

namespace yuzu::mcp {

class Session;
class CallRecord;
struct RequestMeta;

// Per request: the MCP session the request named (null when it named none:
// the sessionless, plain JSON-RPC mode every client without the header
// gets), and for a tools/call with a progress token the bridge record its
// progress goes to (null: none).
// A 2026 request (protocol_era.hpp) carries its validated _meta in `modern`
// (null for the 2025 era); its `session`, when set, is the request's own,
// unregistered one that carries its streamed response.
struct CallContext {
    std::shared_ptr<Session> session;
    std::shared_ptr<CallRecord> record;
    const RequestMeta* modern = nullptr;
};

// The answer to one message: a JSON-RPC response, or 202 Accepted for a
// notification or a client's response.
struct Reply {
    enum class Kind { kJson, kAccepted };
    Kind kind = Kind::kAccepted;
    std::string body;  // kJson: the serialized response
    // A successful initialize: the protocol version it settled on, which a
    // session minted for it is bound to. Empty otherwise.
    std::string negotiated_version;
    // kJson: the JSON-RPC error code the body carries (0: a result), for
    // the 2026 era's HTTP status mapping.
    int error_code = 0;
};

}  // namespace yuzu::mcp
