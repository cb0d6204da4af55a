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
    // 2026-07-28 (protocol_era.hpp): a header that disagrees with the body,
    // a client capability the request needs but did not declare, a protocol
    // version this server does not speak.
    kHeaderMismatch = -32020,
    kMissingClientCapability = -32021,
    kUnsupportedProtocolVersion = -32022,
};

}  // namespace yuzu::mcp
