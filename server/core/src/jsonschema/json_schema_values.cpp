// Value semantics JSON Schema needs beyond nlohmann::json: exact numeric
// comparison, equality where 1 == 1.0, decimal multipleOf, code points.
#include <charconv>
#include <cmath>
#include <limits>

#include "jsonschema/json_schema_node.hpp"

namespace yuzu::jsonschema::schema_detail {
namespace {

using nlohmann::json;

// Every int64, uint64 and double converts to long double without rounding on
// the platforms we build for (x87 80-bit or IEEE quad), so comparing there is exact.
static_assert(std::numeric_limits<long double>::digits >= 64,
              "exact numeric comparison needs a 64-bit long double mantissa");

long double as_long_double(const json& v) {
    if (v.is_number_unsigned()) return static_cast<long double>(v.get<json::number_unsigned_t>());
    if (v.is_number_integer()) return static_cast<long double>(v.get<json::number_integer_t>());
    return static_cast<long double>(v.get<json::number_float_t>());
}

bool is_nan(const json& v) {
    return v.is_number_float() && std::isnan(v.get<json::number_float_t>());
}

int type_rank(const json& v) {
    switch (v.type()) {
        case json::value_t::null:
            return 0;
        case json::value_t::boolean:
            return 1;
        case json::value_t::number_integer:
        case json::value_t::number_unsigned:
        case json::value_t::number_float:
            return 2;
        case json::value_t::string:
            return 3;
        case json::value_t::array:
            return 4;
        case json::value_t::object:
            return 5;
        default:  // binary, discarded: never produced by parsing JSON text
            return 6;
    }
}

int sign_of(int v) {
    return (v > 0) - (v < 0);
}

// |value| == mantissa * 10^exponent, with no trailing zeros in mantissa.
struct Decimal {
    std::uint64_t mantissa = 0;
    int exponent = 0;
};

std::optional<Decimal> to_decimal(const json& v) {
    Decimal d;
    if (v.is_number_unsigned()) {
        d.mantissa = v.get<json::number_unsigned_t>();
    } else if (v.is_number_integer()) {
        const auto i = v.get<json::number_integer_t>();
        d.mantissa = i < 0 ? 0 - static_cast<std::uint64_t>(i) : static_cast<std::uint64_t>(i);
    } else {
        const double f = v.get<json::number_float_t>();
        if (!std::isfinite(f)) return std::nullopt;
        // The shortest decimal that round-trips is what the JSON text said.
        char buf[64];
        const auto res =
            std::to_chars(buf, buf + sizeof(buf), std::fabs(f), std::chars_format::scientific);
        assert(res.ec == std::errc());
        const std::string_view text(buf, static_cast<std::size_t>(res.ptr - buf));
        const std::size_t e_pos = text.find('e');
        assert(e_pos != std::string_view::npos);
        int fraction_digits = 0;
        bool after_point = false;
        for (char c : text.substr(0, e_pos)) {
            if (c == '.') {
                after_point = true;
                continue;
            }
            d.mantissa = d.mantissa * 10 + static_cast<std::uint64_t>(c - '0');
            if (after_point) ++fraction_digits;
        }
        int exp10 = 0;
        std::string_view exp_text = text.substr(e_pos + 1);
        if (!exp_text.empty() && exp_text.front() == '+') exp_text.remove_prefix(1);
        std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp10);
        d.exponent = exp10 - fraction_digits;
    }
    if (d.mantissa == 0) {
        d.exponent = 0;
        return d;
    }
    while (d.mantissa % 10 == 0) {
        d.mantissa /= 10;
        ++d.exponent;
    }
    return d;
}

constexpr char32_t kReplacementChar = 0xFFFD;

// Decodes one code point at `i` and advances past it; a malformed sequence
// yields U+FFFD and consumes a single byte.
char32_t next_code_point(std::string_view s, std::size_t& i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char lead = byte(i);
    if (lead < 0x80) {
        ++i;
        return lead;
    }
    std::size_t length = 0;
    char32_t cp = 0;
    char32_t min_value = 0;
    if ((lead & 0xE0) == 0xC0) {
        length = 2, cp = lead & 0x1F, min_value = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
        length = 3, cp = lead & 0x0F, min_value = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
        length = 4, cp = lead & 0x07, min_value = 0x10000;
    } else {
        ++i;
        return kReplacementChar;
    }
    if (i + length > s.size()) {
        ++i;
        return kReplacementChar;
    }
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) {
            ++i;
            return kReplacementChar;
        }
        cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    if (cp < min_value || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        ++i;
        return kReplacementChar;
    }
    i += length;
    return cp;
}

}  // namespace

std::partial_ordering compare_numbers(const json& a, const json& b) {
    assert(a.is_number() && b.is_number());
    return as_long_double(a) <=> as_long_double(b);
}

int compare_values(const json& a, const json& b) {
    const int ra = type_rank(a);
    const int rb = type_rank(b);
    if (ra != rb) return ra < rb ? -1 : 1;
    switch (ra) {
        case 0:
            return 0;
        case 1:
            return static_cast<int>(a.get<bool>()) - static_cast<int>(b.get<bool>());
        case 2: {
            const auto order = compare_numbers(a, b);
            if (order < 0) return -1;
            if (order > 0) return 1;
            if (order == 0) return 0;
            // NaN only arises from programmatically built values; order it last.
            return static_cast<int>(is_nan(a)) - static_cast<int>(is_nan(b));
        }
        case 3:
            return sign_of(
                a.get_ref<const std::string&>().compare(b.get_ref<const std::string&>()));
        case 4: {
            const std::size_t n = std::min(a.size(), b.size());
            for (std::size_t i = 0; i < n; ++i) {
                if (const int c = compare_values(a[i], b[i]); c != 0) return c;
            }
            return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
        }
        case 5: {
            // Objects iterate in key order, so member order never matters.
            auto ia = a.begin();
            auto ib = b.begin();
            for (; ia != a.end() && ib != b.end(); ++ia, ++ib) {
                if (const int c = sign_of(ia.key().compare(ib.key())); c != 0) return c;
                if (const int c = compare_values(ia.value(), ib.value()); c != 0) return c;
            }
            if (ia == a.end() && ib == b.end()) return 0;
            return ia == a.end() ? -1 : 1;
        }
        default:
            if (a == b) return 0;
            return sign_of(
                render_value(a, std::string::npos).compare(render_value(b, std::string::npos)));
    }
}

bool is_integral_number(const json& value) {
    if (value.is_number_integer()) return true;  // includes unsigned
    if (!value.is_number_float()) return false;
    const double f = value.get<json::number_float_t>();
    return std::isfinite(f) && std::trunc(f) == f;
}

bool is_multiple_of(const json& value, const json& divisor) {
    const auto x = to_decimal(value);
    const auto d = to_decimal(divisor);
    if (!x || !d || d->mantissa == 0) return false;
    if (x->mantissa == 0) return true;
    if (x->exponent < d->exponent) {
        // x / d == mx / (md * 10^k) with k >= 1; mx has no factor 10 left, so
        // the quotient cannot be an integer.
        return false;
    }
    // x / d == mx * 10^(ex - ed) / md: reduce modulo md step by step.
    unsigned __int128 remainder = x->mantissa % d->mantissa;
    for (int k = x->exponent - d->exponent; k > 0 && remainder != 0; --k) {
        remainder = (remainder * 10) % d->mantissa;
    }
    return remainder == 0;
}

std::string_view instance_type_name(const json& value) {
    switch (value.type()) {
        case json::value_t::null:
            return "null";
        case json::value_t::boolean:
            return "boolean";
        case json::value_t::object:
            return "object";
        case json::value_t::array:
            return "array";
        case json::value_t::string:
            return "string";
        case json::value_t::number_integer:
        case json::value_t::number_unsigned:
        case json::value_t::number_float:
            return is_integral_number(value) ? "integer" : "number";
        default:
            return "binary";
    }
}

std::size_t count_code_points(std::string_view utf8) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < utf8.size(); ++count) next_code_point(utf8, i);
    return count;
}

std::u32string decode_utf8(std::string_view utf8) {
    std::u32string out;
    out.reserve(utf8.size());
    for (std::size_t i = 0; i < utf8.size();) out.push_back(next_code_point(utf8, i));
    return out;
}

std::string render_value(const json& value, std::size_t max_chars) {
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() <= max_chars) return text;
    std::size_t cut = max_chars;
    // Never split a UTF-8 sequence.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    text.resize(cut);
    text += "...";
    return text;
}

}  // namespace yuzu::jsonschema::schema_detail
