#include "yuzu/common/json_text.hpp"

#include <array>
#include <atomic>
#include <charconv>
#include <nlohmann/json.hpp>
#include <string_view>

#include "yuzu/common/utf8.hpp"

namespace yuzu {
namespace {

using nlohmann::json;

// Only ever added to and read; nothing else is ordered by it.
std::atomic<uint64_t> g_invalid_utf8_total{0};

// `s` as a JSON string, escaped as nlohmann's dump() escapes it with
// ensure_ascii off; false (out partly written) at the first byte that is
// not well-formed UTF-8.
bool append_string(std::string& out, std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    size_t run = 0;  // start of the bytes not yet copied
    size_t i = 0;
    while (i < s.size()) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            const size_t len = utf8::sequence_length(s, i);
            if (len == 0) return false;
            i += len;
            continue;
        }
        if (c >= 0x20 && c != '"' && c != '\\') {
            ++i;
            continue;
        }
        out.append(s.data() + run, i - run);
        switch (c) {
            case '"':
                out.append("\\\"");
                break;
            case '\\':
                out.append("\\\\");
                break;
            case '\b':
                out.append("\\b");
                break;
            case '\f':
                out.append("\\f");
                break;
            case '\n':
                out.append("\\n");
                break;
            case '\r':
                out.append("\\r");
                break;
            case '\t':
                out.append("\\t");
                break;
            default: {
                const std::array<char, 6> u{'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
                out.append(u.data(), u.size());
                break;
            }
        }
        run = ++i;
    }
    out.append(s.data() + run, s.size() - run);
    out.push_back('"');
    return true;
}

template <typename Int>
void append_integer(std::string& out, Int v) {
    std::array<char, 24> buf;
    const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    (void)ec;  // 24 characters hold every 64-bit integer
    out.append(buf.data(), end);
}

// `value` compactly, byte for byte as value.dump() writes it; false when
// a string or key is not well-formed UTF-8. Floats, binary and discarded
// values are rare here and written by nlohmann itself.
bool append_json(std::string& out, const json& value) {
    switch (value.type()) {
        case json::value_t::object: {
            out.push_back('{');
            bool first = true;
            for (const auto& [key, member] : value.get_ref<const json::object_t&>()) {
                if (!first) out.push_back(',');
                first = false;
                if (!append_string(out, key)) return false;
                out.push_back(':');
                if (!append_json(out, member)) return false;
            }
            out.push_back('}');
            return true;
        }
        case json::value_t::array: {
            out.push_back('[');
            bool first = true;
            for (const json& element : value.get_ref<const json::array_t&>()) {
                if (!first) out.push_back(',');
                first = false;
                if (!append_json(out, element)) return false;
            }
            out.push_back(']');
            return true;
        }
        case json::value_t::string:
            return append_string(out, value.get_ref<const std::string&>());
        case json::value_t::boolean:
            out.append(value.get<bool>() ? "true" : "false");
            return true;
        case json::value_t::null:
            out.append("null");
            return true;
        case json::value_t::number_integer:
            append_integer(out, value.get<json::number_integer_t>());
            return true;
        case json::value_t::number_unsigned:
            append_integer(out, value.get<json::number_unsigned_t>());
            return true;
        case json::value_t::number_float:
        case json::value_t::binary:
        case json::value_t::discarded:
            break;
    }
    // None of these holds a string, so dump() cannot throw type_error 316.
    out.append(value.dump());
    return true;
}

// Most answers are a few hundred bytes: start there rather than growing
// through 15, 30, 60... bytes.
constexpr size_t kInitialCapacity = 512;

}  // namespace

std::string dump_json(const nlohmann::json& value, int indent) {
    if (indent < 0) {
        // The common case, compact and valid: written here, several times
        // faster than dump(), which decodes every byte through its
        // UTF-8 state machine and writes through a virtual adapter.
        std::string out;
        out.reserve(kInitialCapacity);
        if (append_json(out, value)) {
            // A short text may be kept for long (a session's request key):
            // give the unused room back.
            if (out.size() < kInitialCapacity / 4) out.shrink_to_fit();
            return out;
        }
    }
    try {
        return value.dump(indent, ' ', /*ensure_ascii=*/false, json::error_handler_t::strict);
    } catch (const json::type_error&) {
        // 316 (invalid UTF-8) is the only type_error dump() throws.
        g_invalid_utf8_total.fetch_add(1, std::memory_order_relaxed);
    }
    return value.dump(indent, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
}

uint64_t json_invalid_utf8_total() {
    return g_invalid_utf8_total.load(std::memory_order_relaxed);
}

}  // namespace yuzu
