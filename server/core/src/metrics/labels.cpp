#include "yuzu/metrics/labels.hpp"

namespace yuzu::metrics {
namespace {

bool IsAsciiLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsAsciiDigit(char c) {
    return c >= '0' && c <= '9';
}

}  // namespace

bool IsValidMetricName(std::string_view name) {
    if (name.empty()) return false;
    for (size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const bool ok = IsAsciiLetter(c) || c == '_' || c == ':' || (i > 0 && IsAsciiDigit(c));
        if (!ok) return false;
    }
    return true;
}

bool IsValidLabelName(std::string_view name) {
    if (name.empty() || name.starts_with("__")) return false;
    for (size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const bool ok = IsAsciiLetter(c) || c == '_' || (i > 0 && IsAsciiDigit(c));
        if (!ok) return false;
    }
    return true;
}

}  // namespace yuzu::metrics
