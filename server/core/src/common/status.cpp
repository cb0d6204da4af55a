#include "yuzu/common/status.hpp"

#include <vector>

namespace yuzu {
namespace {

struct CodeRow {
    StatusCode code;
    std::string_view name;
    int http;
    int jsonrpc;
    std::string_view audit;
};

// The one table mapping our codes onto the wire and into the audit log.
// -32001 is not a JSON-RPC code the MCP layer sends (unauthenticated MCP
// requests get HTTP 401 before parsing); it is listed so the table is total.
// The audit result is "denied" exactly when the refusal is about the
// caller's authority, whichever layer found it; "error" when the server, not
// the request, is at fault; "failure" for every other refusal.
constexpr CodeRow kRows[] = {
    {StatusCode::kOk, "Ok", 200, 0, "success"},
    {StatusCode::kInvalidArgument, "InvalidArgument", 400, -32602, "failure"},
    {StatusCode::kNotFound, "NotFound", 404, -32602, "failure"},
    {StatusCode::kAlreadyExists, "AlreadyExists", 409, -32602, "failure"},
    {StatusCode::kUnauthenticated, "Unauthenticated", 401, -32001, "denied"},
    {StatusCode::kPermissionDenied, "PermissionDenied", 403, -32003, "denied"},
    {StatusCode::kFailedPrecondition, "FailedPrecondition", 409, -32003, "failure"},
    {StatusCode::kResourceExhausted, "ResourceExhausted", 429, -32603, "failure"},
    {StatusCode::kPayloadTooLarge, "PayloadTooLarge", 413, -32602, "failure"},
    {StatusCode::kUnavailable, "Unavailable", 503, -32603, "error"},
    {StatusCode::kInternal, "Internal", 500, -32603, "error"},
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
std::string_view audit_result_for(StatusCode code) {
    return row_for(code).audit;
}

std::vector<StatusCode> all_status_codes() {
    std::vector<StatusCode> out;
    for (const auto& r : kRows) out.push_back(r.code);
    return out;
}

std::string Status::to_string() const {
    if (ok()) return "Ok";
    std::string out(status_code_name(code_));
    out += ": ";
    out += message_;
    return out;
}

}  // namespace yuzu
