// libFuzzer target for what an enrolled agent sends the agent plane (built
// and run by scripts/fuzz.sh). Each input is one request body: it is parsed
// once as the routes parse it (parse_body_object), then read as each of the
// four bodies by the routes' own readers (agentapi/agent_bodies.hpp) —
// enrollment, heartbeat, inventory report, command result — and each value
// read is checked by the rule its service applies before storing it
// (check_self_description, check_heartbeat, check_inventory_report, and the
// execution module's canonical_output for a result's output). Invariants:
//   - nothing crashes, throws or trips a sanitizer;
//   - a body nested deeper than kMaxJsonDepth is always refused, and only
//     such a body is refused as too deep;
//   - a reader fails exactly when a field has the wrong type (or, for a
//     result, command_id or status is missing or unknown), and copies every
//     field it reads unchanged;
//   - whatever a service's rule accepts is within the documented limits of
//     docs/agent-protocol.md and field_rules.hpp / inventory_rules.hpp;
//   - every JSON text the readers produce parses back within the depth limit.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentapi/agent_bodies.hpp"
#include "execution/json_text.hpp"
#include "fleet/field_rules.hpp"
#include "fleet/inventory_rules.hpp"
#include "yuzu/common/json_parse.hpp"

namespace {

using nlohmann::json;
using yuzu::StatusCode;
namespace agentapi = yuzu::agentapi;
namespace fleet = yuzu::fleet;

// The limits the invariants check, as documented (server-admin.md's limits
// table, enrollment.hpp's EnrollRequest): a change to one is deliberate.
static_assert(yuzu::kMaxJsonDepth == 64);
static_assert(fleet::kMaxHostnameBytes == 253 && fleet::kMaxShortFieldBytes == 64);

constexpr int64_t kNowMs = 1'764'460'800'000;  // 2025-11-30T00:00:00Z
const std::string kAgentId = "0123456789abcdef0123456789abcdef";

std::string_view g_input;  // the current input, for fail()

[[noreturn]] void fail(const char* what, std::string_view detail = "") {
    std::fprintf(stderr, "agent body fuzz: %s\n  input (%zu bytes): %.*s\n  detail: %.*s\n", what,
                 g_input.size(), static_cast<int>(std::min<size_t>(g_input.size(), 2000)),
                 g_input.data(), static_cast<int>(std::min<size_t>(detail.size(), 2000)),
                 detail.data());
    std::abort();
}

void require(bool condition, const char* what, std::string_view detail = "") {
    if (!condition) fail(what, detail);
}

// UTF-8 validity by decoding, independently of field_rules.cpp's check:
// no overlong form, no surrogate, at most U+10FFFF. Fills `cps`.
bool decode_utf8(std::string_view s, std::vector<uint32_t>& cps) {
    cps.clear();
    for (size_t i = 0; i < s.size();) {
        const auto lead = static_cast<unsigned char>(s[i]);
        size_t n = 1;
        uint32_t cp = lead;
        uint32_t min = 0;
        if (lead >= 0xF0) {
            n = 4, cp = lead & 0x07u, min = 0x10000;
        } else if (lead >= 0xE0) {
            n = 3, cp = lead & 0x0Fu, min = 0x800;
        } else if (lead >= 0xC0) {
            n = 2, cp = lead & 0x1Fu, min = 0x80;
        } else if (lead >= 0x80) {
            return false;
        }
        if (lead >= 0xF8 || i + n > s.size()) return false;
        for (size_t k = 1; k < n; ++k) {
            const auto c = static_cast<unsigned char>(s[i + k]);
            if ((c & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (c & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        cps.push_back(cp);
        i += n;
    }
    return true;
}

// What check_text_field promises for an accepted value.
void require_text(std::string_view field, std::string_view value, size_t min, size_t max,
                  bool spaces) {
    static std::vector<uint32_t> cps;
    require(value.size() >= min && value.size() <= max, "accepted text outside its length bounds",
            field);
    require(decode_utf8(value, cps), "accepted text that is not UTF-8", field);
    for (uint32_t cp : cps) {
        require(cp >= 0x20 && cp != 0x7F && !(cp >= 0x80 && cp <= 0x9F),
                "accepted text with a control character", field);
        require(spaces || cp != ' ', "accepted a space where none is allowed", field);
    }
}

// The deepest nesting of [ and { outside strings, up to the first NUL byte
// outside a string (nlohmann's lexer reads that byte as the end of the
// input, so `{}\0anything` parses as `{}`). For a text that parses this is
// the depth the parser went through (the document's, unless a duplicate key
// replaced a deeper value); for any text it bounds what a parser that stops
// at the first error can have seen.
int text_depth(std::string_view s) {
    int depth = 0;
    int deepest = 0;
    bool in_string = false;
    bool escaped = false;
    for (char c : s) {
        if (in_string) {
            if (escaped) {
                escaped = false;
            } else if (c == '\\') {
                escaped = true;
            } else if (c == '"') {
                in_string = false;
            }
        } else if (c == '\0') {
            break;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

// Levels of containers in `value`, without recursing.
int value_depth(const json& value) {
    int deepest = 0;
    std::vector<std::pair<const json*, int>> todo{{&value, 0}};
    while (!todo.empty()) {
        auto [v, depth] = todo.back();
        todo.pop_back();
        if (!v->is_structured()) continue;
        deepest = std::max(deepest, depth + 1);
        for (const json& child : *v) todo.emplace_back(&child, depth + 1);
    }
    return deepest;
}

// True when `key` is absent, null or a string: what read_string accepts.
bool string_or_absent(const json& obj, const char* key) {
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() || it->is_string();
}

// The reader copied `key` unchanged (absent and null read as "").
void require_copied(const json& obj, const char* key, const std::string& read) {
    auto it = obj.find(key);
    const bool given = it != obj.end() && it->is_string();
    require(read == (given ? it->get_ref<const std::string&>() : std::string()),
            "a field was not copied unchanged", key);
}

bool number_at_least(const json& obj, const char* key, double min) {
    auto it = obj.find(key);
    return it != obj.end() && it->is_number() && it->get<double>() >= min;
}

// A JSON text this module produced parses back within the depth limit.
void require_reparses(const std::string& text, const char* what) {
    auto parsed = yuzu::parse_json(text);
    require(parsed.ok(), what, parsed.ok() ? "" : parsed.status().message());
}

void check_enroll(const json& body) {
    static constexpr const char* kFields[] = {"enrollment_token", "hostname", "os",
                                              "os_version",       "arch",     "agent_version"};
    bool well_typed = true;
    for (const char* f : kFields) well_typed = well_typed && string_or_absent(body, f);
    auto read = agentapi::read_enroll_body(body);
    require(read.ok() == well_typed, "enroll: success does not match the field types",
            read.ok() ? "" : read.status().message());
    if (!read.ok()) {
        require(read.status().code() == StatusCode::kInvalidArgument,
                "enroll: not InvalidArgument");
        return;
    }
    const fleet::EnrollRequest& r = *read;
    require_copied(body, "enrollment_token", r.enrollment_token);
    require_copied(body, "hostname", r.hostname);
    require_copied(body, "os", r.os);
    require_copied(body, "os_version", r.os_version);
    require_copied(body, "arch", r.arch);
    require_copied(body, "agent_version", r.agent_version);
    require(r.source_ip.empty(), "enroll: source_ip read from the body");
    // What EnrollmentService::enroll() checks once the token has the right shape.
    yuzu::Status s =
        fleet::check_self_description(r.hostname, r.os, r.os_version, r.arch, r.agent_version);
    if (!s.ok()) {
        require(s.code() == StatusCode::kInvalidArgument, "enroll: rule not InvalidArgument");
        return;
    }
    require_text("hostname", r.hostname, 1, fleet::kMaxHostnameBytes, false);
    require_text("os", r.os, 1, fleet::kMaxShortFieldBytes, false);
    require_text("os_version", r.os_version, 0, fleet::kMaxOsVersionBytes, true);
    require_text("arch", r.arch, 1, fleet::kMaxShortFieldBytes, false);
    require_text("agent_version", r.agent_version, 1, fleet::kMaxShortFieldBytes, false);
}

void require_percent(const std::optional<double>& v, const char* field) {
    require(!v || (std::isfinite(*v) && *v >= 0.0 && *v <= 100.0),
            "heartbeat: accepted a percentage outside 0..100", field);
}

void check_heartbeat(const json& body) {
    static constexpr const char* kFields[] = {"hostname", "os", "os_version", "arch",
                                              "agent_version"};
    bool well_typed = true;
    for (const char* f : kFields) well_typed = well_typed && string_or_absent(body, f);
    auto read = agentapi::read_heartbeat_body(body);
    require(read.ok() == well_typed, "heartbeat: success does not match the field types",
            read.ok() ? "" : read.status().message());
    if (!read.ok()) {
        require(read.status().code() == StatusCode::kInvalidArgument,
                "heartbeat: not InvalidArgument");
        return;
    }
    fleet::Heartbeat beat = std::move(read).value();
    require_copied(body, "hostname", beat.hostname);
    require_copied(body, "os", beat.os);
    require_copied(body, "os_version", beat.os_version);
    require_copied(body, "arch", beat.arch);
    require_copied(body, "agent_version", beat.agent_version);
    require(number_at_least(body, "uptime_s", 0) ? beat.uptime_s >= 0 : beat.uptime_s == -1,
            "heartbeat: uptime_s not read as documented");
    auto perf = body.find("perf");
    require(beat.perf.has_value() == (perf != body.end() && perf->is_object()),
            "heartbeat: perf present without an object, or missing with one");
    if (beat.perf) {
        require(beat.perf->at_ms == 0, "heartbeat: perf.at_ms read from the body");
        beat.perf->at_ms = kNowMs;  // as the route stamps it
    }
    yuzu::Status s = fleet::check_heartbeat(beat);
    if (!s.ok()) {
        require(s.code() == StatusCode::kInvalidArgument, "heartbeat: rule not InvalidArgument");
        return;
    }
    require_text("hostname", beat.hostname, 1, fleet::kMaxHostnameBytes, false);
    require_text("os", beat.os, 1, fleet::kMaxShortFieldBytes, false);
    require_text("os_version", beat.os_version, 0, fleet::kMaxOsVersionBytes, true);
    require_text("arch", beat.arch, 1, fleet::kMaxShortFieldBytes, false);
    require_text("agent_version", beat.agent_version, 1, fleet::kMaxShortFieldBytes, false);
    require(beat.uptime_s >= -1, "heartbeat: accepted uptime_s below -1");
    if (beat.perf) {
        require_percent(beat.perf->cpu_pct, "cpu_pct");
        require_percent(beat.perf->mem_used_pct, "mem_used_pct");
        require_percent(beat.perf->disk_used_pct, "disk_used_pct");
        require(!beat.perf->load1 || (std::isfinite(*beat.perf->load1) && *beat.perf->load1 >= 0),
                "heartbeat: accepted a negative or infinite load1");
    }
}

bool source_name(std::string_view s) {
    if (s.empty() || s.size() > 64) return false;
    for (char c : s) {
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    }
    return true;
}

void check_inventory(const json& body) {
    auto sources = body.find("sources");
    bool well_typed = sources != body.end() && sources->is_object();
    if (well_typed) {
        for (const auto& [name, source] : sources->items()) {
            well_typed = well_typed && source.is_object() && string_or_absent(source, "status") &&
                         string_or_absent(source, "reason");
        }
    }
    auto read = agentapi::read_inventory_body(body, kAgentId, kNowMs);
    require(read.ok() == well_typed, "inventory: success does not match the field types",
            read.ok() ? "" : read.status().message());
    if (!read.ok()) {
        require(read.status().code() == StatusCode::kInvalidArgument,
                "inventory: not InvalidArgument");
        return;
    }
    const std::vector<fleet::InventoryItem>& items = *read;
    require(items.size() == sources->size(), "inventory: not one item per source");
    size_t i = 0;
    bool has_packages = false;
    for (const auto& [name, source] : sources->items()) {
        const fleet::InventoryItem& item = items[i++];
        require(item.source == name, "inventory: item out of order or renamed", name);
        require(item.agent_id == kAgentId, "inventory: item for another agent");
        require_copied(source, "status", item.status);
        require_copied(source, "reason", item.reason);
        // 0 (from a collected_at under 1 ms) leaves the store to use now.
        require(item.collected_at_ms >= 0 && item.collected_at_ms <= kNowMs,
                "inventory: collected_at outside [0, now]");
        require(item.received_at_ms == kNowMs, "inventory: received_at is not now");
        require(source.contains("data") || item.data_json == "null",
                "inventory: data invented for a source without one");
        require_reparses(item.data_json, "inventory: data_json does not parse back");
        has_packages = has_packages || name == fleet::kPackagesSource;
    }

    auto checked = fleet::check_inventory_report(kAgentId, items, kNowMs);
    if (!checked.ok()) {
        const StatusCode code = checked.status().code();
        require(code == StatusCode::kInvalidArgument || code == StatusCode::kPayloadTooLarge,
                "inventory: rule neither InvalidArgument nor PayloadTooLarge",
                checked.status().to_string());
        return;
    }
    require(items.size() <= fleet::kMaxSourcesPerReport, "inventory: accepted too many sources");
    require(checked->items.size() == items.size(), "inventory: checked items lost or added");
    require(checked->packages.has_value() == has_packages,
            "inventory: packages index set without a packages source, or not set with one");
    std::set<std::string> names;
    for (size_t k = 0; k < items.size(); ++k) {
        const fleet::CheckedItem& c = checked->items[k];
        require(c.item == &items[k], "inventory: checked item points at another item");
        require(source_name(items[k].source), "inventory: accepted a bad source name",
                items[k].source);
        require(names.insert(items[k].source).second, "inventory: accepted a duplicate source");
        require(c.collected_at_ms > 0 && c.collected_at_ms <= kNowMs,
                "inventory: checked collected_at outside (0, now]");
        if (items[k].status == "unavailable") {
            require(c.data_json == "null", "inventory: data kept for an unavailable source");
            require_text("reason", c.reason, 0, fleet::kMaxReasonBytes, true);
        } else {
            require(items[k].status == "ok", "inventory: accepted an unknown status",
                    items[k].status);
            require(c.reason.empty(), "inventory: reason kept for an ok source");
            require(c.data_json.size() <= fleet::kMaxInventorySourceBytes,
                    "inventory: accepted data over the cap");
            require_reparses(c.data_json, "inventory: accepted data that does not parse");
        }
    }
}

void check_result(const json& body) {
    static const std::set<std::string, std::less<>> kStatuses = {"success", "failure", "refused",
                                                                 "timeout"};
    bool valid = string_or_absent(body, "command_id") && string_or_absent(body, "status") &&
                 string_or_absent(body, "error");
    if (valid) {
        auto id = body.find("command_id");
        auto status = body.find("status");
        valid = id != body.end() && id->is_string() && !id->get_ref<const std::string&>().empty() &&
                status != body.end() && status->is_string() &&
                kStatuses.count(status->get_ref<const std::string&>()) == 1;
    }
    auto read = agentapi::read_result_body(body);
    require(read.ok() == valid, "result: success does not match the fields",
            read.ok() ? "" : read.status().message());
    if (!read.ok()) {
        require(read.status().code() == StatusCode::kInvalidArgument,
                "result: not InvalidArgument");
        return;
    }
    const fleet::CommandResult& r = *read;
    require_copied(body, "command_id", r.command_id);
    require_copied(body, "status", r.status);
    require_copied(body, "error", r.error);
    require(number_at_least(body, "duration_ms", 0) ? r.duration_ms >= 0 : r.duration_ms == 0,
            "result: duration_ms not read as documented");
    require(r.received_at_ms == 0, "result: received_at read from the body");
    require(body.contains("output") || r.output_json == "null",
            "result: output invented for a result without one");
    require_reparses(r.output_json, "result: output_json does not parse back");
    // What ExecutionTracker::on_result stores: text that parsed once is kept
    // as it is, with no note added to the error.
    std::string error;
    const std::string stored = yuzu::execution::canonical_output(r.output_json, error);
    require(stored == r.output_json, "result: canonical output differs from the output read",
            stored);
    require(error.empty(), "result: a note was added for output that parsed", error);
}

std::string nested(int levels) {
    return std::string(static_cast<size_t>(levels - 1), '[') + "{}" +
           std::string(static_cast<size_t>(levels - 1), ']');
}

}  // namespace

// Pins the depth limit the invariants rely on: kMaxJsonDepth levels parse,
// one more does not.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
    g_input = "(initialisation)";
    const std::string at_limit = "{\"a\":" + nested(yuzu::kMaxJsonDepth - 1) + "}";
    const std::string over = "{\"a\":" + nested(yuzu::kMaxJsonDepth) + "}";
    require(text_depth(at_limit) == yuzu::kMaxJsonDepth, "depth scanner miscounts", at_limit);
    require(agentapi::parse_body_object(at_limit).ok(), "a body at the depth limit is refused");
    auto refused = agentapi::parse_body_object(over);
    require(
        !refused.ok() && refused.status().message().find("nested deeper than") != std::string::npos,
        "a body one level over the depth limit is not refused as too deep");
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    g_input = text;
    const int depth = text_depth(text);
    auto body = agentapi::parse_body_object(text);
    if (!body.ok()) {
        const yuzu::Status& s = body.status();
        require(s.code() == StatusCode::kInvalidArgument, "parse: not InvalidArgument",
                s.to_string());
        require(s.message().rfind("request body must be a JSON object", 0) == 0,
                "parse: message does not say what the body must be", s.message());
        const bool too_deep = s.message().find("nested deeper than") != std::string::npos;
        require(!too_deep || depth > yuzu::kMaxJsonDepth,
                "parse: a body within the depth limit refused as too deep", s.message());
        return 0;
    }
    require(body->is_object(), "parse: accepted a body that is not an object");
    require(depth <= yuzu::kMaxJsonDepth, "parse: accepted a body over the depth limit");
    // Shallower when a duplicate key replaced a deeper value.
    require(value_depth(*body) <= depth, "parse: document deeper than the text");

    check_enroll(*body);
    check_heartbeat(*body);
    check_inventory(*body);
    check_result(*body);
    return 0;
}
