// Accept-header matching for the MCP endpoint (RFC 9110 §12.5.1).
#include <optional>
#include <string>
#include <string_view>

#include "mcp/transport/transport_support.hpp"
#include "yuzu/common/ascii.hpp"
#include "yuzu/mcp/http_transport.hpp"

namespace yuzu::mcp {
namespace {

std::string_view trim_ows(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

// How specifically `range` (lower case, parameters removed) names `type`:
// 3 exactly, 2 as type/*, 1 as */*, 0 not at all.
int match_specificity(std::string_view range, std::string_view type) {
    if (range == type) return 3;
    if (range == "*/*") return 1;
    const auto slash = type.find('/');
    const std::string_view top = type.substr(0, slash);
    return range.size() == top.size() + 2 && range.substr(0, top.size()) == top &&
                   range.substr(top.size()) == "/*"
               ? 2
               : 0;
}

// RFC 9110 §12.4.2: a qvalue of 0 (0, 0.0, 0.00, 0.000) means "not
// acceptable"; anything else, or none, accepts.
bool qvalue_is_zero(std::string_view params) {
    size_t pos = 0;
    while (pos < params.size()) {
        const size_t semi = params.find(';', pos);
        const std::string_view param = trim_ows(params.substr(
            pos, semi == std::string_view::npos ? std::string_view::npos : semi - pos));
        pos = semi == std::string_view::npos ? params.size() : semi + 1;
        if (param.size() < 2 || param.substr(0, 2) != "q=") continue;
        const std::string_view q = param.substr(2);
        if (q.empty() || q.front() != '0') return false;
        if (q.size() == 1) return true;
        if (q[1] != '.') return false;
        return q.find_first_not_of('0', 2) == std::string_view::npos;
    }
    return false;
}

// Whether the Accept list accepts `type`: its most specific matching range
// decides, and a range with q=0 refuses.
bool accepts(const std::string& accept, std::string_view type) {
    int best = 0;
    bool acceptable = false;
    size_t pos = 0;
    while (pos <= accept.size()) {
        const size_t comma = accept.find(',', pos);
        const std::string_view item = std::string_view(accept).substr(
            pos, comma == std::string::npos ? std::string::npos : comma - pos);
        const auto semi = item.find(';');
        const std::string_view range = trim_ows(item.substr(0, semi));
        const int specificity = match_specificity(range, type);
        if (specificity > best) {
            best = specificity;
            acceptable = semi == std::string_view::npos || !qvalue_is_zero(item.substr(semi + 1));
        }
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return acceptable;
}

// The parameters of the first item of `accept` (lower case) that names
// text/event-stream itself ("" when it has none); nullopt when none does.
std::optional<std::string_view> event_stream_item(std::string_view accept) {
    size_t pos = 0;
    while (pos <= accept.size()) {
        const size_t comma = accept.find(',', pos);
        const std::string_view item = accept.substr(
            pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
        const auto semi = item.find(';');
        if (trim_ows(item.substr(0, semi)) == "text/event-stream") {
            return semi == std::string_view::npos ? std::string_view() : item.substr(semi + 1);
        }
        if (comma == std::string_view::npos) break;
        pos = comma + 1;
    }
    return std::nullopt;
}

}  // namespace

std::string lowercase_header(std::string s) {
    // ASCII only: media types and parameters are ASCII, and the locale
    // must not decide what matches.
    for (char& c : s) c = ascii_lower(c);
    return s;
}

bool accept_allows_mcp(const std::string& accept_header) {
    const std::string accept = lowercase_header(accept_header);
    // RFC 9110 §12.5.1: no Accept field (or an empty one) accepts any media
    // type, so the JSON answer is acceptable.
    if (trim_ows(accept).empty()) return true;
    return accepts(accept, "application/json") && accepts(accept, "text/event-stream");
}

bool accept_allows_mcp_but_sse_q0(const std::string& accept_header) {
    const std::string accept = lowercase_header(accept_header);
    return !accept_allows_mcp(accept) && accepts(accept, "application/json") &&
           accept_lists_event_stream(accept);
}

bool accept_lists_event_stream(const std::string& accept_header) {
    return event_stream_item(lowercase_header(accept_header)).has_value();
}

bool accept_names_event_stream(const std::string& accept_header) {
    const std::string accept = lowercase_header(accept_header);
    const auto params = event_stream_item(accept);
    return params && !qvalue_is_zero(*params);
}

}  // namespace yuzu::mcp
