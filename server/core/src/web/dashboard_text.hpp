// Private to the web module: the dashboard's text helpers — the one HTML
// escaper every page goes through, and the small formatters the pages use.
//
// Thread-safety: pure functions; safe to call from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace yuzu::web {

// Replaces & < > " ' by entities, so the result is inert both as element
// content and inside a double- or single-quoted attribute value. Every byte
// of user or request data reaches a dashboard page through this function.
std::string html_escape(std::string_view text);

// A same-site path that is safe to send a browser to after login: it starts
// with one '/', not "//" or "/\" (which a browser may read as another host),
// and holds no backslash or control character. Anything else is `fallback`.
std::string safe_local_path(std::string_view path, std::string_view fallback);

// A compact age for a list: "42s", "12m", "3h 5m", "2d 4h". Negative ages
// (a clock stepped back) read as "0s".
std::string format_age(int64_t age_ms);

// JSON text (such as a ticket's canonical arguments) re-indented by two
// spaces for reading; text that is not JSON comes back unchanged. The result
// is plain text and still needs html_escape().
std::string pretty_json(std::string_view text);

}  // namespace yuzu::web
