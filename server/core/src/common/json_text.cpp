#include "yuzu/common/json_text.hpp"

#include <atomic>
#include <nlohmann/json.hpp>

namespace yuzu {
namespace {

// Only ever added to and read; nothing else is ordered by it.
std::atomic<uint64_t> g_invalid_utf8_total{0};

}  // namespace

std::string dump_json(const nlohmann::json& value, int indent) {
    using nlohmann::json;
    try {
        return value.dump(indent, ' ', /*ensure_ascii=*/false, json::error_handler_t::strict);
    } catch (const json::type_error&) {
        // 316 (invalid UTF-8) is the only type_error dump() throws.
        g_invalid_utf8_total.fetch_add(1, std::memory_order_relaxed);
    }
    return value.dump(indent, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
}

uint64_t json_invalid_utf8_total() {
    return g_invalid_utf8_total.load(std::memory_order_relaxed);
}

}  // namespace yuzu
