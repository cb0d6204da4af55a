// How a request says where its body ends, checked before any byte of the
// body is read: one Content-Length that is a plain decimal within the
// listener's body limit, or Transfer-Encoding: chunked alone (counted as it
// arrives), or no body at all. Everything else is refused up front rather
// than read until a timeout: ambiguous framing is how requests get
// smuggled past proxies, and an impossible length used to hold a worker.
// A field value holding a NUL byte is refused too (400), so every reader of
// a header sees the same value.
#pragma once

#include <httplib.h>

#include <cstddef>
#include <string>

namespace yuzu::http {

struct FramingVerdict {
    int status = 0;  // 0: acceptable; else 400, 411, 413, 415 or 501
    std::string message;
};

FramingVerdict check_request_framing(const httplib::Request& req, size_t max_body);

}  // namespace yuzu::http
