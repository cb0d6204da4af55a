#include "yuzu/compliance/rule.hpp"

#include <array>
#include <nlohmann/json.hpp>

#include "yuzu/common/json_parse.hpp"
#include "yuzu/common/json_text.hpp"

namespace yuzu::compliance {
namespace {

using nlohmann::json;
constexpr FieldType S = FieldType::kString;
constexpr FieldType N = FieldType::kNumber;
constexpr FieldType B = FieldType::kBoolean;

// The shapes agents report (docs/agent-protocol.md, "Inventory"). Nested
// arrays (network addresses, reboot_pending packages) cannot be compared
// with a scalar and so are not listed.
constexpr std::array<FieldSpec, 4> kKernel{
    {{"sysname", S}, {"release", S}, {"version", S}, {"machine", S}}};
constexpr std::array<FieldSpec, 3> kHost{{{"hostname", S}, {"uptime_s", N}, {"boot_time", N}}};
constexpr std::array<FieldSpec, 5> kCpu{
    {{"count", N}, {"load1", N}, {"load5", N}, {"load15", N}, {"model", S}}};
constexpr std::array<FieldSpec, 4> kMemory{
    {{"total_bytes", N}, {"available_bytes", N}, {"swap_total_bytes", N}, {"swap_free_bytes", N}}};
constexpr std::array<FieldSpec, 6> kDisks{{{"mount", S},
                                           {"device", S},
                                           {"fstype", S},
                                           {"total_bytes", N},
                                           {"free_bytes", N},
                                           {"used_pct", N}}};
constexpr std::array<FieldSpec, 2> kNetwork{{{"name", S}, {"up", B}}};
constexpr std::array<FieldSpec, 3> kPackages{{{"name", S}, {"version", S}, {"arch", S}}};
constexpr std::array<FieldSpec, 5> kSockets{
    {{"protocol", S}, {"address", S}, {"port", N}, {"inode", N}, {"uid", N}}};
constexpr std::array<FieldSpec, 6> kProcesses{
    {{"pid", N}, {"ppid", N}, {"name", S}, {"user", S}, {"rss_bytes", N}, {"state", S}}};
constexpr std::array<FieldSpec, 1> kReboot{{{"pending", B}}};
constexpr std::array<FieldSpec, 4> kUnits{{{"unit", S}, {"load", S}, {"active", S}, {"sub", S}}};

const std::array<SourceSpec, 12> kSources{{
    {"os_release", false, {}, true},
    {"kernel", false, kKernel, false},
    {"host", false, kHost, false},
    {"cpu", false, kCpu, false},
    {"memory", false, kMemory, false},
    {"disks", true, kDisks, false},
    {"network", true, kNetwork, false},
    {"packages", true, kPackages, false},
    {"listening_sockets", true, kSockets, false},
    {"processes", true, kProcesses, false},
    {"reboot_pending", false, kReboot, false},
    {"systemd_units", true, kUnits, false},
}};

struct OpName {
    CompareOp op;
    std::string_view name;
};
constexpr std::array<OpName, 6> kOps{{{CompareOp::kEq, "eq"},
                                      {CompareOp::kNe, "ne"},
                                      {CompareOp::kLt, "lt"},
                                      {CompareOp::kLe, "le"},
                                      {CompareOp::kGt, "gt"},
                                      {CompareOp::kGe, "ge"}}};

std::string_view type_name(FieldType t) {
    switch (t) {
        case FieldType::kString:
            return "a string";
        case FieldType::kNumber:
            return "a number";
        case FieldType::kBoolean:
            return "a boolean";
    }
    return "?";
}

std::string source_list() {
    std::string out;
    for (const auto& s : kSources) {
        if (!out.empty()) out += ", ";
        out += s.name;
    }
    return out;
}

std::string field_list(const SourceSpec& source) {
    std::string out;
    for (const auto& f : source.fields) {
        if (!out.empty()) out += ", ";
        out += f.name;
    }
    return out;
}

bool is_key_name(std::string_view s) {
    if (s.empty() || s.size() > 64) return false;
    for (char c : s) {
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
    }
    return true;
}

Status refuse(const std::string& path, const std::string& why) {
    return Status::InvalidArgument(path + ": " + why);
}

Status check_keys(const json& object, const std::string& path,
                  std::initializer_list<std::string_view> allowed) {
    for (auto it = object.begin(); it != object.end(); ++it) {
        bool known = false;
        for (auto a : allowed) known = known || it.key() == a;
        if (known) continue;
        std::string names;
        for (auto a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
        return refuse(path, "unknown key '" + it.key() + "' (allowed: " + names + ")");
    }
    return Status::Ok();
}

Result<FieldType> field_type(const SourceSpec& source, const std::string& field,
                             const std::string& path) {
    for (const auto& f : source.fields) {
        if (f.name == field) return f.type;
    }
    if (source.any_string_field && is_key_name(field)) return FieldType::kString;
    if (source.any_string_field) {
        return refuse(path, "'" + field + "' is not an os_release key ([a-z0-9_]{1,64})");
    }
    return refuse(path, "source '" + std::string(source.name) + "' has no field '" + field +
                            "' (fields: " + field_list(source) + ")");
}

Result<Condition> parse_condition(const SourceSpec& source, const json& j,
                                  const std::string& path) {
    if (!j.is_object()) return refuse(path, "a condition must be an object {field, op, value}");
    YUZU_RETURN_IF_ERROR(check_keys(j, path, {"field", "op", "value"}));
    for (const char* key : {"field", "op", "value"}) {
        if (!j.contains(key)) return refuse(path + "." + key, "missing");
    }
    if (!j["field"].is_string()) return refuse(path + ".field", "must be a string");
    if (!j["op"].is_string()) return refuse(path + ".op", "must be a string");
    Condition c;
    c.field = j["field"].get<std::string>();
    auto type = field_type(source, c.field, path + ".field");
    if (!type.ok()) return type.status();

    const std::string op = j["op"].get<std::string>();
    bool op_known = false;
    for (const auto& o : kOps) {
        if (o.name == op) {
            c.op = o.op;
            op_known = true;
        }
    }
    if (!op_known) {
        return refuse(path + ".op", "unknown operator '" + op + "' (use eq, ne, lt, le, gt, ge)");
    }
    const bool ordering = c.op != CompareOp::kEq && c.op != CompareOp::kNe;
    if (ordering && *type != FieldType::kNumber) {
        return refuse(path + ".op", "'" + op + "' compares numbers; field '" + c.field + "' is " +
                                        std::string(type_name(*type)) + " (use eq or ne)");
    }

    const json& v = j["value"];
    const std::string vpath = path + ".value";
    switch (*type) {
        case FieldType::kString:
            if (!v.is_string()) return refuse(vpath, "field '" + c.field + "' needs a string");
            if (v.get_ref<const std::string&>().size() > kMaxRuleStringValueBytes) {
                return refuse(vpath,
                              "longer than " + std::to_string(kMaxRuleStringValueBytes) + " bytes");
            }
            c.value = v.get<std::string>();
            break;
        case FieldType::kNumber:
            if (!v.is_number()) return refuse(vpath, "field '" + c.field + "' needs a number");
            if (v.is_number_float()) {
                c.value = v.get<double>();
            } else if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX}) {
                return refuse(vpath, "number out of range");
            } else {
                c.value = v.get<int64_t>();
            }
            break;
        case FieldType::kBoolean:
            if (!v.is_boolean())
                return refuse(vpath, "field '" + c.field + "' needs true or false");
            c.value = v.get<bool>();
            break;
    }
    return c;
}

json value_json(const RuleValue& v) {
    return std::visit([](const auto& x) { return json(x); }, v);
}

}  // namespace

std::string_view op_name(CompareOp op) {
    for (const auto& o : kOps) {
        if (o.op == op) return o.name;
    }
    return "?";
}

std::string_view mode_name(RuleMode mode) {
    switch (mode) {
        case RuleMode::kAll:
            return "all";
        case RuleMode::kAny:
            return "any";
        case RuleMode::kNone:
            return "none";
    }
    return "?";
}

std::span<const SourceSpec> rule_sources() {
    return kSources;
}

const SourceSpec* find_source(std::string_view name) {
    for (const auto& s : kSources) {
        if (s.name == name) return &s;
    }
    return nullptr;
}

Result<Rule> parse_rule(const json& j) {
    if (!j.is_object()) {
        return refuse("rule", "must be an object {source, select, assert, mode}");
    }
    YUZU_RETURN_IF_ERROR(check_keys(j, "rule", {"source", "select", "assert", "mode"}));
    Rule rule;
    auto source_it = j.find("source");
    if (source_it == j.end()) return refuse("rule.source", "missing");
    if (!source_it->is_string()) return refuse("rule.source", "must be a string");
    rule.source = source_it->get<std::string>();
    const SourceSpec* source = find_source(rule.source);
    if (source == nullptr) {
        return refuse("rule.source", "unknown inventory source '" + rule.source +
                                         "' (known: " + source_list() + ")");
    }

    auto mode_it = j.find("mode");
    if (mode_it == j.end()) return refuse("rule.mode", "missing (all, any or none)");
    if (!mode_it->is_string()) return refuse("rule.mode", "must be a string");
    const std::string mode = mode_it->get<std::string>();
    if (mode == "all") {
        rule.mode = RuleMode::kAll;
    } else if (mode == "any") {
        rule.mode = RuleMode::kAny;
    } else if (mode == "none") {
        rule.mode = RuleMode::kNone;
    } else {
        return refuse("rule.mode", "unknown mode '" + mode + "' (use all, any or none)");
    }

    if (auto it = j.find("select"); it != j.end() && !it->is_null()) {
        if (!it->is_array()) return refuse("rule.select", "must be an array of conditions");
        if (it->size() > kMaxSelectConditions) {
            return refuse("rule.select",
                          "at most " + std::to_string(kMaxSelectConditions) + " conditions");
        }
        for (size_t i = 0; i < it->size(); ++i) {
            auto c = parse_condition(*source, (*it)[i], "rule.select[" + std::to_string(i) + "]");
            if (!c.ok()) return c.status();
            rule.select.push_back(std::move(c).value());
        }
    }

    if (auto it = j.find("assert"); it != j.end() && !it->is_null()) {
        auto c = parse_condition(*source, *it, "rule.assert");
        if (!c.ok()) return c.status();
        rule.assertion = std::move(c).value();
    }
    if (rule.mode == RuleMode::kAll && !rule.assertion) {
        return refuse("rule.assert", "mode 'all' needs a condition every selected element meets");
    }
    if (rule.mode == RuleMode::kNone && rule.assertion) {
        return refuse("rule.assert",
                      "must be null in mode 'none' (the rule is "
                      "that nothing matches select)");
    }
    return rule;
}

Result<Rule> parse_rule_text(std::string_view text) {
    auto j = parse_json_or_discarded(text);
    if (j.is_discarded()) return refuse("rule", "is not valid JSON");
    return parse_rule(j);
}

json to_json(const Rule& rule) {
    auto condition = [](const Condition& c) {
        return json{{"field", c.field}, {"op", op_name(c.op)}, {"value", value_json(c.value)}};
    };
    json select = json::array();
    for (const auto& c : rule.select) select.push_back(condition(c));
    return json{{"source", rule.source},
                {"select", std::move(select)},
                {"assert", rule.assertion ? condition(*rule.assertion) : json(nullptr)},
                {"mode", mode_name(rule.mode)}};
}

std::string describe(const Condition& c) {
    return c.field + " " + std::string(op_name(c.op)) + " " + dump_json(value_json(c.value));
}

std::string describe(const std::vector<Condition>& conditions) {
    std::string out;
    for (const auto& c : conditions) {
        if (!out.empty()) out += " and ";
        out += describe(c);
    }
    return out;
}

}  // namespace yuzu::compliance
