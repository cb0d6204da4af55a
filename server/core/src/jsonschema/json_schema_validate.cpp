// Evaluating a compiled schema against an instance.
//
// Keywords run in one fixed order per schema node, so the first violation is
// deterministic: $ref, type, enum, const, numeric, string, object (required,
// counts, properties, then members in key order), array, allOf, anyOf, oneOf,
// not. Recursion is bounded twice: instances deeper than kMaxInstanceDepth are
// rejected by an iterative scan before evaluation starts, and every nested
// schema application counts against kMaxEvaluationDepth.
#include <algorithm>
#include <numeric>

#include "jsonschema/json_schema_node.hpp"

namespace yuzu::jsonschema::schema_detail {
namespace {

using nlohmann::json;

struct PathSegment {
    std::string_view key;  // points into the instance, which outlives evaluation
    std::size_t index = 0;
    bool is_index = false;
};

using Path = std::vector<PathSegment>;

std::string pointer_of(const Path& path) {
    std::string out;
    for (const PathSegment& seg : path) {
        out += '/';
        if (seg.is_index) {
            out += std::to_string(seg.index);
            continue;
        }
        for (char c : seg.key) {
            if (c == '~') {
                out += "~0";
            } else if (c == '/') {
                out += "~1";
            } else {
                out += c;
            }
        }
    }
    return out;
}

bool reads_as_identifier(std::string_view key) {
    return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-';
    });
}

// "steps[2].plugin"; odd keys are quoted: headers["x y"]; the root is "(root)".
std::string readable_path(const Path& path) {
    if (path.empty()) return "(root)";
    std::string out;
    for (const PathSegment& seg : path) {
        if (seg.is_index) {
            out += "[" + std::to_string(seg.index) + "]";
        } else if (reads_as_identifier(seg.key)) {
            if (!out.empty()) out += '.';
            out += seg.key;
        } else {
            out += "[" + render_value(json(std::string(seg.key)), std::string::npos) + "]";
        }
    }
    return out;
}

// A violation before it is rendered: anyOf/oneOf quote their alternatives'
// details without repeating the path.
struct Finding {
    Path path;
    std::string keyword;
    std::string detail;
};

SchemaViolation to_violation(const Finding& f) {
    return {pointer_of(f.path), f.keyword, readable_path(f.path) + ": " + f.detail};
}

bool type_matches(std::uint8_t types, const json& v) {
    switch (v.type()) {
        case json::value_t::null:
            return types & kTypeNull;
        case json::value_t::boolean:
            return types & kTypeBoolean;
        case json::value_t::object:
            return types & kTypeObject;
        case json::value_t::array:
            return types & kTypeArray;
        case json::value_t::string:
            return types & kTypeString;
        case json::value_t::number_integer:
        case json::value_t::number_unsigned:
        case json::value_t::number_float:
            return (types & kTypeNumber) || ((types & kTypeInteger) && is_integral_number(v));
        default:
            return false;
    }
}

std::string describe_types(std::uint8_t types) {
    static constexpr std::pair<std::uint8_t, std::string_view> kNames[] = {
        {kTypeObject, "object"},   {kTypeArray, "array"},   {kTypeString, "string"},
        {kTypeInteger, "integer"}, {kTypeNumber, "number"}, {kTypeBoolean, "boolean"},
        {kTypeNull, "null"},
    };
    std::vector<std::string_view> names;
    for (const auto& [bit, name] : kNames) {
        if (types & bit) names.push_back(name);
    }
    std::string out = "of type ";
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += (i + 1 == names.size()) ? " or " : ", ";
        out += names[i];
    }
    return out;
}

template <typename Items, typename Render>
std::string join_limited(const Items& items, std::size_t limit, Render render,
                         std::string_view separator = ", ") {
    std::string out;
    std::size_t shown = 0;
    for (const auto& item : items) {
        if (shown == limit) {
            out +=
                std::string(separator) + "... (" + std::to_string(items.size() - limit) + " more)";
            break;
        }
        if (shown++ > 0) out += separator;
        out += render(item);
    }
    return out;
}

std::string plural(std::uint64_t n, std::string_view noun) {
    return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

class Evaluator {
  public:
    Evaluator(const CompiledSchema& schema, std::vector<Finding>& sink, std::size_t limit)
        : schema_(schema), sink_(&sink), limit_(limit) {}

    // True when `instance` satisfies node `id`; failures go to the sink until
    // it holds `limit` findings, after which evaluation stops early.
    bool apply(NodeId id, const json& instance, std::size_t depth) {
        if (depth > kMaxEvaluationDepth) {
            return fail("depth", "schema evaluation is nested deeper than " +
                                     std::to_string(kMaxEvaluationDepth) + " levels");
        }
        const SchemaNode& node = schema_.nodes[id];
        if (node.boolean_schema) {
            return *node.boolean_schema || fail("false", "is not allowed here");
        }

        bool valid = true;
        // Records one check's outcome; false once the sink is full.
        const auto keep_going = [&](bool ok) {
            valid = valid && ok;
            return !full();
        };
        if (node.ref != kNoNode && !keep_going(apply(node.ref, instance, depth + 1))) return false;
        if (!keep_going(check_value(node, instance))) return false;
        if (instance.is_number() && !keep_going(check_number(node, instance))) return false;
        if (instance.is_string() && !keep_going(check_string(node, instance))) return false;
        if (instance.is_object() && !keep_going(check_object(node, instance, depth))) return false;
        if (instance.is_array() && !keep_going(check_array(node, instance, depth))) return false;
        if (!keep_going(check_combinators(node, instance, depth))) return false;
        return valid;
    }

  private:
    struct Trial {
        bool valid = true;
        std::optional<Finding> first;
    };

    bool full() const { return sink_->size() >= limit_; }

    bool fail(std::string keyword, std::string detail) {
        sink_->push_back({path_, std::move(keyword), std::move(detail)});
        return false;
    }

    bool fail_at(const PathSegment& child, std::string keyword, std::string detail) {
        path_.push_back(child);
        fail(std::move(keyword), std::move(detail));
        path_.pop_back();
        return false;
    }

    bool apply_at(const PathSegment& child, NodeId id, const json& value, std::size_t depth) {
        path_.push_back(child);
        const bool ok = apply(id, value, depth + 1);
        path_.pop_back();
        return ok;
    }

    // Evaluates `id` on the side, only to learn whether it holds; the sink and
    // limit are swapped for a private one-finding sink meanwhile.
    Trial trial(NodeId id, const json& instance, std::size_t depth) {
        std::vector<Finding> local;
        std::vector<Finding>* const saved_sink = sink_;
        const std::size_t saved_limit = limit_;
        sink_ = &local;
        limit_ = 1;
        Trial t;
        t.valid = apply(id, instance, depth + 1);
        sink_ = saved_sink;
        limit_ = saved_limit;
        if (!local.empty()) t.first = std::move(local.front());
        return t;
    }

    // An exhausted depth budget says nothing about the alternative, so it must
    // not let `not` or anyOf pass: it is reported as itself.
    static bool hit_depth_bound(const Trial& t) { return t.first && t.first->keyword == "depth"; }

    std::string summarize(const Finding& f) const {
        if (f.path.size() == path_.size()) return f.detail;
        return "at " + readable_path(f.path) + ": " + f.detail;
    }

    bool check_value(const SchemaNode& node, const json& instance) {
        bool valid = true;
        if (node.types != 0 && !type_matches(node.types, instance)) {
            valid = fail("type", "must be " + describe_types(node.types) + ", got " +
                                     std::string(instance_type_name(instance)));
            if (full()) return false;
        }
        if (!node.enum_values.empty() &&
            std::none_of(node.enum_values.begin(), node.enum_values.end(),
                         [&](const json& v) { return values_equal(v, instance); })) {
            valid = fail("enum",
                         "must be one of: " + join_limited(node.enum_values, 10, [](const json& v) {
                             return render_value(v, 40);
                         }));
            if (full()) return false;
        }
        if (node.const_value && !values_equal(*node.const_value, instance)) {
            valid = fail("const", "must equal " + render_value(*node.const_value));
        }
        return valid;
    }

    bool check_number(const SchemaNode& node, const json& x) {
        const std::string got = ", got " + render_value(x);
        struct Bound {
            const std::optional<json>& limit;
            const char* keyword;
            const char* relation;
            bool (*holds)(std::partial_ordering);
        };
        const Bound bounds[] = {
            {node.minimum, "minimum", ">=", [](std::partial_ordering o) { return o >= 0; }},
            {node.exclusive_minimum, "exclusiveMinimum", ">",
             [](std::partial_ordering o) { return o > 0; }},
            {node.maximum, "maximum", "<=", [](std::partial_ordering o) { return o <= 0; }},
            {node.exclusive_maximum, "exclusiveMaximum", "<",
             [](std::partial_ordering o) { return o < 0; }},
        };
        bool valid = true;
        for (const Bound& b : bounds) {
            if (b.limit && !b.holds(compare_numbers(x, *b.limit))) {
                valid = fail(b.keyword, std::string("must be ") + b.relation + " " +
                                            render_value(*b.limit) + got);
                if (full()) return false;
            }
        }
        if (node.multiple_of && !is_multiple_of(x, *node.multiple_of)) {
            valid = fail("multipleOf",
                         "must be a multiple of " + render_value(*node.multiple_of) + got);
        }
        return valid;
    }

    bool check_string(const SchemaNode& node, const json& instance) {
        const std::string& s = instance.get_ref<const std::string&>();
        bool valid = true;
        if (node.min_length || node.max_length) {
            const std::size_t length = count_code_points(s);
            const std::string got = ", got " + std::to_string(length);
            if (node.min_length && length < *node.min_length) {
                valid =
                    fail("minLength", "must be at least " + plural(*node.min_length, "character") +
                                          " long" + got);
                if (full()) return false;
            }
            if (node.max_length && length > *node.max_length) {
                valid =
                    fail("maxLength", "must be at most " + plural(*node.max_length, "character") +
                                          " long" + got);
                if (full()) return false;
            }
        }
        if (node.pattern) {
            const std::string& source = node.pattern->source();
            switch (node.pattern->search(s)) {
                case Pattern::Outcome::kMatch:
                    break;
                case Pattern::Outcome::kNoMatch:
                    valid = fail("pattern", "must match pattern " + source);
                    break;
                case Pattern::Outcome::kTooLong:
                    valid = fail("pattern",
                                 "is too long to check against pattern " + source + " (limit " +
                                     plural(kMaxPatternSubjectCodePoints, "character") + ")");
                    break;
                case Pattern::Outcome::kError:
                    valid = fail("pattern", "could not be checked against pattern " + source);
                    break;
            }
        }
        return valid;
    }

    std::string allowed_properties(const SchemaNode& node) const {
        std::vector<std::string> allowed;
        for (const auto& [name, id] : node.properties) allowed.push_back(name);
        for (const auto& pp : node.pattern_properties) {
            allowed.push_back("names matching " + pp.pattern.source());
        }
        if (allowed.empty()) return "no properties are allowed";
        return "allowed: " + join_limited(allowed, 12, [](const std::string& s) { return s; });
    }

    bool check_object(const SchemaNode& node, const json& object, std::size_t depth) {
        bool valid = true;
        for (const std::string& name : node.required) {
            if (object.contains(name)) continue;
            valid = fail_at({name}, "required", "required property is missing");
            if (full()) return false;
        }
        const std::size_t n = object.size();
        if (node.min_properties && n < *node.min_properties) {
            valid = fail("minProperties", "must have at least " +
                                              plural(*node.min_properties, "property") + ", got " +
                                              std::to_string(n));
            if (full()) return false;
        }
        if (node.max_properties && n > *node.max_properties) {
            valid = fail("maxProperties", "must have at most " +
                                              plural(*node.max_properties, "property") + ", got " +
                                              std::to_string(n));
            if (full()) return false;
        }
        for (const auto& [name, id] : node.properties) {
            const auto it = object.find(name);
            if (it == object.end()) continue;
            if (!apply_at({name}, id, *it, depth)) valid = false;
            if (full()) return false;
        }
        if (node.pattern_properties.empty() && node.additional_properties == kNoNode) return valid;
        for (const auto& [key, value] : object.items()) {
            const PathSegment here{key};
            bool matched_pattern = false;
            for (const PatternProperty& pp : node.pattern_properties) {
                const auto outcome = pp.pattern.search(key);
                if (outcome == Pattern::Outcome::kNoMatch) continue;
                if (outcome == Pattern::Outcome::kMatch) {
                    matched_pattern = true;
                    if (!apply_at(here, pp.schema, value, depth)) valid = false;
                } else {
                    valid = fail_at(here, "patternProperties",
                                    "property name could not be checked against pattern " +
                                        pp.pattern.source());
                }
                if (full()) return false;
            }
            if (matched_pattern || node.additional_properties == kNoNode ||
                node.properties.count(key) > 0) {
                continue;
            }
            const SchemaNode& additional = schema_.nodes[node.additional_properties];
            if (additional.boolean_schema == false) {
                valid = fail_at(here, "additionalProperties",
                                "unexpected property (" + allowed_properties(node) + ")");
            } else if (!apply_at(here, node.additional_properties, value, depth)) {
                valid = false;
            }
            if (full()) return false;
        }
        return valid;
    }

    bool check_unique(const json& array) {
        std::vector<std::size_t> order(array.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return compare_values(array[a], array[b]) < 0;
        });
        // Equal items form runs with ascending indices (stable sort); each run's
        // first repeat is its second entry. Report the earliest repeat overall.
        std::optional<std::pair<std::size_t, std::size_t>> repeat;
        std::size_t run_start = 0;
        for (std::size_t k = 1; k < order.size(); ++k) {
            if (compare_values(array[order[k - 1]], array[order[k]]) != 0) {
                run_start = k;
                continue;
            }
            if (k == run_start + 1 && (!repeat || order[k] < repeat->second)) {
                repeat = {{order[run_start], order[k]}};
            }
        }
        if (!repeat) return true;
        PathSegment later;
        later.is_index = true;
        later.index = repeat->second;
        return fail_at(
            later, "uniqueItems",
            "duplicates item " + std::to_string(repeat->first) + "; items must be unique");
    }

    bool check_array(const SchemaNode& node, const json& array, std::size_t depth) {
        bool valid = true;
        const std::size_t n = array.size();
        if (node.min_items && n < *node.min_items) {
            valid = fail("minItems", "must have at least " + plural(*node.min_items, "item") +
                                         ", got " + std::to_string(n));
            if (full()) return false;
        }
        if (node.max_items && n > *node.max_items) {
            valid = fail("maxItems", "must have at most " + plural(*node.max_items, "item") +
                                         ", got " + std::to_string(n));
            if (full()) return false;
        }
        if (node.unique_items && !check_unique(array)) {
            valid = false;
            if (full()) return false;
        }
        for (std::size_t i = 0; i < n; ++i) {
            PathSegment here;
            here.is_index = true;
            here.index = i;
            NodeId id = kNoNode;
            if (i < node.prefix_items.size()) {
                id = node.prefix_items[i];
            } else if (node.items != kNoNode) {
                id = node.items;
                if (schema_.nodes[id].boolean_schema == false) {
                    valid = fail_at(here, "items",
                                    "is not allowed: at most " +
                                        plural(node.prefix_items.size(), "item") + " may be given");
                    if (full()) return false;
                    continue;
                }
            } else {
                break;
            }
            if (!apply_at(here, id, array[i], depth)) valid = false;
            if (full()) return false;
        }
        return valid;
    }

    bool check_combinators(const SchemaNode& node, const json& instance, std::size_t depth) {
        bool valid = true;
        for (NodeId id : node.all_of) {
            if (!apply(id, instance, depth + 1)) valid = false;
            if (full()) return false;
        }
        if (!node.any_of.empty() && !check_alternatives("anyOf", node.any_of, instance, depth)) {
            valid = false;
            if (full()) return false;
        }
        if (!node.one_of.empty() && !check_alternatives("oneOf", node.one_of, instance, depth)) {
            valid = false;
            if (full()) return false;
        }
        if (node.not_schema != kNoNode) {
            const Trial t = trial(node.not_schema, instance, depth);
            if (hit_depth_bound(t)) {
                sink_->push_back(*t.first);
                return false;
            }
            if (t.valid) valid = fail("not", "must not match the schema in 'not'");
        }
        return valid;
    }

    bool check_alternatives(std::string_view keyword, const std::vector<NodeId>& alternatives,
                            const json& instance, std::size_t depth) {
        const bool exactly_one = keyword == "oneOf";
        std::vector<std::size_t> matched;
        std::vector<std::string> reasons;
        for (std::size_t i = 0; i < alternatives.size(); ++i) {
            Trial t = trial(alternatives[i], instance, depth);
            if (hit_depth_bound(t)) {
                sink_->push_back(*t.first);
                return false;
            }
            if (t.valid) {
                matched.push_back(i);
                if (!exactly_one || matched.size() > 1) break;
            } else if (t.first) {
                reasons.push_back("#" + std::to_string(i) + ": " + summarize(*t.first));
            }
        }
        if (matched.size() == 1 || (!exactly_one && !matched.empty())) return true;
        if (matched.size() > 1) {
            return fail(std::string(keyword),
                        "must match exactly one alternative of oneOf, but matches #" +
                            std::to_string(matched[0]) + " and #" + std::to_string(matched[1]));
        }
        return fail(std::string(keyword),
                    std::string("must match ") + (exactly_one ? "exactly" : "at least") +
                        " one alternative of " + std::string(keyword) + " (" +
                        join_limited(
                            reasons, 4, [](const std::string& s) { return s; }, "; ") +
                        ")");
    }

    const CompiledSchema& schema_;
    std::vector<Finding>* sink_;
    std::size_t limit_;
    Path path_;
};

// The first value nested deeper than kMaxInstanceDepth, found without recursion.
std::optional<Finding> find_too_deep(const json& root) {
    if (!root.is_structured()) return std::nullopt;
    struct Frame {
        const json* value;
        json::const_iterator next;
        std::size_t index;
        PathSegment segment;  // how the parent reached this value
    };
    std::vector<Frame> stack;
    stack.push_back({&root, root.cbegin(), 0, {}});
    while (!stack.empty()) {
        Frame& top = stack.back();
        if (top.next == top.value->cend()) {
            stack.pop_back();
            continue;
        }
        PathSegment segment;
        if (top.value->is_object()) {
            segment.key = top.next.key();
        } else {
            segment.is_index = true;
            segment.index = top.index;
        }
        const json& child = *top.next;
        ++top.next;
        ++top.index;
        if (stack.size() > kMaxInstanceDepth) {
            Finding f;
            for (std::size_t i = 1; i < stack.size(); ++i) f.path.push_back(stack[i].segment);
            f.path.push_back(segment);
            f.keyword = "depth";
            f.detail = "is nested deeper than " + std::to_string(kMaxInstanceDepth) +
                       " levels; flatten the value";
            return f;
        }
        if (child.is_structured()) stack.push_back({&child, child.cbegin(), 0, segment});
    }
    return std::nullopt;
}

}  // namespace

void evaluate(const CompiledSchema& schema, const json& instance, std::size_t max,
              std::vector<SchemaViolation>& out) {
    assert(max > 0);
    if (auto too_deep = find_too_deep(instance)) {
        out.push_back(to_violation(*too_deep));
        return;
    }
    std::vector<Finding> findings;
    Evaluator(schema, findings, max).apply(schema.root, instance, 0);
    for (const Finding& f : findings) out.push_back(to_violation(f));
}

}  // namespace yuzu::jsonschema::schema_detail
