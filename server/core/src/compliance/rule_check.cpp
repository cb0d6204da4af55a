#include "yuzu/compliance/rule_check.hpp"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "yuzu/common/json_parse.hpp"
#include "yuzu/common/json_text.hpp"

namespace yuzu::compliance {
namespace {

using nlohmann::json;

enum class Truth { kFalse, kTrue, kUnknown };

// Numbers compare exactly when both are integers, else as doubles.
int compare_numbers(const json& field, const RuleValue& value) {
    if (field.is_number_integer() && std::holds_alternative<int64_t>(value)) {
        const int64_t b = std::get<int64_t>(value);
        if (field.is_number_unsigned() && field.get<uint64_t>() > uint64_t{INT64_MAX}) return 1;
        const int64_t a = field.get<int64_t>();
        return a < b ? -1 : (a > b ? 1 : 0);
    }
    const double a = field.get<double>();
    const double b = std::holds_alternative<int64_t>(value)
                         ? static_cast<double>(std::get<int64_t>(value))
                         : std::get<double>(value);
    return a < b ? -1 : (a > b ? 1 : 0);
}

Truth from_order(CompareOp op, int cmp) {
    bool r = false;
    switch (op) {
        case CompareOp::kEq:
            r = cmp == 0;
            break;
        case CompareOp::kNe:
            r = cmp != 0;
            break;
        case CompareOp::kLt:
            r = cmp < 0;
            break;
        case CompareOp::kLe:
            r = cmp <= 0;
            break;
        case CompareOp::kGt:
            r = cmp > 0;
            break;
        case CompareOp::kGe:
            r = cmp >= 0;
            break;
    }
    return r ? Truth::kTrue : Truth::kFalse;
}

// A missing field, or one of another type than the rule expects, cannot be
// judged: unknown, never false.
Truth test(const Condition& c, const json& element) {
    if (!element.is_object()) return Truth::kUnknown;
    auto it = element.find(c.field);
    if (it == element.end() || it->is_null()) return Truth::kUnknown;
    if (std::holds_alternative<bool>(c.value)) {
        if (!it->is_boolean()) return Truth::kUnknown;
        return from_order(c.op, it->get<bool>() == std::get<bool>(c.value) ? 0 : 1);
    }
    if (std::holds_alternative<std::string>(c.value)) {
        if (!it->is_string()) return Truth::kUnknown;
        const int cmp = it->get_ref<const std::string&>().compare(std::get<std::string>(c.value));
        return from_order(c.op, cmp);
    }
    if (!it->is_number()) return Truth::kUnknown;
    if (it->is_number_float() && !std::isfinite(it->get<double>())) return Truth::kUnknown;
    return from_order(c.op, compare_numbers(*it, c.value));
}

bool selected(const Rule& rule, const json& element) {
    if (!element.is_object()) return false;
    for (const auto& c : rule.select) {
        if (test(c, element) != Truth::kTrue) return false;
    }
    return true;
}

std::string text_of(const json& v) {
    return v.is_string() ? v.get<std::string>() : dump_json(v);
}

std::string field_text(const json& element, const std::string& field) {
    auto it = element.find(field);
    return it == element.end() ? std::string() : text_of(*it);
}

// Which element a detail talks about: "/" for a disk, "tcp 0.0.0.0:22" for a
// socket. Empty for object sources (there is only one element).
std::string label_of(const std::string& source, const json& element) {
    if (!element.is_object()) return "";
    if (source == "disks") return field_text(element, "mount");
    if (source == "listening_sockets") {
        return field_text(element, "protocol") + " " + field_text(element, "address") + ":" +
               field_text(element, "port");
    }
    if (source == "packages") {
        return field_text(element, "name") + " " + field_text(element, "version");
    }
    if (source == "processes") {
        return field_text(element, "name") + " (pid " + field_text(element, "pid") + ")";
    }
    if (source == "systemd_units") return field_text(element, "unit");
    if (source == "network") return field_text(element, "name");
    return "";
}

std::string on_label(const std::string& label) {
    return label.empty() ? "" : " on " + label;
}

// "used_pct 93.5 on /" — the element's actual value of the asserted field.
std::string observed(const Rule& rule, const Condition& c, const json& element) {
    auto it = element.find(c.field);
    const std::string value = it == element.end() || it->is_null() ? "missing" : dump_json(*it);
    return c.field + " " + value + on_label(label_of(rule.source, element));
}

std::string no_match(const Rule& rule) {
    if (rule.select.empty()) return "no " + rule.source + " entries reported";
    return "no " + rule.source + " entry matches " + describe(rule.select);
}

CheckOutcome outcome(CheckStatus status, std::string detail) {
    if (detail.size() > kMaxDetailBytes) {
        detail.resize(kMaxDetailBytes - 3);
        detail += "...";
    }
    return CheckOutcome{status, std::move(detail)};
}

std::string and_more(size_t extra) {
    return extra == 0 ? "" : " (and " + std::to_string(extra) + " more)";
}

CheckOutcome judge_all(const Rule& rule, const std::vector<const json*>& chosen) {
    if (chosen.empty()) return outcome(CheckStatus::kNonCompliant, no_match(rule));
    const Condition& a = *rule.assertion;
    const json* first_bad = nullptr;
    const json* first_unknown = nullptr;
    size_t bad = 0;
    for (const json* e : chosen) {
        const Truth t = test(a, *e);
        if (t == Truth::kFalse && bad++ == 0) first_bad = e;
        if (t == Truth::kUnknown && first_unknown == nullptr) first_unknown = e;
    }
    if (first_bad != nullptr) {
        return outcome(CheckStatus::kNonCompliant,
                       observed(rule, a, *first_bad) + and_more(bad - 1));
    }
    if (first_unknown != nullptr) {
        return outcome(CheckStatus::kUnknown, observed(rule, a, *first_unknown));
    }
    if (chosen.size() == 1) return outcome(CheckStatus::kCompliant, observed(rule, a, *chosen[0]));
    return outcome(CheckStatus::kCompliant, std::to_string(chosen.size()) + " " + rule.source +
                                                " entries meet " + describe(a));
}

CheckOutcome judge_any(const Rule& rule, const std::vector<const json*>& chosen) {
    if (!rule.assertion) {
        if (chosen.empty()) return outcome(CheckStatus::kNonCompliant, no_match(rule));
        const std::string label = label_of(rule.source, *chosen[0]);
        return outcome(CheckStatus::kCompliant,
                       "found " + (label.empty() ? rule.source + " entry" : label) +
                           and_more(chosen.size() - 1));
    }
    const Condition& a = *rule.assertion;
    bool unknown = false;
    for (const json* e : chosen) {
        const Truth t = test(a, *e);
        if (t == Truth::kTrue) return outcome(CheckStatus::kCompliant, observed(rule, a, *e));
        unknown = unknown || t == Truth::kUnknown;
    }
    if (chosen.empty()) return outcome(CheckStatus::kNonCompliant, no_match(rule));
    if (unknown) {
        return outcome(CheckStatus::kUnknown,
                       a.field + " missing on a selected " + rule.source + " entry");
    }
    return outcome(CheckStatus::kNonCompliant, "none of " + std::to_string(chosen.size()) + " " +
                                                   rule.source + " entries meets " + describe(a));
}

CheckOutcome judge_none(const Rule& rule, const std::vector<const json*>& chosen) {
    if (chosen.empty()) return outcome(CheckStatus::kCompliant, no_match(rule));
    const std::string label = label_of(rule.source, *chosen[0]);
    return outcome(
        CheckStatus::kNonCompliant,
        "found " + (label.empty() ? rule.source + " matching " + describe(rule.select) : label) +
            and_more(chosen.size() - 1));
}

}  // namespace

std::string_view check_status_name(CheckStatus status) {
    switch (status) {
        case CheckStatus::kCompliant:
            return "compliant";
        case CheckStatus::kNonCompliant:
            return "non_compliant";
        case CheckStatus::kUnknown:
            return "unknown";
    }
    return "unknown";
}

std::optional<CheckStatus> parse_check_status(std::string_view name) {
    if (name == "compliant") return CheckStatus::kCompliant;
    if (name == "non_compliant") return CheckStatus::kNonCompliant;
    if (name == "unknown") return CheckStatus::kUnknown;
    return std::nullopt;
}

CheckOutcome apply_rule(const Rule& rule, const json& data) {
    const SourceSpec* source = find_source(rule.source);
    if (source == nullptr) return outcome(CheckStatus::kUnknown, "unknown source " + rule.source);
    std::vector<const json*> chosen;
    if (source->is_array) {
        if (!data.is_array()) {
            return outcome(CheckStatus::kUnknown, rule.source + " data is not a list");
        }
        for (const json& e : data) {
            if (selected(rule, e)) chosen.push_back(&e);
        }
    } else {
        if (!data.is_object()) {
            return outcome(CheckStatus::kUnknown, rule.source + " data is not an object");
        }
        if (selected(rule, data)) chosen.push_back(&data);
    }
    switch (rule.mode) {
        case RuleMode::kAll:
            return judge_all(rule, chosen);
        case RuleMode::kAny:
            return judge_any(rule, chosen);
        case RuleMode::kNone:
            return judge_none(rule, chosen);
    }
    return outcome(CheckStatus::kUnknown, "unknown rule mode");
}

CheckOutcome check_inventory(const Rule& rule, const fleet::InventoryItem* item, int64_t now_ms,
                             int64_t stale_after_ms) {
    if (item == nullptr) {
        return outcome(CheckStatus::kUnknown, "no " + rule.source + " inventory reported");
    }
    if (item->status != "ok") {
        return outcome(
            CheckStatus::kUnknown,
            rule.source + " unavailable" + (item->reason.empty() ? "" : ": ") + item->reason);
    }
    const int64_t received =
        item->received_at_ms != 0 ? item->received_at_ms : item->collected_at_ms;
    const int64_t age = now_ms - received;
    if (age > stale_after_ms) {
        return outcome(CheckStatus::kUnknown, rule.source + " inventory is " +
                                                  human_duration_ms(age) + " old (limit " +
                                                  human_duration_ms(stale_after_ms) + ")");
    }
    auto data = parse_json_or_discarded(item->data_json);
    if (data.is_discarded()) {
        return outcome(CheckStatus::kUnknown, rule.source + " data is not valid JSON");
    }
    return apply_rule(rule, data);
}

std::string human_duration_ms(int64_t ms) {
    const int64_t s = std::max<int64_t>(0, ms / 1000);
    if (s < 60) return std::to_string(s) + "s";
    if (s < 3600) return std::to_string(s / 60) + "m";
    if (s < 86400) {
        const int64_t m = (s % 3600) / 60;
        return std::to_string(s / 3600) + "h" + (m ? " " + std::to_string(m) + "m" : "");
    }
    const int64_t h = (s % 86400) / 3600;
    return std::to_string(s / 86400) + "d" + (h ? " " + std::to_string(h) + "h" : "");
}

}  // namespace yuzu::compliance
