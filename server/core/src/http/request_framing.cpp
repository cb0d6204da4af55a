#include "http/request_framing.hpp"

#include <cstdint>
#include <string_view>

#include "http/header_value.hpp"
#include "yuzu/common/ascii.hpp"
#include "yuzu/http/header_lookup.hpp"

namespace yuzu::http {
namespace {

bool method_needs_length(const std::string& method) {
    return method == "POST" || method == "PUT" || method == "PATCH";
}

bool method_reads_body(const std::string& method) {
    return method_needs_length(method) || method == "DELETE";
}

bool method_served(const std::string& method) {
    return method_reads_body(method) || method == "GET" || method == "HEAD" || method == "OPTIONS";
}

}  // namespace

FramingVerdict check_request_framing(const httplib::Request& req, size_t max_body) {
    // cpp-httplib also accepts PRI (and reads a body for it until the peer
    // closes); nothing here is served by other methods.
    if (!method_served(req.method)) return {501, "method not implemented"};
    // RFC 9110 5.5. A NUL byte in a field value (sent raw: "%00" reaches
    // the parser escaped, see ConnectionStream) ends the value for
    // cpp-httplib's own look-ups and not for ours (header_lookup.hpp), so
    // the two would read different values.
    for (const auto& field : req.headers) {
        if (field.second.find('\0') != std::string::npos) {
            return {400, "a header field value contains a NUL byte"};
        }
    }
    const size_t te_count = field_count(req.headers, "Transfer-Encoding");
    const size_t cl_count = field_count(req.headers, "Content-Length");
    // The library would inflate a compressed body into memory with no cap.
    if (const std::string* ce_value = find_field(req.headers, "Content-Encoding")) {
        if (field_count(req.headers, "Content-Encoding") > 1 ||
            !iequals_ascii(trim_ows(*ce_value), "identity")) {
            return {415, "compressed request bodies are not accepted"};
        }
    }
    // cpp-httplib never reads a body for these methods (nor a chunked one
    // for DELETE): bytes it leaves unread would be taken for the next
    // request on the connection.
    if (!method_reads_body(req.method) || req.method == "DELETE") {
        if (te_count > 0) return {400, "this method takes no chunked body"};
    }
    if (!method_reads_body(req.method) && cl_count > 0) {
        const std::string& cl_value = field_value(req.headers, "Content-Length");
        if (trim_ows(cl_value) != "0") return {400, "this method takes no body"};
    }
    if (te_count > 0) {
        if (cl_count > 0) {
            return {400, "Content-Length and Transfer-Encoding must not be sent together"};
        }
        const std::string& te_value = field_value(req.headers, "Transfer-Encoding");
        const std::string_view te = trim_ows(te_value);
        if (te_count > 1 || !iequals_ascii(te, "chunked")) {
            return {501, "only Transfer-Encoding: chunked is supported"};
        }
        return {};
    }
    if (cl_count > 1) return {400, "more than one Content-Length header"};
    if (cl_count == 1) {
        const std::string& cl_value = field_value(req.headers, "Content-Length");
        const std::string_view text = trim_ows(cl_value);
        // At most 19 digits, so the value fits in 64 bits.
        if (text.empty() || text.size() > 19) {
            if (text.size() > 19 &&
                text.find_first_not_of("0123456789") == std::string_view::npos) {
                return {413, "request body exceeds the server's limit"};
            }
            return {400, "Content-Length is not a valid length"};
        }
        uint64_t length = 0;
        for (const char c : text) {
            if (c < '0' || c > '9') return {400, "Content-Length is not a valid length"};
            length = length * 10 + static_cast<uint64_t>(c - '0');
        }
        if (length > max_body) return {413, "request body exceeds the server's limit"};
        return {};
    }
    if (method_needs_length(req.method)) {
        return {411, "a request body needs Content-Length or Transfer-Encoding: chunked"};
    }
    return {};
}

}  // namespace yuzu::http
