// libFuzzer target for the config file parser (built and run by
// scripts/fuzz.sh). Any input must either be refused with a one-line
// InvalidArgument "fuzz:<line>: ..." naming a line of the input, or parse
// into entries that keep every promise of config_file.hpp, re-serialise to
// text that parses back to the same entries, and parse the same with CRLF
// line endings.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/app/config_file.hpp"

namespace {

using yuzu::app::ConfigEntry;
using Kind = ConfigEntry::Kind;

[[noreturn]] void fail(const char* what, std::string_view text, std::string_view detail) {
    std::fprintf(stderr, "config fuzz: %s\n  input (%zu bytes): %.*s\n  detail: %.*s\n", what,
                 text.size(), static_cast<int>(text.size()), text.data(),
                 static_cast<int>(detail.size()), detail.data());
    std::abort();
}

// UTF-8 validity by decoding and checking the code point, independently of
// the parser's table-driven check: no overlong form, no surrogate, at most
// U+10FFFF.
bool valid_utf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        const auto lead = static_cast<unsigned char>(s[i]);
        size_t n = 1;
        uint32_t cp = lead;
        uint32_t min = 0;
        if (lead >= 0xF0) {
            n = 4, cp = lead & 0x07u, min = 0x10000;
        } else if (lead >= 0xE0) {
            n = 3, cp = lead & 0x0Fu, min = 0x800;
        } else if (lead >= 0xC0) {
            n = 2, cp = lead & 0x1Fu, min = 0x80;
        } else if (lead >= 0x80) {
            return false;
        }
        if (lead >= 0xF8 || i + n > s.size()) return false;
        for (size_t k = 1; k < n; ++k) {
            const auto c = static_cast<unsigned char>(s[i + k]);
            if ((c & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (c & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += n;
    }
    return true;
}

bool valid_key(std::string_view key) {
    if (key.empty() || key.front() == '-') return false;
    for (char c : key) {
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    }
    return true;
}

bool canonical_integer(const std::string& value) {
    int64_t parsed = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    return ec == std::errc() && ptr == value.data() + value.size() &&
           std::to_string(parsed) == value;
}

void check_entries(const std::vector<ConfigEntry>& entries, std::string_view text) {
    if (text.size() > yuzu::app::kMaxConfigFileBytes) fail("accepted an oversized text", text, "");
    if (entries.size() > yuzu::app::kMaxConfigEntries) fail("too many entries", text, "");
    size_t lines = 1;
    for (char c : text) lines += c == '\n' ? 1 : 0;
    std::set<std::string> keys;
    int previous_line = 0;
    for (const ConfigEntry& e : entries) {
        if (!valid_key(e.key)) fail("key outside [a-z0-9-]+", text, e.key);
        if (!keys.insert(e.key).second) fail("duplicate key accepted", text, e.key);
        if (e.line <= previous_line || static_cast<size_t>(e.line) > lines) {
            fail("entry lines out of order or beyond the text", text, e.key);
        }
        previous_line = e.line;
        if (e.kind != Kind::kArray && e.values.size() != 1) {
            fail("a scalar without exactly one value", text, e.key);
        }
        if (e.values.size() > yuzu::app::kMaxConfigArrayElements)
            fail("array too long", text, e.key);
        for (const std::string& v : e.values) {
            if (!valid_utf8(v)) fail("value is not valid UTF-8", text, v);
            for (char c : v) {
                const auto u = static_cast<unsigned char>(c);
                if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7F) {
                    fail("value holds a control character", text, v);
                }
            }
        }
        if (e.kind == Kind::kInteger && !canonical_integer(e.values.front())) {
            fail("integer not in canonical int64 form", text, e.values.front());
        }
        if (e.kind == Kind::kBoolean && e.values.front() != "true" && e.values.front() != "false") {
            fail("boolean neither true nor false", text, e.values.front());
        }
    }
}

std::string basic_string(const std::string& value) {
    std::string out = "\"";
    for (char c : value) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
        } else if (c == '\t') {
            out += "\\t";
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// The entries written back as config text, one per line; empty when that
// text would be over a bound (escapes can double a value's length).
std::string serialise(const std::vector<ConfigEntry>& entries) {
    std::string text;
    for (const ConfigEntry& e : entries) {
        std::string line = e.key + " = ";
        if (e.kind == Kind::kString) {
            line += basic_string(e.values.front());
        } else if (e.kind == Kind::kArray) {
            line += "[";
            for (const std::string& v : e.values) line += basic_string(v) + ",";
            line += "]";
        } else {
            line += e.values.front();
        }
        if (line.size() > yuzu::app::kMaxConfigLineBytes) return "";
        text += line + "\n";
    }
    return text.size() > yuzu::app::kMaxConfigFileBytes ? "" : text;
}

bool same_ignoring_lines(std::vector<ConfigEntry> a, std::vector<ConfigEntry> b) {
    for (auto& e : a) e.line = 0;
    for (auto& e : b) e.line = 0;
    return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto parsed = yuzu::app::parse_config_text(text, "fuzz");

    // The same text with CRLF line endings parses the same (when it has no
    // CR of its own and still fits).
    if (text.find('\r') == std::string_view::npos) {
        std::string crlf;
        for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
        if (crlf.size() <= yuzu::app::kMaxConfigFileBytes) {
            auto again = yuzu::app::parse_config_text(crlf, "fuzz");
            if (again.ok() != parsed.ok()) fail("CRLF changes success", text, "");
            if (parsed.ok() ? *again != *parsed
                            : again.status().message() != parsed.status().message()) {
                fail("CRLF changes the result", text, again.status().message());
            }
        }
    }

    if (!parsed.ok()) {
        const std::string& message = parsed.status().message();
        if (parsed.status().code() != yuzu::StatusCode::kInvalidArgument) {
            fail("error is not InvalidArgument", text, message);
        }
        if (message.rfind("fuzz:", 0) != 0) fail("error does not name the source", text, message);
        if (message.find('\n') != std::string::npos) fail("error is not one line", text, message);
        if (!valid_utf8(message)) fail("error is not valid UTF-8", text, message);
        size_t line = 0;
        const char* digits = message.data() + 5;
        const auto [ptr, ec] = std::from_chars(digits, message.data() + message.size(), line);
        if (ec == std::errc()) {
            size_t lines = 1;
            for (char c : text) lines += c == '\n' ? 1 : 0;
            if (*ptr != ':' || line < 1 || line > lines) {
                fail("error names a line the text does not have", text, message);
            }
        } else if (text.size() <= yuzu::app::kMaxConfigFileBytes) {
            fail("error without a line number for a text within the size bound", text, message);
        }
        return 0;
    }

    check_entries(*parsed, text);
    const std::string written = serialise(*parsed);
    if (!written.empty() || parsed->empty()) {
        auto reparsed = yuzu::app::parse_config_text(written, "fuzz");
        if (!reparsed.ok())
            fail("serialised entries do not parse", text, reparsed.status().message());
        if (!same_ignoring_lines(*reparsed, *parsed)) {
            fail("serialised entries parse differently", text, written);
        }
    }
    return 0;
}
