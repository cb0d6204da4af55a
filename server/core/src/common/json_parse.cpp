#include "yuzu/common/json_parse.hpp"

#include <nlohmann/json.hpp>
#include <string>

#include "common/json_reader.hpp"

namespace yuzu {
namespace {

// Thrown by the parser callback to stop at the first level too deep; caught
// below, never leaves this file.
struct TooDeep {};

constexpr char kTooDeepPrefix[] = "JSON is nested deeper than ";

// Whether no array or object in `text` opens inside max_depth others, by
// counting brackets outside strings. Up to the first byte the parser would
// refuse, it and this scan agree on where strings are, so the parser never
// goes deeper than the scan saw; a text the scan clears needs no callback.
bool nesting_within(std::string_view text, int max_depth) {
    int open = 0;
    bool in_string = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                in_string = false;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            if (open >= max_depth) return false;
            ++open;
        } else if ((c == '}' || c == ']') && open > 0) {
            --open;
        }
    }
    return true;
}

}  // namespace

bool is_json_too_deep(const Status& s) {
    return s.code() == StatusCode::kInvalidArgument && s.message().rfind(kTooDeepPrefix, 0) == 0;
}

Result<nlohmann::json> parse_json(std::string_view text, int max_depth) {
    using nlohmann::json;
    // The callback sees each value's depth as it is parsed; the parser and
    // the document it builds are iterative, so only the callback's limit
    // decides how deep a document may go.
    const json::parser_callback_t limit = [max_depth](int depth, json::parse_event_t event, json&) {
        if ((event == json::parse_event_t::object_start ||
             event == json::parse_event_t::array_start) &&
            depth >= max_depth) {
            throw TooDeep{};
        }
        return true;
    };
    // nlohmann's lexer takes a NUL byte for the end of the input, so
    // `{"a":1}\0anything` would parse as `{"a":1}`: a reader that stops
    // elsewhere (a proxy, a log) would see a different document. JSON text
    // never contains a raw NUL, inside strings or out.
    if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
        return Status::InvalidArgument("malformed JSON at byte " + std::to_string(nul + 1));
    }
    try {
        // Most texts are well-formed and shallow: the reader builds them
        // directly. What it declines, nlohmann parses or refuses.
        if (json doc; detail::read_json(text, max_depth, doc)) return doc;
        // The callback costs a call per value; most texts are shallow.
        if (nesting_within(text, max_depth)) {
            return json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/true);
        }
        return json::parse(text.begin(), text.end(), limit, /*allow_exceptions=*/true);
    } catch (const TooDeep&) {
        return Status::InvalidArgument(kTooDeepPrefix + std::to_string(max_depth) + " levels");
    } catch (const json::parse_error& e) {
        return Status::InvalidArgument("malformed JSON at byte " + std::to_string(e.byte));
    } catch (const std::exception& e) {
        return Status::InvalidArgument(std::string("malformed JSON: ") + e.what());
    }
}

nlohmann::json parse_json_or_discarded(std::string_view text, int max_depth) {
    auto parsed = parse_json(text, max_depth);
    if (!parsed.ok()) return nlohmann::json(nlohmann::json::value_t::discarded);
    return std::move(parsed).value();
}

}  // namespace yuzu
