// Header field look-ups over cpp-httplib's parsed fields (Request::headers,
// Response::headers) by one pass that compares lengths first.
//
// cpp-httplib's own look-ups (get_header_value, has_header, ...) search its
// case-insensitive multimap, calling the locale's tolower for every
// character compared, and build a std::string key for each call; on the
// tools/call path they were several percent of the server's instructions.
// A request has a handful of fields (at most --max-header-count), so a scan
// is cheaper, and it finds the same field: names that are equal ignoring
// case sit together in the map, in arrival order, so the first one the scan
// meets is the first one received. (cpp-httplib's map folds case with the
// C locale's tolower, which is ASCII folding; the server never sets a locale.)
// Values are whole: cpp-httplib's own look-ups stop at a NUL byte, so
// check_request_framing refuses a value holding one before any handler runs.
//
// Templates over the map type, so this header does not pull in httplib.h.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "yuzu/common/ascii.hpp"

namespace yuzu::http {

// The first value of field `name`, or nullptr when the field is absent.
template <class Fields>
const std::string* find_field(const Fields& fields, std::string_view name) {
    for (const auto& field : fields) {
        if (iequals_ascii(field.first, name)) return &field.second;
    }
    return nullptr;
}

// The first value of field `name`, or "" when the field is absent (as
// get_header_value answers).
template <class Fields>
const std::string& field_value(const Fields& fields, std::string_view name) {
    static const std::string kAbsent;
    const std::string* value = find_field(fields, name);
    return value != nullptr ? *value : kAbsent;
}

// How many times field `name` was received.
template <class Fields>
size_t field_count(const Fields& fields, std::string_view name) {
    size_t n = 0;
    for (const auto& field : fields) {
        if (iequals_ascii(field.first, name)) ++n;
    }
    return n;
}

}  // namespace yuzu::http
