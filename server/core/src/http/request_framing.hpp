// How a request says where its body ends, checked before any byte of the
// body is read: one Content-Length that is a plain decimal within the
// listener's body limit, or Transfer-Encoding: chunked alone (counted as it
// arrives), or no body at all. Everything else is refused up front rather
// than read until a timeout: ambiguous framing is how requests get
// smuggled past proxies, and an impossible length used to hold a worker.
#pragma once

#include <httplib.h>

#include <cstddef>
#include <string>

namespace yuzu::http {

struct FramingVerdict {
    int status = 0;  // 0: acceptable; else 400, 411, 413 or 501
    std::string message;
};

FramingVerdict check_request_framing(const httplib::Request& req, size_t max_body);

}  // namespace yuzu::http
