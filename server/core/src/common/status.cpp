#include "yuzu/common/status.hpp"

namespace yuzu {
namespace {

struct CodeRow {
    StatusCode code;
    std::string_view name;
    int http;
    int jsonrpc;
};

// The one table mapping our codes onto the wire. -32001 is not a JSON-RPC
// code the MCP layer sends (unauthenticated MCP requests get HTTP 401 before
// parsing); it is listed so the table is total.
constexpr CodeRow kRows[] = {
    {StatusCode::kOk, "Ok", 200, 0},
    {StatusCode::kInvalidArgument, "InvalidArgument", 400, -32602},
    {StatusCode::kNotFound, "NotFound", 404, -32602},
    {StatusCode::kAlreadyExists, "AlreadyExists", 409, -32602},
    {StatusCode::kUnauthenticated, "Unauthenticated", 401, -32001},
    {StatusCode::kPermissionDenied, "PermissionDenied", 403, -32003},
    {StatusCode::kFailedPrecondition, "FailedPrecondition", 409, -32003},
    {StatusCode::kResourceExhausted, "ResourceExhausted", 429, -32603},
    {StatusCode::kPayloadTooLarge, "PayloadTooLarge", 413, -32602},
    {StatusCode::kUnavailable, "Unavailable", 503, -32603},
    {StatusCode::kInternal, "Internal", 500, -32603},
};

const CodeRow& row_for(StatusCode code) {
    for (const auto& r : kRows) {
        if (r.code == code) return r;
    }
    assert(false && "StatusCode missing from kRows");
    return kRows[0];
}

}  // namespace

std::string_view status_code_name(StatusCode code) {
    return row_for(code).name;
}
int http_status_for(StatusCode code) {
    return row_for(code).http;
}
int jsonrpc_code_for(StatusCode code) {
    return row_for(code).jsonrpc;
}

std::string Status::to_string() const {
    if (ok()) return "Ok";
    std::string out(status_code_name(code_));
    out += ": ";
    out += message_;
    return out;
}

}  // namespace yuzu
