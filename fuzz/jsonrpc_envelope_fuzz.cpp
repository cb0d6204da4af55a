// libFuzzer target: the MCP endpoint's first step on an untrusted body,
// parse_message (bounded JSON parse, then JSON-RPC 2.0 envelope checks), and
// the answer built from what it returns. Invariants:
//   - it never crashes, throws or recurses past the JSON depth limit;
//   - a request has a string or integer id and a non-empty method, and its
//     params are an object or null;
//   - every answer (result or error) is one valid JSON object that parses
//     back within the depth limit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <variant>

#include "yuzu/common/json_parse.hpp"
#include "yuzu/mcp/jsonrpc.hpp"

namespace {

void require(bool condition) {
    if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string body(reinterpret_cast<const char*>(data), size);
    auto parsed = yuzu::mcp::parse_message(body);
    std::string answer;
    if (auto* error = std::get_if<yuzu::mcp::RpcError>(&parsed)) {
        require(error->code <= -32000 && error->code >= -32700);
        answer = yuzu::mcp::make_error(nullptr, *error);
    } else {
        const auto& msg = std::get<yuzu::mcp::RpcMessage>(parsed);
        if (msg.kind == yuzu::mcp::RpcMessage::Kind::kRequest) {
            require(msg.id.is_string() || msg.id.is_number_integer());
            require(!msg.method.empty());
        }
        require(msg.params.is_null() || msg.params.is_object());
        // Echo the params back, as a handler might: the depth limit keeps
        // copying and dumping them bounded.
        answer = yuzu::mcp::make_result(msg.id, {{"echo", msg.params}});
    }
    auto reparsed = yuzu::parse_json(answer);
    require(reparsed.ok() && reparsed->is_object());
    return 0;
}
