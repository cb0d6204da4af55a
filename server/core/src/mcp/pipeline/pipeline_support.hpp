// Private to the mcp module: the pieces of the tools/call pipeline that its
// steps share (pipeline.cpp, approval_gate.cpp). Thread-safety: stateless.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "yuzu/auth/principal.hpp"
#include "yuzu/common/status.hpp"
#include "yuzu/mcp/pipeline.hpp"

namespace yuzu::mcp::detail {

// A denial with the A4 envelope as error.data.
Denial make_denial(int code, std::string message, const RequestInfo& info,
                   std::optional<int64_t> retry, const std::string& remediation,
                   std::string audit_result, std::string audit_detail);

// One mcp.<tool> audit row; a failed write is logged, never thrown.
void write_audit(const PipelineEnv& env, const auth::Principal& who, const std::string& tool,
                 const std::string& result, const std::string& detail, const RequestInfo& info);

// The JSON-RPC error for a failed Status, by code; internals stay in the log.
RpcError map_failure(const Status& s, const RequestInfo& info, const std::string& tool);

// The audit result word for a handler or service failure.
std::string audit_result_for(const Status& s);

}  // namespace yuzu::mcp::detail
