// What the connection gate can tell about a plain-HTTP request from its
// raw bytes before cpp-httplib parses it: where the header block ends and
// whether the body has arrived. Conservative by design: the answers only
// decide where a request waits (in the poller or on a worker), never how it
// is parsed, and every unclear case counts as "not yet".
#pragma once

#include <cstddef>
#include <string_view>

namespace yuzu::http {

// Index just past the CRLF CRLF ending the header block in `buf` (searching
// from `from`), or npos. cpp-httplib ends a header block only at an empty
// CRLF line, so a bare LF does not count here either.
size_t header_block_end(std::string_view buf, size_t from);

// Whether the whole body of the request whose header block is buf[0, end)
// is in `buf`: true for no body, or a single plain-decimal Content-Length
// whose bytes are all there. A chunked body, a length that is not plain
// digits, or anything else unusual counts as not arrived.
bool body_arrived(std::string_view buf, size_t end);

}  // namespace yuzu::http
