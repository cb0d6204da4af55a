#include "yuzu/app/config_file.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <system_error>
#include <utility>

namespace yuzu::app {
namespace {

using Kind = ConfigEntry::Kind;

constexpr std::string_view kBom = "\xEF\xBB\xBF";

struct Chars {
    static bool space(char c) { return c == ' ' || c == '\t'; }
    static bool digit(char c) { return c >= '0' && c <= '9'; }
    static bool key(char c) { return (c >= 'a' && c <= 'z') || digit(c) || c == '-'; }
    // What a bare value (integer, boolean, or a float or date we refuse) is
    // made of; the whole run is classified at once.
    static bool bare(char c) {
        return key(c) || (c >= 'A' && c <= 'Z') ||
               std::string_view("_+.:").find(c) != std::string_view::npos;
    }
};

std::string hex(unsigned value, int digits) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%0*X", digits, value);
    return buf;
}

// The code point and length of the well-formed UTF-8 sequence at s[i], or
// length 0 when it is ill-formed (Unicode table 3-7): a stray continuation
// byte, a truncated sequence, an overlong encoding, a surrogate, or a code
// point above U+10FFFF.
std::pair<char32_t, size_t> utf8_at(std::string_view s, size_t i) {
    const auto byte = [&](size_t k) -> char32_t { return static_cast<unsigned char>(s[k]); };
    const char32_t lead = byte(i);
    if (lead < 0x80) return {lead, 1};
    const size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    const char32_t lo = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;  // second byte
    const char32_t hi = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
    if (lead < 0xC2 || lead > 0xF4 || i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) {
        return {0, 0};
    }
    char32_t cp = lead & (0x7Fu >> n);
    for (size_t k = 1; k < n; ++k) {
        if (k > 1 && (byte(i + k) < 0x80 || byte(i + k) > 0xBF)) return {0, 0};
        cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    return {cp, n};
}

void utf8_append(std::string& out, char32_t cp) {  // cp <= U+FFFF
    const auto add = [&](char32_t b) { out.push_back(static_cast<char>(b)); };
    if (cp < 0x80) return add(cp);
    if (cp < 0x800) {
        add(0xC0 | (cp >> 6));
    } else {
        add(0xE0 | (cp >> 12));
        add(0x80 | ((cp >> 6) & 0x3F));
    }
    add(0x80 | (cp & 0x3F));
}

Status too_large(std::string_view source, const std::string& size) {
    return Status::InvalidArgument(std::string(source) + ": the file is " + size +
                                   " bytes; a config file may be at most " +
                                   std::to_string(kMaxConfigFileBytes) + " bytes");
}

// Text quoted from the file in a message: at most ~40 bytes, cut on a
// character boundary (lines are valid UTF-8 by the time this runs).
std::string excerpt(std::string_view text) {
    constexpr size_t kMax = 40;
    if (text.size() <= kMax) return "'" + std::string(text) + "'";
    size_t cut = kMax;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return "'" + std::string(text.substr(0, cut)) + "...'";
}

// One config text, parsed line by line; the cursor (line_text_, pos_) walks
// the current line.
class Parser {
  public:
    explicit Parser(std::string_view source) : source_(source) {}

    Result<std::vector<ConfigEntry>> run(std::string_view text) {
        if (text.size() > kMaxConfigFileBytes) {
            return too_large(source_, std::to_string(text.size()));
        }
        if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
        size_t start = 0;
        while (start < text.size()) {
            ++line_number_;
            const size_t newline = text.find('\n', start);
            std::string_view line = text.substr(start, newline - start);
            start = newline == std::string_view::npos ? text.size() : newline + 1;
            if (newline != std::string_view::npos && !line.empty() && line.back() == '\r') {
                line.remove_suffix(1);
            }
            YUZU_RETURN_IF_ERROR(parse_line(line));
        }
        return std::move(entries_);
    }

  private:
    Status fail(const std::string& what) const {
        return Status::InvalidArgument(std::string(source_) + ":" + std::to_string(line_number_) +
                                       ": " + what);
    }

    bool at_end() const { return pos_ >= line_text_.size(); }
    char peek() const { return line_text_[pos_]; }
    void skip_spaces() {
        while (!at_end() && Chars::space(peek())) ++pos_;
    }
    bool at_end_or_comment() const { return at_end() || peek() == '#'; }

    // What sits at the cursor, for a message.
    std::string found() const {
        if (at_end()) return "the end of the line";
        const char c = peek();
        if (c == '\'') return "\"'\"";
        if (c > ' ' && c < 0x7F) return std::string("'") + c + "'";
        const char32_t cp = utf8_at(line_text_, pos_).first;
        if (cp == 0xFEFF) {
            return "a byte order mark (U+FEFF), allowed only at the start of the file";
        }
        return "U+" + hex(cp, 4);
    }

    // Every byte of the line: tab or printable, and valid UTF-8.
    Status check_bytes(std::string_view line) const {
        for (size_t i = 0; i < line.size(); ++i) {
            const auto c = static_cast<unsigned char>(line[i]);
            const auto column = [i] { return " at column " + std::to_string(i + 1); };
            if (c == '\t') continue;
            if (c < 0x20 || c == 0x7F) {
                std::string what = "control character U+" + hex(c, 4) + column();
                if (c == 0) what += " (a NUL byte)";
                if (c == '\r') what += " (a carriage return not followed by a line feed)";
                return fail(what + " is not allowed");
            }
            if (c < 0x80) continue;
            const size_t n = utf8_at(line, i).second;
            if (n == 0) {
                return fail("invalid UTF-8" + column() + " (byte 0x" + hex(c, 2) +
                            "); the file must be UTF-8 text");
            }
            i += n - 1;
        }
        return Status::Ok();
    }

    Status parse_line(std::string_view line) {
        if (line.size() > kMaxConfigLineBytes) {
            return fail("the line is " + std::to_string(line.size()) +
                        " bytes long; lines may be at most " + std::to_string(kMaxConfigLineBytes) +
                        " bytes");
        }
        YUZU_RETURN_IF_ERROR(check_bytes(line));
        line_text_ = line;
        pos_ = 0;
        skip_spaces();
        if (at_end_or_comment()) return Status::Ok();

        ConfigEntry entry;
        entry.line = line_number_;
        YUZU_RETURN_IF_ERROR(parse_key(entry.key));
        skip_spaces();
        if (!at_end() && peek() == '.') {
            return fail("dotted keys are not supported; write every key at the top level");
        }
        if (at_end_or_comment()) return fail("key '" + entry.key + "' has no '= value'");
        if (peek() != '=') {
            return fail("expected '=' after key '" + entry.key + "', found " + found());
        }
        ++pos_;
        skip_spaces();
        if (at_end_or_comment()) return fail("key '" + entry.key + "' has no value after '='");

        if (entries_.size() == kMaxConfigEntries) {
            return fail("more than " + std::to_string(kMaxConfigEntries) +
                        " entries; a config file may hold at most " +
                        std::to_string(kMaxConfigEntries) + " keys");
        }
        auto [it, inserted] = first_line_.emplace(entry.key, line_number_);
        if (!inserted) {
            return fail("duplicate key '" + entry.key + "' (first set on line " +
                        std::to_string(it->second) + ")");
        }

        YUZU_RETURN_IF_ERROR(parse_value(entry));
        skip_spaces();
        if (!at_end_or_comment()) {
            return fail("unexpected " + found() + " after the value of '" + entry.key +
                        "'; a line holds one key = value, and a comment starts with '#'");
        }
        entries_.push_back(std::move(entry));
        return Status::Ok();
    }

    Status parse_key(std::string& key) {
        const char c = peek();
        if (c == '[') {
            const bool array = line_text_.substr(pos_, 2) == "[[";
            return fail(
                std::string(array ? "arrays of tables ('[[...]]')" : "tables ('[section]')") +
                " are not supported; write every key at the top level");
        }
        if (line_text_.substr(pos_, kBom.size()) == kBom) return fail("unexpected " + found());
        if (c == '"' || c == '\'') {
            return fail("quoted keys are not supported; write the key bare, e.g. data-dir = ...");
        }
        const size_t start = pos_;
        while (!at_end() && std::string_view(" \t=#.").find(peek()) == std::string_view::npos) {
            ++pos_;
        }
        const std::string_view text = line_text_.substr(start, pos_ - start);
        if (text.empty()) return fail("expected a key, found " + found());
        if (text.front() == '-' || !std::all_of(text.begin(), text.end(), Chars::key)) {
            return fail("key " + excerpt(text) +
                        " is not a flag's long name without its dashes: lower-case letters, "
                        "digits and '-', not starting with '-' (e.g. data-dir)");
        }
        key = std::string(text);
        return Status::Ok();
    }

    Status parse_value(ConfigEntry& entry) {
        const char c = peek();
        if (c == '"' || c == '\'') {
            entry.kind = Kind::kString;
            entry.values.emplace_back();
            return parse_string(entry.values.back());
        }
        if (c == '[') {
            entry.kind = Kind::kArray;
            return parse_array(entry.values);
        }
        if (c == '{') return fail("inline tables ('{...}') are not supported");
        return parse_bare(entry);
    }

    // A basic or literal string at the cursor, decoded into `out`.
    Status parse_string(std::string& out) {
        const char quote = peek();
        if (line_text_.substr(pos_, 3) == std::string(3, quote)) {
            return fail(std::string("multi-line strings (") + std::string(3, quote) +
                        ") are not supported; write the value on one line");
        }
        ++pos_;
        if (quote == '\'') {
            const size_t end = line_text_.find('\'', pos_);
            if (end == std::string_view::npos) {
                return fail("unterminated literal string: no closing ' on this line");
            }
            out = std::string(line_text_.substr(pos_, end - pos_));
            pos_ = end + 1;
            return Status::Ok();
        }
        while (true) {
            if (at_end()) return fail("unterminated string: no closing \" on this line");
            const char c = line_text_[pos_++];
            if (c == '"') return Status::Ok();
            if (c != '\\') {
                out.push_back(c);
                continue;
            }
            if (at_end()) return fail("unterminated string: no closing \" on this line");
            const char e = peek();
            if (e == 'u') {
                YUZU_RETURN_IF_ERROR(parse_unicode_escape(out));
                continue;
            }
            static constexpr std::string_view kEscapes = "\"\"\\\\n\nt\t";  // pairs
            const size_t at = e == '\0' ? std::string_view::npos : kEscapes.find(e);
            if (at == std::string_view::npos || at % 2 != 0) {
                const std::string name = e > ' ' && e < 0x7F ? std::string("'\\") + e + "'"
                                                             : "'\\' followed by " + found();
                return fail("escape " + name +
                            " is not supported; use \\\" \\\\ \\n \\t or \\uXXXX");
            }
            out.push_back(kEscapes[at + 1]);
            ++pos_;
        }
    }

    // \uXXXX with the cursor on the 'u'.
    Status parse_unicode_escape(std::string& out) {
        ++pos_;
        unsigned cp = 0;
        const char* begin = line_text_.data() + pos_;
        if (line_text_.size() - pos_ < 4 ||
            std::from_chars(begin, begin + 4, cp, 16).ptr != begin + 4) {
            return fail("\\u must be followed by exactly four hex digits");
        }
        pos_ += 4;
        const std::string name = "\\u" + hex(cp, 4);
        if (cp == 0) return fail(name + " (NUL) is not allowed in a value");
        if (cp < 0x20 || cp == 0x7F) {
            return fail(name + " is a control character; only \\n and \\t may put one in a value");
        }
        if (cp >= 0xD800 && cp <= 0xDFFF) {
            return fail(name +
                        " is a UTF-16 surrogate, not a character; write the character "
                        "itself");
        }
        utf8_append(out, cp);
        return Status::Ok();
    }

    // A one-line array of strings; the cursor on '['.
    Status parse_array(std::vector<std::string>& values) {
        ++pos_;
        while (true) {
            skip_spaces();
            if (at_end_or_comment()) {
                return fail(
                    "unterminated array: no closing ']' on this line (arrays must fit "
                    "on one line)");
            }
            const char c = peek();
            if (c == ']') break;
            if (c == '[') return fail("nested arrays are not supported; an array holds strings");
            if (c != '"' && c != '\'') {
                if (c == ',') return fail("expected a string or ']' in the array, found ','");
                return fail("array elements must be strings (quote each one), found " + found());
            }
            if (values.size() == kMaxConfigArrayElements) {
                return fail("the array has more than " + std::to_string(kMaxConfigArrayElements) +
                            " elements; an array may hold at most " +
                            std::to_string(kMaxConfigArrayElements));
            }
            values.emplace_back();
            YUZU_RETURN_IF_ERROR(parse_string(values.back()));
            skip_spaces();
            if (at_end_or_comment()) continue;  // reported as unterminated above
            if (peek() == ']') break;
            if (peek() != ',') {
                return fail("expected ',' or ']' after array element " +
                            std::to_string(values.size()) + ", found " + found());
            }
            ++pos_;
        }
        ++pos_;  // the ']'
        return Status::Ok();
    }

    // An integer or boolean; floats, dates and bare words are refused here.
    Status parse_bare(ConfigEntry& entry) {
        const size_t start = pos_;
        while (!at_end() && Chars::bare(peek())) ++pos_;
        const std::string_view token = line_text_.substr(start, pos_ - start);
        if (token.empty()) return fail("expected a value, found " + found());
        if (token == "true" || token == "false") {
            entry.kind = Kind::kBoolean;
            entry.values.emplace_back(token);
            return Status::Ok();
        }
        const bool negative = token.front() == '-';
        const std::string_view digits =
            (negative || token.front() == '+') ? token.substr(1) : token;
        const bool float_like =
            digits.find_first_of(".eE") != std::string_view::npos &&
            digits.find_first_not_of("0123456789_.eE+-") == std::string_view::npos;
        if (digits == "inf" || digits == "nan" ||
            (!digits.empty() && Chars::digit(digits[0]) && float_like)) {
            return fail("floats (" + excerpt(token) + ") are not supported; only integers");
        }
        if (digits.empty() || !Chars::digit(digits.front())) {
            return fail(excerpt(token) +
                        " is not a value: quote a string, and write booleans as true or false");
        }
        if (token.find(':') != std::string_view::npos ||
            (token.size() > 4 && token[4] == '-' && Chars::digit(token[3]))) {
            return fail("dates and times are not supported; quote the value as a string");
        }
        if (digits.size() > 1 && digits[0] == '0' &&
            (digits[1] == 'x' || digits[1] == 'o' || digits[1] == 'b')) {
            return fail("hexadecimal, octal and binary integers are not supported; write " +
                        excerpt(token) + " in decimal");
        }
        if (digits.size() > 1 && digits[0] == '0') {
            return fail("integer " + excerpt(token) + " has a leading zero");
        }
        std::string plain = negative ? "-" : "";  // from_chars takes no '+' and no '_'
        for (size_t i = 0; i < digits.size(); ++i) {
            const char c = digits[i];
            const bool separator = c == '_' && i + 1 < digits.size() &&
                                   Chars::digit(digits[i - 1]) && Chars::digit(digits[i + 1]);
            if (!separator && !Chars::digit(c)) {
                return fail("invalid integer " + excerpt(token) +
                            ": digits only, with '_' allowed between two digits");
            }
            if (!separator) plain.push_back(c);
        }
        int64_t value = 0;
        const auto parsed = std::from_chars(plain.data(), plain.data() + plain.size(), value);
        if (parsed.ec != std::errc() || parsed.ptr != plain.data() + plain.size()) {
            return fail("integer " + excerpt(token) + " does not fit in 64 bits");
        }
        entry.kind = Kind::kInteger;
        entry.values.push_back(std::to_string(value));
        return Status::Ok();
    }

    std::string_view source_;
    int line_number_ = 0;
    std::string_view line_text_;
    size_t pos_ = 0;
    std::vector<ConfigEntry> entries_;
    std::map<std::string, int, std::less<>> first_line_;  // key -> the line that set it
};

}  // namespace

std::string_view config_kind_name(ConfigEntry::Kind kind) {
    static constexpr std::string_view kNames[] = {"string", "integer", "boolean", "array"};
    return kNames[static_cast<size_t>(kind)];
}

Result<std::vector<ConfigEntry>> parse_config_text(std::string_view text,
                                                   std::string_view source_name) {
    return Parser(source_name).run(text);
}

Result<std::vector<ConfigEntry>> read_config_file(const std::string& path) {
    namespace fs = std::filesystem;
    const auto refuse = [&](const std::string& why) {
        return Status::InvalidArgument(path + ": " + why);
    };
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (status.type() == fs::file_type::not_found) return refuse("no such file");
    if (ec) return refuse("cannot be read: " + ec.message());
    if (fs::is_directory(status)) return refuse("is a directory, not a config file");
    if (!fs::is_regular_file(status)) return refuse("is not a regular file");
    const uintmax_t size_on_disk = fs::file_size(path, ec);
    if (!ec && size_on_disk > kMaxConfigFileBytes) {
        return too_large(path, std::to_string(size_on_disk));
    }

    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                         &std::fclose);
    if (!file) {
        return refuse("cannot be opened: " +
                      std::error_code(errno, std::generic_category()).message());
    }
    // One byte past the bound tells a file that is too large (or grew since
    // it was checked) without reading it all.
    std::string text(kMaxConfigFileBytes + 1, '\0');
    const size_t size = std::fread(text.data(), 1, text.size(), file.get());
    if (std::ferror(file.get())) return refuse("read failed");
    if (size > kMaxConfigFileBytes) {
        return too_large(path, "more than " + std::to_string(kMaxConfigFileBytes));
    }
    text.resize(size);
    return parse_config_text(text, path);
}

}  // namespace yuzu::app
