#include "common/json_reader.hpp"

#include <charconv>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>

#include "yuzu/common/utf8.hpp"

// The reader fills objects and arrays through get_ref, which leaves the
// parent pointers JSON_DIAGNOSTICS keeps unset.
#if defined(JSON_DIAGNOSTICS) && JSON_DIAGNOSTICS
#error "json_reader.cpp builds documents without nlohmann's parent pointers"
#endif

namespace yuzu::detail {
namespace {

using nlohmann::json;

// Past this, the recursion here would use more stack than a request thread
// should spend on a document; such callers get nlohmann's iterative parser.
constexpr int kMaxRecursion = 256;

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

class Reader {
  public:
    Reader(std::string_view text, int max_depth) : text_(text), max_depth_(max_depth) {}

    bool document(json& out) {
        if (!value(out)) return false;
        skip_whitespace();
        return pos_ == text_.size();  // nothing may follow the value
    }

  private:
    bool at_end() const { return pos_ >= text_.size(); }
    char peek() const { return text_[pos_]; }

    void skip_whitespace() {
        while (!at_end()) {
            const char c = peek();
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
            ++pos_;
        }
    }

    bool literal(std::string_view word) {
        if (text_.substr(pos_, word.size()) != word) return false;
        pos_ += word.size();
        return true;
    }

    bool value(json& out) {
        skip_whitespace();
        if (at_end()) return false;
        switch (peek()) {
            case '{':
                return object(out);
            case '[':
                return array(out);
            case '"':
                out = json::value_t::string;
                return string(out.get_ref<std::string&>());
            case 't':
                out = true;
                return literal("true");
            case 'f':
                out = false;
                return literal("false");
            case 'n':
                out = nullptr;
                return literal("null");
            default:
                return number(out);
        }
    }

    bool enter() {
        if (depth_ >= max_depth_) return false;
        ++depth_;
        ++pos_;  // the opening bracket
        return true;
    }

    bool object(json& out) {
        if (!enter()) return false;
        out = json::value_t::object;
        auto& members = out.get_ref<json::object_t&>();
        skip_whitespace();
        if (!at_end() && peek() == '}') {
            ++pos_;
            --depth_;
            return true;
        }
        for (;;) {
            skip_whitespace();
            if (at_end() || peek() != '"') return false;
            std::string key;
            if (!string(key)) return false;
            skip_whitespace();
            if (at_end() || peek() != ':') return false;
            ++pos_;
            // A repeated key keeps its last value, as nlohmann's parser does.
            if (!value(members[std::move(key)])) return false;
            skip_whitespace();
            if (at_end()) return false;
            const char c = text_[pos_++];
            if (c == '}') break;
            if (c != ',') return false;
        }
        --depth_;
        return true;
    }

    bool array(json& out) {
        if (!enter()) return false;
        out = json::value_t::array;
        auto& elements = out.get_ref<json::array_t&>();
        skip_whitespace();
        if (!at_end() && peek() == ']') {
            ++pos_;
            --depth_;
            return true;
        }
        for (;;) {
            elements.emplace_back();
            if (!value(elements.back())) return false;
            skip_whitespace();
            if (at_end()) return false;
            const char c = text_[pos_++];
            if (c == ']') break;
            if (c != ',') return false;
        }
        --depth_;
        return true;
    }

    // Four hex digits after "\u".
    bool code_unit(uint32_t& unit) {
        if (text_.size() - pos_ < 4) return false;
        unit = 0;
        for (int i = 0; i < 4; ++i) {
            const int d = hex_digit(text_[pos_++]);
            if (d < 0) return false;
            unit = unit << 4 | static_cast<uint32_t>(d);
        }
        return true;
    }

    bool escape(std::string& out) {
        if (at_end()) return false;
        const char c = text_[pos_++];
        switch (c) {
            case '"':
            case '\\':
            case '/':
                out.push_back(c);
                return true;
            case 'b':
                out.push_back('\b');
                return true;
            case 'f':
                out.push_back('\f');
                return true;
            case 'n':
                out.push_back('\n');
                return true;
            case 'r':
                out.push_back('\r');
                return true;
            case 't':
                out.push_back('\t');
                return true;
            case 'u':
                break;
            default:
                return false;
        }
        uint32_t unit = 0;
        if (!code_unit(unit)) return false;
        if (unit >= 0xDC00 && unit <= 0xDFFF) return false;  // a low surrogate alone
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            // A high surrogate must be followed by an escaped low one.
            if (text_.substr(pos_, 2) != "\\u") return false;
            pos_ += 2;
            uint32_t low = 0;
            if (!code_unit(low) || low < 0xDC00 || low > 0xDFFF) return false;
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
        }
        append_utf8(out, unit);
        return true;
    }

    // A string from its opening quote; control bytes and bytes that are not
    // well-formed UTF-8 are refused, as nlohmann refuses them.
    bool string(std::string& out) {
        ++pos_;  // the opening quote
        size_t run = pos_;
        while (!at_end()) {
            const auto c = static_cast<unsigned char>(peek());
            if (c == '"') {
                out.append(text_.data() + run, pos_ - run);
                ++pos_;
                return true;
            }
            if (c == '\\') {
                out.append(text_.data() + run, pos_ - run);
                ++pos_;
                if (!escape(out)) return false;
                run = pos_;
            } else if (c < 0x20) {
                return false;
            } else if (c >= 0x80) {
                const size_t len = utf8::sequence_length(text_, pos_);
                if (len == 0) return false;
                pos_ += len;
            } else {
                ++pos_;
            }
        }
        return false;  // no closing quote
    }

    bool digits() {
        const size_t start = pos_;
        while (!at_end() && peek() >= '0' && peek() <= '9') ++pos_;
        return pos_ > start;
    }

    // RFC 8259's number grammar. An integer becomes number_unsigned (not
    // negative) or number_integer (negative) when it fits in 64 bits, and a
    // double otherwise, as nlohmann's lexer decides.
    bool number(json& out) {
        const size_t start = pos_;
        const bool negative = peek() == '-';
        if (negative) ++pos_;
        if (at_end()) return false;
        if (peek() == '0') {
            ++pos_;
        } else if (!digits()) {
            return false;
        }
        bool is_float = false;
        if (!at_end() && peek() == '.') {
            ++pos_;
            if (!digits()) return false;
            is_float = true;
        }
        if (!at_end() && (peek() == 'e' || peek() == 'E')) {
            ++pos_;
            if (!at_end() && (peek() == '+' || peek() == '-')) ++pos_;
            if (!digits()) return false;
            is_float = true;
        }
        const char* first = text_.data() + start;
        const char* last = text_.data() + pos_;
        if (!is_float) {
            if (negative) {
                int64_t v = 0;
                if (const auto r = std::from_chars(first, last, v);
                    r.ec == std::errc() && r.ptr == last) {
                    out = v;
                    return true;
                }
            } else {
                uint64_t v = 0;
                if (const auto r = std::from_chars(first, last, v);
                    r.ec == std::errc() && r.ptr == last) {
                    out = v;
                    return true;
                }
            }
        }
        // A float, or an integer past 64 bits. A value out of double's range
        // is left to nlohmann (an overflow error; an underflow it accepts).
        double v = 0;
        const auto r = std::from_chars(first, last, v);
        if (r.ec != std::errc() || r.ptr != last) return false;
        out = v;
        return true;
    }

    std::string_view text_;
    size_t pos_ = 0;
    int max_depth_;
    int depth_ = 0;
};

}  // namespace

bool read_json(std::string_view text, int max_depth, json& out) {
    if (max_depth > kMaxRecursion) return false;
    Reader reader(text, max_depth);
    return reader.document(out);
}

}  // namespace yuzu::detail
