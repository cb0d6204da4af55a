// Small text helpers the inventory readers share: bounded file reads and
// line/field splitting for /proc-style files.
//
// Thread-safety: free functions without state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yuzu/common/status.hpp"

namespace yuzu::agent {

inline constexpr size_t kMaxProcFileBytes = size_t{8} * 1024 * 1024;

// The whole file (files under /proc report size 0, so this reads to EOF).
// NotFound when it does not exist, PayloadTooLarge over max_bytes,
// Unavailable for other errors (permission, I/O); messages name the path.
Result<std::string> read_text_file(const std::string& path, size_t max_bytes = kMaxProcFileBytes);

std::vector<std::string_view> split_lines(std::string_view text);
// Fields separated by runs of spaces or tabs.
std::vector<std::string_view> split_fields(std::string_view line);
std::string_view trim(std::string_view s);

std::optional<uint64_t> parse_u64(std::string_view s, int base = 10);
std::optional<int64_t> parse_i64(std::string_view s);
std::optional<double> parse_double(std::string_view s);

// Round to one decimal place, for percentages.
double round1(double v);

}  // namespace yuzu::agent
