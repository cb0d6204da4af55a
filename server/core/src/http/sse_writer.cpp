#include "yuzu/http/sse_writer.hpp"

namespace yuzu::http {

Result<std::string> SseWriter::frame(const SseEvent& event) const {
    if (event.event.find_first_of("\r\n") != std::string::npos) {
        return Status::InvalidArgument("an SSE event name must not contain a line break");
    }
    std::string out;
    out.reserve(event.data.size() + 64);
    if (event.id) out += "id: " + std::to_string(*event.id) + "\n";
    if (!event.event.empty()) out += "event: " + event.event + "\n";
    if (event.retry_ms) out += "retry: " + std::to_string(*event.retry_ms) + "\n";
    // Every line of the payload is its own data field; the parser joins
    // them with LF, so an LF payload round-trips and a CR cannot end a field.
    const std::string_view data = event.data;
    size_t start = 0;
    while (true) {
        const size_t brk = data.find_first_of("\r\n", start);
        out += "data: ";
        out.append(data.substr(start, brk == std::string_view::npos ? data.npos : brk - start));
        out += '\n';
        if (brk == std::string_view::npos) break;
        start = brk + 1;
        if (data[brk] == '\r' && start < data.size() && data[start] == '\n') ++start;
    }
    out += '\n';
    if (out.size() > max_frame_bytes_) {
        return Status::ResourceExhausted("SSE frame of " + std::to_string(out.size()) +
                                         " bytes exceeds the cap of " +
                                         std::to_string(max_frame_bytes_));
    }
    return out;
}

std::string SseWriter::comment(std::string_view text) {
    std::string out = ": ";
    for (const char c : text) out += (c == '\r' || c == '\n') ? ' ' : c;
    out += "\n\n";
    return out;
}

}  // namespace yuzu::http
