#include "agentapi/agent_bodies.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "yuzu/common/json_parse.hpp"
#include "yuzu/common/json_text.hpp"

namespace yuzu::agentapi {
namespace {

using nlohmann::json;

// Reads an optional string field; a present field of another type is an error.
Status read_string(const json& body, const char* key, std::string& out) {
    auto it = body.find(key);
    if (it == body.end() || it->is_null()) return Status::Ok();
    if (!it->is_string()) {
        return Status::InvalidArgument(std::string("field '") + key + "' must be a string");
    }
    out = it->get<std::string>();
    return Status::Ok();
}

std::optional<double> read_number(const json& obj, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

// A number an agent sent, truncated toward zero and saturated at int64's
// range: casting a double outside it (1e300, 1e400 read as infinity,
// 18446744073709551615 read as a double) is undefined behaviour.
int64_t saturating_int64(double v) {
    constexpr double kTwoTo63 = 9223372036854775808.0;
    if (std::isnan(v)) return 0;
    if (v >= kTwoTo63) return std::numeric_limits<int64_t>::max();
    if (v < -kTwoTo63) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(v);
}

}  // namespace

Result<json> parse_body_object(std::string_view body) {
    auto parsed = parse_json(body);
    if (!parsed.ok()) {
        return Status::InvalidArgument("request body must be a JSON object: " +
                                       parsed.status().message());
    }
    if (!parsed->is_object()) return Status::InvalidArgument("request body must be a JSON object");
    return parsed;
}

Result<EnrollRequest> read_enroll_body(const json& body) {
    EnrollRequest r;
    YUZU_RETURN_IF_ERROR(read_string(body, "enrollment_token", r.enrollment_token));
    YUZU_RETURN_IF_ERROR(read_string(body, "hostname", r.hostname));
    YUZU_RETURN_IF_ERROR(read_string(body, "os", r.os));
    YUZU_RETURN_IF_ERROR(read_string(body, "os_version", r.os_version));
    YUZU_RETURN_IF_ERROR(read_string(body, "arch", r.arch));
    YUZU_RETURN_IF_ERROR(read_string(body, "agent_version", r.agent_version));
    return r;
}

Result<Heartbeat> read_heartbeat_body(const json& body) {
    Heartbeat beat;
    YUZU_RETURN_IF_ERROR(read_string(body, "hostname", beat.hostname));
    YUZU_RETURN_IF_ERROR(read_string(body, "os", beat.os));
    YUZU_RETURN_IF_ERROR(read_string(body, "os_version", beat.os_version));
    YUZU_RETURN_IF_ERROR(read_string(body, "arch", beat.arch));
    YUZU_RETURN_IF_ERROR(read_string(body, "agent_version", beat.agent_version));
    if (auto up = read_number(body, "uptime_s"); up && *up >= 0) {
        beat.uptime_s = saturating_int64(*up);
    }
    if (auto it = body.find("perf"); it != body.end() && it->is_object()) {
        PerfSample perf;
        perf.cpu_pct = read_number(*it, "cpu_pct");
        perf.mem_used_pct = read_number(*it, "mem_used_pct");
        perf.disk_used_pct = read_number(*it, "disk_used_pct");
        perf.load1 = read_number(*it, "load1");
        beat.perf = perf;
    }
    return beat;
}

Result<std::string> read_inventory_digest(const json& body) {
    auto digest = body.find("sources_sha256");
    if (digest == body.end() || digest->is_null()) return std::string();
    const auto is_digest = [](const std::string& text) {
        return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
                   return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
               });
    };
    if (!digest->is_string() || !is_digest(digest->get_ref<const std::string&>())) {
        return Status::InvalidArgument("field 'sources_sha256' must be 64 lowercase hex digits");
    }
    return digest->get<std::string>();
}

bool has_inventory_sources(const json& body) {
    return body.contains("sources");
}

int64_t read_collected_at(const json& body) {
    auto at = read_number(body, "collected_at");
    return at && *at > 0 ? saturating_int64(*at) : 0;
}

Result<std::vector<InventoryItem>> read_inventory_body(const json& body,
                                                       const std::string& agent_id,
                                                       int64_t now_ms) {
    auto sources = body.find("sources");
    if (sources == body.end() || !sources->is_object()) {
        return Status::InvalidArgument("field 'sources' must be an object");
    }
    int64_t collected_at = now_ms;
    if (auto at = read_number(body, "collected_at"); at && *at > 0) {
        // An agent clock far ahead of ours would make its data look fresh
        // forever; never record a collection time in the future.
        collected_at = std::min(saturating_int64(*at), now_ms);
    }
    std::vector<InventoryItem> items;
    items.reserve(sources->size());
    for (const auto& [name, source] : sources->items()) {
        if (!source.is_object()) {
            return Status::InvalidArgument("source '" + name + "' must be an object");
        }
        InventoryItem item;
        item.agent_id = agent_id;
        item.source = name;
        YUZU_RETURN_IF_ERROR(read_string(source, "status", item.status));
        YUZU_RETURN_IF_ERROR(read_string(source, "reason", item.reason));
        // Bytes that are not UTF-8 become U+FFFD instead of a throw.
        auto data = source.find("data");
        item.data_json = data != source.end() ? dump_json(*data) : "null";
        item.collected_at_ms = collected_at;
        item.received_at_ms = now_ms;
        items.push_back(std::move(item));
    }
    return items;
}

Result<CommandResult> read_result_body(const json& body) {
    CommandResult r;
    YUZU_RETURN_IF_ERROR(read_string(body, "command_id", r.command_id));
    YUZU_RETURN_IF_ERROR(read_string(body, "status", r.status));
    YUZU_RETURN_IF_ERROR(read_string(body, "error", r.error));
    static constexpr std::string_view kStatuses[] = {"success", "failure", "refused", "timeout"};
    if (r.command_id.empty() ||
        std::find(std::begin(kStatuses), std::end(kStatuses), r.status) == std::end(kStatuses)) {
        return Status::InvalidArgument(
            "command_id is required and status must be success, failure, refused or timeout");
    }
    auto output = body.find("output");
    r.output_json = output != body.end() ? dump_json(*output) : "null";
    if (auto d = read_number(body, "duration_ms"); d && *d >= 0) {
        r.duration_ms = saturating_int64(*d);
    }
    return r;
}

}  // namespace yuzu::agentapi
