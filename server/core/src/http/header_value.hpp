// Small helpers for HTTP header values, shared by the http module's files.
#pragma once

#include <string_view>

namespace yuzu::http {

// A header value without the optional whitespace (spaces, tabs) around it.
inline std::string_view trim_ows(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

}  // namespace yuzu::http
