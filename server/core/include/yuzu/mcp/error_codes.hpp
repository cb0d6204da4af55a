// JSON-RPC error codes the MCP endpoint sends.
#pragma once

namespace yuzu::mcp {

enum ErrorCode : int {
    kParseError = -32700,
    kInvalidRequest = -32600,
    kMethodNotFound = -32601,
    kInvalidParams = -32602,
    kInternalError = -32603,
    kPermissionDenied = -32003,
    kTierDenied = -32004,
    kMcpDisabled = -32005,
    kApprovalRequired = -32006,
    kSessionUnknown = -32007,
    kOriginRejected = -32008,
    kBadProtocolVersion = -32009,
    kSessionCapReached = -32010,
    kNotAcceptable = -32011,
    kStreamCapReached = -32012,
};

}  // namespace yuzu::mcp
