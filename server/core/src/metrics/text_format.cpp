#include "yuzu/metrics/text_format.hpp"

#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <system_error>

namespace yuzu::metrics {
namespace {

// 2^53: every integer up to here is held exactly by a double.
constexpr double kLargestExactInteger = 9007199254740992.0;

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence starting at text[i], or 0 when the
// byte there does not start one (stray continuation byte, truncated sequence,
// overlong form, surrogate, or a code point past U+10FFFF).
size_t Utf8SequenceLength(std::string_view text, size_t i) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) return 1;
    size_t length = 0;
    uint32_t code_point = 0;
    uint32_t smallest = 0;
    if ((lead & 0xE0) == 0xC0) {
        length = 2;
        code_point = lead & 0x1F;
        smallest = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3;
        code_point = lead & 0x0F;
        smallest = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4;
        code_point = lead & 0x07;
        smallest = 0x10000;
    } else {
        return 0;
    }
    if (i + length > text.size()) return 0;
    for (size_t k = 1; k < length; ++k) {
        const auto next = static_cast<unsigned char>(text[i + k]);
        if ((next & 0xC0) != 0x80) return 0;
        code_point = (code_point << 6) | (next & 0x3F);
    }
    if (code_point < smallest || code_point > 0x10FFFF) return 0;
    if (code_point >= 0xD800 && code_point <= 0xDFFF) return 0;
    return length;
}

void AppendEscaped(std::string& out, std::string_view text, bool escape_quote) {
    size_t i = 0;
    while (i < text.size()) {
        const size_t length = Utf8SequenceLength(text, i);
        if (length == 0) {
            out += kReplacementCharacter;
            ++i;
            continue;
        }
        if (length > 1) {
            out.append(text.substr(i, length));
            i += length;
            continue;
        }
        const char c = text[i++];
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '"' && escape_quote) {
            out += "\\\"";
        } else {
            out += c;
        }
    }
}

}  // namespace

std::string FormatValue(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
    // Shortest round-trip form, except that integers are forced to fixed
    // notation: plain to_chars would print 1000000 as "1e+06".
    const bool exact_integer =
        std::trunc(value) == value && std::fabs(value) <= kLargestExactInteger;
    char buffer[64];
    const std::to_chars_result result =
        exact_integer
            ? std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed)
            : std::to_chars(buffer, buffer + sizeof(buffer), value);
    assert(result.ec == std::errc() && "64 bytes hold any shortest double");
    return std::string(buffer, result.ptr);
}

void AppendEscapedHelp(std::string& out, std::string_view help) {
    AppendEscaped(out, help, /*escape_quote=*/false);
}

void AppendEscapedLabelValue(std::string& out, std::string_view value) {
    AppendEscaped(out, value, /*escape_quote=*/true);
}

void AppendSampleLine(std::string& out, std::string_view name, const Labels& labels,
                      std::string_view sample, std::string_view extra_label_name,
                      std::string_view extra_label_value) {
    out += name;
    if (!labels.empty() || !extra_label_name.empty()) {
        out += '{';
        bool first = true;
        const auto append_label = [&](std::string_view label, std::string_view value) {
            if (!first) out += ',';
            first = false;
            out += label;
            out += "=\"";
            AppendEscapedLabelValue(out, value);
            out += '"';
        };
        for (const auto& [label, value] : labels) append_label(label, value);
        if (!extra_label_name.empty()) append_label(extra_label_name, extra_label_value);
        out += '}';
    }
    out += ' ';
    out += sample;
    out += '\n';
}

}  // namespace yuzu::metrics
