#include "yuzu/approval/canonical_json.hpp"

#include <nlohmann/json.hpp>

namespace yuzu::approval {

// nlohmann::json keeps objects in a std::map<std::string, ...>, ordered by
// std::char_traits<char>::compare, i.e. by unsigned byte value; dump() with
// no indent writes no whitespace. Both are what canonical form needs.
static_assert(std::is_same_v<nlohmann::json::object_t::key_compare, std::less<>> ||
                  std::is_same_v<nlohmann::json::object_t::key_compare, std::less<std::string>>,
              "canonical_json relies on nlohmann::json objects being sorted maps");

std::string canonical_json(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string canonical_arguments(const nlohmann::json& arguments) {
    if (!arguments.is_object() || !arguments.contains("approval_id")) {
        return canonical_json(arguments);
    }
    nlohmann::json copy = arguments;
    copy.erase("approval_id");
    return canonical_json(copy);
}

}  // namespace yuzu::approval
