// What one MCP request carries besides its message, and what the server
// hands back to the transport.
#pragma once

#include <memory>
#include <string>

namespace yuzu::mcp {

class Session;
class CallRecord;

// Per request: the MCP session the request named (null when it named none:
// the sessionless, plain JSON-RPC mode every client without the header
// gets), and for a tools/call with a progress token the bridge record its
// progress goes to (null: none).
struct CallContext {
    std::shared_ptr<Session> session;
    std::shared_ptr<CallRecord> record;
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
};

}  // namespace yuzu::mcp
