// Server-Sent Events framing (WHATWG HTML, "Server-sent events"), shared by
// every stream a listener serves (/api/v1/events, the MCP GET channel).
//
// A frame is `id:`, `event:` and `retry:` fields and one `data:` line per
// line of the payload, ended by a blank line. A CR, LF or CRLF inside the
// payload starts a new data line (so no payload can end the frame early or
// inject a field), and one in an id or event name is refused: those come
// from the server, never from a caller.
//
// Each writer has a per-frame byte cap; a frame over it is refused, so the
// caller decides what a shortened message looks like (a JSON payload cut in
// the middle would not parse).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "yuzu/common/status.hpp"

namespace yuzu::http {

struct SseEvent {
    std::optional<uint64_t> id;
    std::string event;  // empty: the default "message" type
    std::string data;
    std::optional<int64_t> retry_ms;  // the client's reconnection delay
};

class SseWriter {
  public:
    explicit SseWriter(size_t max_frame_bytes) : max_frame_bytes_(max_frame_bytes) {}

    // The frame's text. InvalidArgument for a CR or LF in `event`;
    // ResourceExhausted when the frame would exceed the cap.
    Result<std::string> frame(const SseEvent& event) const;
    size_t max_frame_bytes() const { return max_frame_bytes_; }

    // ": <text>\n\n", a comment every client ignores (keep-alives). Line
    // breaks in `text` are replaced by spaces.
    static std::string comment(std::string_view text);

  private:
    size_t max_frame_bytes_;
};

}  // namespace yuzu::http
