// Compiling a schema document into the immutable node graph of
// json_schema_node.hpp: every keyword is checked for shape once, regexes are
// built once, $refs become node ids, and in-place cycles are refused here so
// validation never has to look for them.
#include <algorithm>
#include <array>
#include <unordered_map>
#include <unordered_set>

#include "jsonschema/json_schema_node.hpp"
#include "yuzu/jsonschema/json_schema.hpp"

namespace yuzu::jsonschema::schema_detail {
namespace {

using nlohmann::json;

// Keywords that only describe; accepted anywhere and never asserted.
// ($id is handled separately: it is only accepted at the root.)
constexpr std::array<std::string_view, 10> kAnnotationKeywords = {
    "title",    "description", "default",   "examples",   "$schema",
    "$comment", "readOnly",    "writeOnly", "deprecated", "format",
};

constexpr std::string_view kSupportedKeywords =
    "type, enum, const, required, properties, additionalProperties, patternProperties, "
    "minProperties, maxProperties, minimum, maximum, exclusiveMinimum, exclusiveMaximum, "
    "multipleOf, minLength, maxLength, pattern, items, prefixItems, minItems, maxItems, "
    "uniqueItems, $defs, $ref, allOf, anyOf, oneOf, not";

// RFC 9110 §5.6.2 tchar, bounded: x-mcp-header becomes part of a header name.
bool is_header_name_token(const json& value) {
    if (!value.is_string()) return false;
    const auto& text = value.get_ref<const std::string&>();
    if (text.empty() || text.size() > 64) return false;
    constexpr std::string_view kTcharPunct = "!#$%&'*+-.^_`|~";
    for (char c : text) {
        const bool alnum =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && kTcharPunct.find(c) == std::string_view::npos) return false;
    }
    return true;
}

struct TypeName {
    std::string_view name;
    std::uint8_t bit;
};
constexpr std::array<TypeName, 7> kTypeNames = {{
    {"null", kTypeNull},
    {"boolean", kTypeBoolean},
    {"object", kTypeObject},
    {"array", kTypeArray},
    {"number", kTypeNumber},
    {"string", kTypeString},
    {"integer", kTypeInteger},
}};

std::string escape_pointer_token(std::string_view token) {
    std::string out;
    out.reserve(token.size());
    for (char c : token) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

std::string child_location(const std::string& parent, std::string_view token) {
    return parent + "/" + escape_pointer_token(token);
}

std::string single_quoted(std::string_view s) {
    return "'" + std::string(s) + "'";
}

Status keyword_error(std::string_view keyword, const std::string& location,
                     std::string_view problem) {
    return Status::InvalidArgument(single_quoted(keyword) + " at " + location + " " +
                                   std::string(problem));
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::optional<std::string> percent_decode(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '%') {
            out += s[i];
            continue;
        }
        if (i + 2 >= s.size()) return std::nullopt;
        const int hi = hex_digit(s[i + 1]);
        const int lo = hex_digit(s[i + 2]);
        if (hi < 0 || lo < 0) return std::nullopt;
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return out;
}

// "a~1b~0c" -> "a/b~c"; nullopt for a "~" not followed by 0 or 1.
std::optional<std::string> unescape_pointer_token(std::string_view token) {
    std::string out;
    for (std::size_t i = 0; i < token.size(); ++i) {
        if (token[i] != '~') {
            out += token[i];
            continue;
        }
        if (i + 1 >= token.size()) return std::nullopt;
        if (token[i + 1] == '0') {
            out += '~';
        } else if (token[i + 1] == '1') {
            out += '/';
        } else {
            return std::nullopt;
        }
        ++i;
    }
    return out;
}

Result<std::uint64_t> non_negative_integer(std::string_view keyword, const json& value,
                                           const std::string& location) {
    if (value.is_number_unsigned()) return value.get<std::uint64_t>();
    if (value.is_number_integer() && value.get<std::int64_t>() >= 0) {
        return static_cast<std::uint64_t>(value.get<std::int64_t>());
    }
    // 2020-12 allows integer-valued floats such as 2.0 here.
    if (value.is_number_float() && is_integral_number(value)) {
        const double f = value.get<double>();
        if (f >= 0 && f < 9007199254740992.0) return static_cast<std::uint64_t>(f);
    }
    return keyword_error(keyword, location,
                         "must be a non-negative integer, got " + render_value(value));
}

class SchemaCompiler {
  public:
    explicit SchemaCompiler(const json& root) : root_(root) {}

    Result<CompiledSchema> run() {
        YUZU_RETURN_IF_ERROR(read_root_id());
        auto root = compile_node(root_, "#", 0);
        if (!root.ok()) return root.status();
        YUZU_RETURN_IF_ERROR(resolve_refs());
        YUZU_RETURN_IF_ERROR(reject_in_place_cycles());
        CompiledSchema out;
        out.nodes = std::move(nodes_);
        out.root = *root;
        return out;
    }

  private:
    struct PendingRef {
        NodeId from;
        std::string text;
    };

    Status read_root_id() {
        if (!root_.is_object()) return Status::Ok();
        const auto it = root_.find("$id");
        if (it == root_.end()) return Status::Ok();
        if (!it->is_string()) return keyword_error("$id", "#", "must be a string");
        std::string_view id = it->get_ref<const std::string&>();
        const std::size_t hash = id.find('#');
        if (hash != std::string_view::npos && hash + 1 != id.size()) {
            return keyword_error("$id", "#", "must not contain a non-empty fragment");
        }
        root_id_ = std::string(id.substr(0, hash));
        return Status::Ok();
    }

    Result<NodeId> compile_node(const json& schema, std::string location, std::size_t depth) {
        if (depth > kMaxSchemaDepth) {
            return Status::InvalidArgument("schema at " + location + " is nested deeper than " +
                                           std::to_string(kMaxSchemaDepth) + " subschemas");
        }
        assert(nodes_.size() < kNoNode);
        const auto id = static_cast<NodeId>(nodes_.size());
        nodes_.emplace_back();
        [[maybe_unused]] const bool fresh = by_location_.emplace(location, id).second;
        assert(fresh && "escaped locations are unique");

        // Filled locally: compiling children appends to nodes_ and may move it.
        SchemaNode node;
        node.location = location;
        if (schema.is_boolean()) {
            node.boolean_schema = schema.get<bool>();
        } else if (schema.is_object()) {
            for (const auto& [keyword, value] : schema.items()) {
                YUZU_RETURN_IF_ERROR(compile_keyword(keyword, value, location, depth, node));
            }
            if (schema.contains("x-mcp-header")) {
                YUZU_RETURN_IF_ERROR(mcp_header_placement(schema, location));
            }
        } else {
            return Status::InvalidArgument("schema at " + location +
                                           " must be an object or a boolean, got " +
                                           std::string(instance_type_name(schema)));
        }
        nodes_[id] = std::move(node);
        return id;
    }

    Result<NodeId> subschema(const json& value, const std::string& location, std::size_t depth) {
        return compile_node(value, location, depth + 1);
    }

    // allOf / anyOf / oneOf / prefixItems: a non-empty array of schemas.
    Status schema_array(std::string_view keyword, const json& value, const std::string& location,
                        std::size_t depth, std::vector<NodeId>& out) {
        if (!value.is_array() || value.empty()) {
            return keyword_error(keyword, location, "must be a non-empty array of schemas");
        }
        const std::string base = child_location(location, keyword);
        for (std::size_t i = 0; i < value.size(); ++i) {
            auto id = subschema(value[i], base + "/" + std::to_string(i), depth);
            if (!id.ok()) return id.status();
            out.push_back(*id);
        }
        return Status::Ok();
    }

    Status optional_subschema(std::string_view keyword, const json& value,
                              const std::string& location, std::size_t depth, NodeId& out) {
        auto id = subschema(value, child_location(location, keyword), depth);
        if (!id.ok()) return id.status();
        out = *id;
        return Status::Ok();
    }

    Status count(std::string_view keyword, const json& value, const std::string& location,
                 std::optional<std::uint64_t>& out) {
        auto n = non_negative_integer(keyword, value, location);
        if (!n.ok()) return n.status();
        out = *n;
        return Status::Ok();
    }

    Status number(std::string_view keyword, const json& value, const std::string& location,
                  std::optional<json>& out) {
        if (!value.is_number()) {
            return keyword_error(keyword, location, "must be a number, got " + render_value(value));
        }
        out = value;
        return Status::Ok();
    }

    Status type_keyword(const json& value, const std::string& location, SchemaNode& node) {
        const auto bit_for = [](const json& name) -> std::uint8_t {
            if (!name.is_string()) return 0;
            for (const auto& t : kTypeNames) {
                if (t.name == name.get_ref<const std::string&>()) return t.bit;
            }
            return 0;
        };
        constexpr std::string_view kProblem =
            "must be a type name or a non-empty array of distinct type names (null, boolean, "
            "object, array, number, string, integer)";
        if (value.is_string()) {
            node.types = bit_for(value);
            return node.types != 0 ? Status::Ok() : keyword_error("type", location, kProblem);
        }
        if (!value.is_array() || value.empty()) return keyword_error("type", location, kProblem);
        for (const auto& name : value) {
            const std::uint8_t bit = bit_for(name);
            if (bit == 0 || (node.types & bit) != 0)
                return keyword_error("type", location, kProblem);
            node.types |= bit;
        }
        return Status::Ok();
    }

    Status required_keyword(const json& value, const std::string& location, SchemaNode& node) {
        if (!value.is_array()) {
            return keyword_error("required", location, "must be an array of property names");
        }
        std::unordered_set<std::string> seen;
        for (const auto& name : value) {
            if (!name.is_string()) {
                return keyword_error("required", location, "must be an array of property names");
            }
            if (!seen.insert(name.get<std::string>()).second) {
                return keyword_error("required", location,
                                     "lists " + single_quoted(name.get<std::string>()) + " twice");
            }
            node.required.push_back(name.get<std::string>());
        }
        return Status::Ok();
    }

    // MCP 2026-07-28: a client drops a tool whose x-mcp-header breaks these
    // rules, so a catalogue that breaks them must not start. The property is
    // reached from the root through "properties" alone, has one type among
    // string, integer and boolean, and its header name is unique ignoring case.
    Status mcp_header_placement(const json& schema, const std::string& location) {
        std::string_view rest(location);
        rest.remove_prefix(1);  // "#"
        bool through_properties = !rest.empty();
        while (through_properties && !rest.empty()) {
            constexpr std::string_view kStep = "/properties/";
            if (rest.substr(0, kStep.size()) != kStep) {
                through_properties = false;
                break;
            }
            rest.remove_prefix(kStep.size());
            const std::size_t next = rest.find('/');
            rest.remove_prefix(next == std::string_view::npos ? rest.size() : next);
        }
        if (!through_properties) {
            return keyword_error("x-mcp-header", location,
                                 "must sit on a property reached from the root through "
                                 "\"properties\" alone (not items, allOf/anyOf/oneOf, not, $ref)");
        }
        const auto type = schema.find("type");
        const bool primitive = type != schema.end() && type->is_string() &&
                               (*type == "string" || *type == "integer" || *type == "boolean");
        if (!primitive) {
            return keyword_error("x-mcp-header", location,
                                 "needs \"type\" to be one of string, integer, boolean");
        }
        std::string folded = schema.at("x-mcp-header").get<std::string>();
        for (char& c : folded) {
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        }
        if (!mcp_headers_.insert(std::move(folded)).second) {
            return keyword_error("x-mcp-header", location,
                                 "names a header another property already uses (names are "
                                 "compared ignoring case)");
        }
        return Status::Ok();
    }

    Status properties_keyword(const json& value, const std::string& location, std::size_t depth,
                              SchemaNode& node) {
        if (!value.is_object()) {
            return keyword_error("properties", location, "must be an object of schemas");
        }
        const std::string base = child_location(location, "properties");
        for (const auto& [name, sub] : value.items()) {
            auto id = subschema(sub, child_location(base, name), depth);
            if (!id.ok()) return id.status();
            node.properties.emplace(name, *id);
        }
        return Status::Ok();
    }

    Status pattern_properties_keyword(const json& value, const std::string& location,
                                      std::size_t depth, SchemaNode& node) {
        if (!value.is_object()) {
            return keyword_error("patternProperties", location, "must be an object of schemas");
        }
        const std::string base = child_location(location, "patternProperties");
        for (const auto& [source, sub] : value.items()) {
            auto pattern = Pattern::compile(source);
            if (!pattern.ok()) {
                return keyword_error("patternProperties", location, pattern.status().message());
            }
            auto id = subschema(sub, child_location(base, source), depth);
            if (!id.ok()) return id.status();
            node.pattern_properties.push_back({std::move(pattern).value(), *id});
        }
        return Status::Ok();
    }

    Status defs_keyword(const json& value, const std::string& location, std::size_t depth) {
        if (!value.is_object())
            return keyword_error("$defs", location, "must be an object of schemas");
        const std::string base = child_location(location, "$defs");
        for (const auto& [name, sub] : value.items()) {
            auto id = subschema(sub, child_location(base, name), depth);
            if (!id.ok()) return id.status();
        }
        return Status::Ok();
    }

    Status compile_keyword(const std::string& keyword, const json& value,
                           const std::string& location, std::size_t depth, SchemaNode& node) {
        if (std::find(kAnnotationKeywords.begin(), kAnnotationKeywords.end(), keyword) !=
            kAnnotationKeywords.end()) {
            return Status::Ok();
        }
        if (keyword == "$id") {
            // A nested $id would start a new resource and change what "#..." means.
            return depth == 0 ? Status::Ok()
                              : keyword_error("$id", location,
                                              "is only supported at the root of the schema");
        }
        if (keyword == "type") return type_keyword(value, location, node);
        if (keyword == "enum") {
            if (!value.is_array() || value.empty()) {
                return keyword_error("enum", location, "must be a non-empty array");
            }
            node.enum_values.assign(value.begin(), value.end());
            return Status::Ok();
        }
        if (keyword == "const") {
            node.const_value = value;
            return Status::Ok();
        }
        if (keyword == "required") return required_keyword(value, location, node);
        if (keyword == "properties") return properties_keyword(value, location, depth, node);
        if (keyword == "patternProperties") {
            return pattern_properties_keyword(value, location, depth, node);
        }
        if (keyword == "additionalProperties") {
            return optional_subschema(keyword, value, location, depth, node.additional_properties);
        }
        if (keyword == "minProperties") return count(keyword, value, location, node.min_properties);
        if (keyword == "maxProperties") return count(keyword, value, location, node.max_properties);
        if (keyword == "minimum") return number(keyword, value, location, node.minimum);
        if (keyword == "maximum") return number(keyword, value, location, node.maximum);
        if (keyword == "exclusiveMinimum") {
            return number(keyword, value, location, node.exclusive_minimum);
        }
        if (keyword == "exclusiveMaximum") {
            return number(keyword, value, location, node.exclusive_maximum);
        }
        if (keyword == "multipleOf") {
            if (!value.is_number() || !(compare_numbers(value, json(0)) > 0)) {
                return keyword_error(keyword, location,
                                     "must be a number greater than 0, got " + render_value(value));
            }
            node.multiple_of = value;
            return Status::Ok();
        }
        if (keyword == "minLength") return count(keyword, value, location, node.min_length);
        if (keyword == "maxLength") return count(keyword, value, location, node.max_length);
        if (keyword == "pattern") {
            if (!value.is_string()) return keyword_error(keyword, location, "must be a string");
            auto pattern = Pattern::compile(value.get_ref<const std::string&>());
            if (!pattern.ok()) return keyword_error(keyword, location, pattern.status().message());
            node.pattern = std::move(pattern).value();
            return Status::Ok();
        }
        if (keyword == "items") {
            if (value.is_array()) {
                return keyword_error(keyword, location,
                                     "must be a single schema; per-position schemas are "
                                     "prefixItems in JSON Schema 2020-12");
            }
            return optional_subschema(keyword, value, location, depth, node.items);
        }
        if (keyword == "prefixItems") {
            return schema_array(keyword, value, location, depth, node.prefix_items);
        }
        if (keyword == "minItems") return count(keyword, value, location, node.min_items);
        if (keyword == "maxItems") return count(keyword, value, location, node.max_items);
        if (keyword == "uniqueItems") {
            if (!value.is_boolean()) return keyword_error(keyword, location, "must be a boolean");
            node.unique_items = value.get<bool>();
            return Status::Ok();
        }
        if (keyword == "$defs") return defs_keyword(value, location, depth);
        if (keyword == "$ref") {
            if (!value.is_string()) return keyword_error(keyword, location, "must be a string");
            // Resolved once every location is known (refs may point forward).
            pending_refs_.push_back({by_location_.at(location), value.get<std::string>()});
            return Status::Ok();
        }
        if (keyword == "allOf") return schema_array(keyword, value, location, depth, node.all_of);
        if (keyword == "anyOf") return schema_array(keyword, value, location, depth, node.any_of);
        if (keyword == "oneOf") return schema_array(keyword, value, location, depth, node.one_of);
        if (keyword == "not") {
            return optional_subschema(keyword, value, location, depth, node.not_schema);
        }
        if (keyword == "x-mcp-header") {
            // MCP (SEP-2243): the Mcp-Param-<name> header a client copies this
            // argument into. An annotation here; the transport checks it.
            if (!is_header_name_token(value)) {
                return keyword_error(keyword, location,
                                     "must be a non-empty HTTP token (letters, digits, "
                                     "!#$%&'*+-.^_`|~), at most 64 characters");
            }
            return Status::Ok();
        }
        if (keyword == "definitions") {
            return keyword_error(keyword, location,
                                 "is the draft-07 spelling and is not supported; use $defs");
        }
        return Status::InvalidArgument("unsupported JSON Schema keyword " + single_quoted(keyword) +
                                       " at " + location +
                                       " (supported: " + std::string(kSupportedKeywords) + ")");
    }

    // "#/$defs/a%20b" -> canonical location "#/$defs/a b"; refs elsewhere are errors.
    Result<std::string> ref_location(const PendingRef& ref) const {
        const std::string& where = nodes_[ref.from].location;
        const auto fail = [&](std::string_view why) {
            return Status::InvalidArgument("$ref " + single_quoted(ref.text) + " at " + where +
                                           " " + std::string(why));
        };
        const std::size_t hash = ref.text.find('#');
        const std::string_view base = std::string_view(ref.text).substr(0, hash);
        if (!base.empty() && base != root_id_) {
            return fail(
                "is a remote reference, which is not supported; refer within this schema "
                "(\"#\", \"#/$defs/name\")");
        }
        if (hash == std::string::npos) return std::string("#");
        const auto fragment = percent_decode(std::string_view(ref.text).substr(hash + 1));
        if (!fragment) return fail("has a malformed %-escape");
        if (fragment->empty()) return std::string("#");
        if (fragment->front() != '/') {
            return fail("uses a plain-name fragment ($anchor), which is not supported");
        }
        std::string location = "#";
        std::size_t start = 1;
        while (true) {
            const std::size_t slash = fragment->find('/', start);
            const auto token =
                unescape_pointer_token(std::string_view(*fragment).substr(start, slash - start));
            if (!token) return fail("has a malformed JSON pointer escape (only ~0 and ~1 exist)");
            location = child_location(location, *token);
            if (slash == std::string::npos) break;
            start = slash + 1;
        }
        return location;
    }

    Status resolve_refs() {
        for (const PendingRef& ref : pending_refs_) {
            auto location = ref_location(ref);
            if (!location.ok()) return location.status();
            const auto it = by_location_.find(*location);
            if (it == by_location_.end()) {
                bool exists = false;
                try {
                    exists = root_.contains(json::json_pointer(location->substr(1)));
                } catch (const json::exception&) {
                    exists = false;
                }
                return Status::InvalidArgument(
                    "$ref " + single_quoted(ref.text) + " at " + nodes_[ref.from].location +
                    (exists ? " points at a value that is not a schema" : " points at nothing"));
            }
            nodes_[ref.from].ref = it->second;
        }
        return Status::Ok();
    }

    // Applicators that evaluate another schema against the same instance.
    // A cycle among them would recurse forever, so it is a compile error.
    std::vector<NodeId> in_place_edges(const SchemaNode& node) const {
        std::vector<NodeId> edges;
        if (node.ref != kNoNode) edges.push_back(node.ref);
        edges.insert(edges.end(), node.all_of.begin(), node.all_of.end());
        edges.insert(edges.end(), node.any_of.begin(), node.any_of.end());
        edges.insert(edges.end(), node.one_of.begin(), node.one_of.end());
        if (node.not_schema != kNoNode) edges.push_back(node.not_schema);
        return edges;
    }

    // Iterative depth-first search, so a hostile chain of refs cannot
    // overflow the stack here either.
    Status reject_in_place_cycles() const {
        enum : std::uint8_t { kUnvisited, kOnPath, kDone };
        std::vector<std::uint8_t> state(nodes_.size(), kUnvisited);
        struct Frame {
            NodeId node;
            std::vector<NodeId> edges;
            std::size_t next = 0;
        };
        for (NodeId start = 0; start < nodes_.size(); ++start) {
            if (state[start] != kUnvisited) continue;
            std::vector<Frame> path;
            path.push_back({start, in_place_edges(nodes_[start])});
            state[start] = kOnPath;
            while (!path.empty()) {
                Frame& top = path.back();
                if (top.next == top.edges.size()) {
                    state[top.node] = kDone;
                    path.pop_back();
                    continue;
                }
                const NodeId next = top.edges[top.next++];
                if (state[next] == kOnPath) return cycle_error(path, next);
                if (state[next] == kUnvisited) {
                    state[next] = kOnPath;
                    path.push_back({next, in_place_edges(nodes_[next])});
                }
            }
        }
        return Status::Ok();
    }

    template <typename Frames>
    Status cycle_error(const Frames& path, NodeId back_to) const {
        std::vector<NodeId> cycle;
        for (const auto& frame : path) {
            if (!cycle.empty() || frame.node == back_to) cycle.push_back(frame.node);
        }
        cycle.push_back(back_to);
        // Long chains are cut in the middle to keep the message readable.
        constexpr std::size_t kShownEachEnd = 4;
        std::string chain;
        for (std::size_t i = 0; i < cycle.size(); ++i) {
            if (cycle.size() > 2 * kShownEachEnd && i == kShownEachEnd) {
                chain += "... -> ";
                i = cycle.size() - kShownEachEnd;
            }
            chain += nodes_[cycle[i]].location;
            if (i + 1 < cycle.size()) chain += " -> ";
        }
        return Status::InvalidArgument(
            "schema cycle that never consumes input (through $ref/allOf/anyOf/oneOf/not): " +
            chain);
    }

    const json& root_;
    std::string root_id_;
    std::vector<SchemaNode> nodes_;
    std::unordered_map<std::string, NodeId> by_location_;
    std::vector<PendingRef> pending_refs_;
    std::unordered_set<std::string> mcp_headers_;  // x-mcp-header names, lower-cased
};

}  // namespace

Result<CompiledSchema> compile_schema(const json& schema) {
    return SchemaCompiler(schema).run();
}

}  // namespace yuzu::jsonschema::schema_detail
