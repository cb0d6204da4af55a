// dump_json: the one way Yuzu turns nlohmann::json into text. Strings in a
// document may hold bytes that are not UTF-8 (a value cut at a byte limit,
// a raw header, a column read back from SQLite); nlohmann's default dump()
// throws type_error 316 on them, which would turn a readable answer into a
// 500. Policy: every invalid byte becomes U+FFFD, each document that needed
// it is counted (yuzu_json_invalid_utf8_total), and the dump never fails.
//
// Thread-safety: pure functions; the counter is a process-wide atomic.
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace yuzu {

// `value` as JSON text, exactly as value.dump(indent) writes it (UTF-8
// passed through, ensure_ascii off) when every string is valid UTF-8.
// Otherwise each invalid byte is written as U+FFFD and
// json_invalid_utf8_total() grows by one. Never throws type_error.
std::string dump_json(const nlohmann::json& value, int indent = -1);

// How many dump_json calls in this process replaced invalid UTF-8.
uint64_t json_invalid_utf8_total();

}  // namespace yuzu
