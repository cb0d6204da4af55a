// `pattern` / `patternProperties` regexes.
//
// Subjects come from remote callers, so matching must not backtrack: the
// default std::regex executor recurses once per input character (a long string
// overflows the stack) and can take exponential time. libstdc++'s
// __polynomial mode runs a breadth-first NFA simulation instead, and wrapping
// the pattern as [\s\S]*(?:P)[\s\S]* turns search into one full match, so a
// check is a single linear pass. ^ and $ still mean start and end of input.
// Code points (not UTF-8 bytes) are matched, so "." and [á-ú] behave.
#include <locale>

#include "jsonschema/json_schema_node.hpp"
#include "yuzu/jsonschema/json_schema.hpp"

#if !defined(__GLIBCXX__)
#error "json_schema_pattern.cpp relies on libstdc++'s linear-time regex mode (__polynomial)"
#endif

namespace yuzu::jsonschema::schema_detail {
namespace {

static_assert(sizeof(wchar_t) == sizeof(char32_t), "wregex must hold whole code points");

constexpr auto kRegexFlags = std::regex_constants::ECMAScript | std::regex_constants::nosubs |
                             std::regex_constants::__polynomial;

std::wstring to_wide(std::string_view utf8) {
    const std::u32string code_points = decode_utf8(utf8);
    return std::wstring(code_points.begin(), code_points.end());
}

// imbue() resets a regex, so the classic locale goes in before assign(); it
// keeps \w, \d and \s ASCII-only as ECMA-262 specifies, whatever the global locale.
std::shared_ptr<std::wregex> build_regex(const std::wstring& source) {
    auto regex = std::make_shared<std::wregex>();
    regex->imbue(std::locale::classic());
    regex->assign(source, kRegexFlags);
    return regex;
}

}  // namespace

Result<Pattern> Pattern::compile(std::string_view source) {
    const std::wstring wide = to_wide(source);
    try {
        // Compile the pattern on its own first: the wrapper could otherwise
        // balance a malformed source such as "a)|(b".
        build_regex(wide);
        auto wrapped = build_regex(L"[\\s\\S]*(?:" + wide + L")[\\s\\S]*");
        return Pattern(std::string(source), std::move(wrapped));
    } catch (const std::regex_error& e) {
        return Status::InvalidArgument("invalid regular expression /" + std::string(source) +
                                       "/: " + e.what());
    }
}

Pattern::Outcome Pattern::search(std::string_view utf8_subject) const {
    // Bytes bound code points from above, so short subjects skip the count.
    if (utf8_subject.size() > kMaxPatternSubjectCodePoints &&
        count_code_points(utf8_subject) > kMaxPatternSubjectCodePoints) {
        return Outcome::kTooLong;
    }
    const std::wstring subject = to_wide(utf8_subject);
    try {
        return std::regex_match(subject, *regex_) ? Outcome::kMatch : Outcome::kNoMatch;
    } catch (const std::exception&) {
        // Allocation failure or an executor limit: the subject was not checked.
        return Outcome::kError;
    }
}

}  // namespace yuzu::jsonschema::schema_detail
