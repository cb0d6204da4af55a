// Well-formed UTF-8, as Unicode's table 3-7 defines it: no overlong form,
// no surrogate, nothing past U+10FFFF. nlohmann's decoder accepts exactly
// these sequences, so the JSON reader and writer here agree with it.
#pragma once

#include <cstddef>
#include <string_view>

namespace yuzu::utf8 {

// The length of the well-formed sequence starting at s[i] (its lead byte is
// 0x80 or above), or 0 when none starts there.
inline size_t sequence_length(std::string_view s, size_t i) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char lead = byte(i);
    size_t len = 0;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;  // bounds of the second byte
    if (lead >= 0xC2 && lead <= 0xDF) {
        len = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        len = 3;
        if (lead == 0xE0) lo = 0xA0;
        if (lead == 0xED) hi = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        len = 4;
        if (lead == 0xF0) lo = 0x90;
        if (lead == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (s.size() - i < len) return 0;
    if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
    for (size_t k = 2; k < len; ++k) {
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
    }
    return len;
}

}  // namespace yuzu::utf8
