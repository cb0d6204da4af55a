// libFuzzer target: the MCP endpoint's first step on an untrusted body,
// parse_message (bounded JSON parse, then JSON-RPC 2.0 envelope checks), and
// the answer built from what it returns. Invariants:
//   - it never crashes, throws or recurses past the JSON depth limit;
//   - a request has a string or integer id and a non-empty method, and its
//     params are an object or null;
//   - every answer (result or error) is one valid JSON object that parses
//     back within the depth limit;
//   - dump_json writes byte for byte what nlohmann's dump() writes, for the
//     body taken as one JSON string (any bytes, valid UTF-8 or not) and for
//     the parsed document;
//   - the fast reader (read_json) accepts only what nlohmann's parser
//     accepts, and builds the same document, value types included.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "common/json_reader.hpp"
#include "yuzu/common/json_parse.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/mcp/jsonrpc.hpp"

namespace {

void require(bool condition) {
    if (!condition) std::abort();
}

// Equal documents with equal value types: nlohmann's == takes 1, 1u and
// 1.0 for one another.
bool same(const nlohmann::json& a, const nlohmann::json& b) {
    using nlohmann::json;
    if (a.type() != b.type()) return false;
    switch (a.type()) {
        case json::value_t::object: {
            const auto& x = a.get_ref<const json::object_t&>();
            const auto& y = b.get_ref<const json::object_t&>();
            if (x.size() != y.size()) return false;
            for (auto i = x.begin(), j = y.begin(); i != x.end(); ++i, ++j) {
                if (i->first != j->first || !same(i->second, j->second)) return false;
            }
            return true;
        }
        case json::value_t::array: {
            if (a.size() != b.size()) return false;
            for (size_t i = 0; i < a.size(); ++i) {
                if (!same(a[i], b[i])) return false;
            }
            return true;
        }
        case json::value_t::number_float: {
            const double x = a.get<double>();
            const double y = b.get<double>();
            return x == y && std::signbit(x) == std::signbit(y);
        }
        default:
            return a == b;
    }
}

// What dump_json promises: dump() itself, or its U+FFFD replacement where
// a string is not valid UTF-8.
std::string reference_dump(const nlohmann::json& value) {
    using nlohmann::json;
    try {
        return value.dump(-1, ' ', false, json::error_handler_t::strict);
    } catch (const json::type_error&) {
        return value.dump(-1, ' ', false, json::error_handler_t::replace);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string body(reinterpret_cast<const char*>(data), size);
    nlohmann::json fast;
    if (yuzu::detail::read_json(body, yuzu::kMaxJsonDepth, fast)) {
        const auto reference =
            nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
        require(!reference.is_discarded());
        require(same(fast, reference));
    }
    const nlohmann::json as_string = body;
    require(yuzu::dump_json(as_string) == reference_dump(as_string));
    if (auto doc = yuzu::parse_json(body); doc.ok()) {
        require(yuzu::dump_json(*doc) == reference_dump(*doc));
    }
    auto parsed = yuzu::mcp::parse_message(body);
    std::string answer;
    if (auto* error = std::get_if<yuzu::mcp::RpcError>(&parsed)) {
        require(error->code <= -32000 && error->code >= -32700);
        answer = yuzu::mcp::make_error(nullptr, *error);
    } else {
        const auto& msg = std::get<yuzu::mcp::RpcMessage>(parsed);
        if (msg.kind == yuzu::mcp::RpcMessage::Kind::kRequest) {
            require(msg.id.is_string() || msg.id.is_number_integer());
            require(!msg.method.empty());
        }
        require(msg.params.is_null() || msg.params.is_object());
        // Echo the params back, as a handler might: the depth limit keeps
        // copying and dumping them bounded.
        answer = yuzu::mcp::make_result(msg.id, {{"echo", msg.params}});
    }
    auto reparsed = yuzu::parse_json(answer);
    require(reparsed.ok() && reparsed->is_object());
    return 0;
}
