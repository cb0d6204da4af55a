// Instruction definition REST routes: list, read, create, update, delete,
// enable and disable. Built-in definitions can be enabled and disabled but
// not edited or deleted. A definition's parameter_schema must be one the
// server can enforce, or it is refused up front.
#include <string>

#include "execution_route_support.hpp"
#include "route_registry.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/execution/definition_store.hpp"
#include "yuzu/execution/execution_json.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/jsonschema/parameter_check.hpp"

namespace yuzu::web {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;

constexpr char kDefinitionId[] = "([a-z0-9][a-z0-9._-]{0,127})";
const Permission kRead{Securable::kInstructionDefinition, Operation::kRead};
const Permission kWrite{Securable::kInstructionDefinition, Operation::kWrite};
const Permission kDelete{Securable::kInstructionDefinition, Operation::kDelete};

bool read_bool(const json& body, const char* key, bool& out, httplib::Response& res) {
    auto it = body.find(key);
    if (it == body.end() || it->is_null()) return true;
    if (!it->is_boolean()) {
        http::write_error(res, 400, std::string("field '") + key + "' must be true or false");
        return false;
    }
    out = it->get<bool>();
    return true;
}

// A DefinitionSpec from a request body; writes 400 and answers nullopt on a
// malformed field.
std::optional<execution::DefinitionSpec> spec_from_body(const json& body, httplib::Response& res) {
    execution::DefinitionSpec spec;
    if (!read_string(body, "id", spec.id, false, res) ||
        !read_string(body, "name", spec.name, true, res) ||
        !read_string(body, "plugin", spec.plugin, true, res) ||
        !read_string(body, "action", spec.action, true, res) ||
        !read_string(body, "type", spec.type, false, res) ||
        !read_string(body, "description", spec.description, false, res) ||
        !read_string(body, "approval_mode", spec.approval_mode, false, res) ||
        !read_bool(body, "destructive", spec.destructive, res) ||
        !read_bool(body, "enabled", spec.enabled, res))
        return std::nullopt;
    if (auto it = body.find("parameter_schema"); it != body.end() && !it->is_null()) {
        if (!it->is_object()) {
            http::write_error(res, 400, "field 'parameter_schema' must be a JSON Schema object");
            return std::nullopt;
        }
        spec.parameter_schema_json = dump_json(*it);
    }
    if (auto it = body.find("result_columns"); it != body.end() && !it->is_null()) {
        if (!it->is_array()) {
            http::write_error(res, 400, "field 'result_columns' must be an array");
            return std::nullopt;
        }
        spec.result_columns_json = dump_json(*it);
    }
    if (Status st = jsonschema::check_parameter_schema(spec.parameter_schema_json); !st.ok()) {
        write_status(res, st);
        return std::nullopt;
    }
    return spec;
}

void list_definitions(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                      const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, kRead, "definition.list", "definition", "")) return;
    execution::DefinitionFilter filter;
    filter.plugin = query_param(req, "plugin").value_or("");
    filter.type = query_param(req, "type").value_or("");
    if (auto enabled = query_param(req, "enabled")) {
        if (*enabled != "true" && *enabled != "false") {
            http::write_error(res, 400, "enabled must be true or false");
            return;
        }
        filter.enabled = *enabled == "true";
    }
    auto list = executions_of(ctx).definitions().list(filter);
    if (!list.ok()) {
        write_status(res, list.status());
        return;
    }
    json out = json::array();
    for (const auto& d : *list) out.push_back(execution::to_json(d));
    http::write_json(res, 200, json{{"definitions", out}});
}

void get_definition(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                    const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, kRead, "definition.get", "definition", id)) return;
    auto definition = executions_of(ctx).definitions().get(id);
    if (!definition.ok()) {
        write_status(res, definition.status());
        return;
    }
    http::write_json(res, 200, execution::definition_details_json(*definition));
}

void create_definition(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                       const auth::Principal& who) {
    if (!permitted(ctx, req, res, who, kWrite, "definition.create", "definition", "")) return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    auto spec = spec_from_body(*body, res);
    if (!spec) return;
    auto created = executions_of(ctx).definitions().create(*spec);
    const Status st = created.ok() ? Status::Ok() : created.status();
    audit_request(ctx, req, res, &who, "definition.create", "definition",
                  created.ok() ? created->id : spec->id, audit_result_for(st),
                  created.ok() ? created->plugin + "." + created->action : st.message());
    if (!created.ok()) {
        write_status(res, st);
        return;
    }
    http::write_json(res, 201, execution::definition_details_json(*created));
}

void update_definition(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                       const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, kWrite, "definition.update", "definition", id)) return;
    auto body = parse_json_body(req, res);
    if (!body) return;
    auto spec = spec_from_body(*body, res);
    if (!spec) return;
    auto updated = executions_of(ctx).definitions().update(id, *spec);
    const Status st = updated.ok() ? Status::Ok() : updated.status();
    audit_request(ctx, req, res, &who, "definition.update", "definition", id, audit_result_for(st),
                  updated.ok() ? "version=" + std::to_string(updated->version) : st.message());
    if (!updated.ok()) {
        write_status(res, st);
        return;
    }
    http::write_json(res, 200, execution::definition_details_json(*updated));
}

void delete_definition(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                       const auth::Principal& who) {
    const std::string id = req.matches[1];
    if (!permitted(ctx, req, res, who, kDelete, "definition.delete", "definition", id)) return;
    const Status st = executions_of(ctx).definitions().remove(id);
    audit_request(ctx, req, res, &who, "definition.delete", "definition", id, audit_result_for(st),
                  st.ok() ? "" : st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    res.status = 204;
}

void set_enabled(const WebContext& ctx, const httplib::Request& req, httplib::Response& res,
                 const auth::Principal& who) {
    const std::string id = req.matches[1];
    const bool enable = req.matches[2] == "enable";
    const std::string action = enable ? "definition.enable" : "definition.disable";
    if (!permitted(ctx, req, res, who, kWrite, action, "definition", id)) return;
    auto& definitions = executions_of(ctx).definitions();
    const Status st = definitions.set_enabled(id, enable);
    audit_request(ctx, req, res, &who, action, "definition", id, audit_result_for(st),
                  st.ok() ? "" : st.message());
    if (!st.ok()) {
        write_status(res, st);
        return;
    }
    auto definition = definitions.get(id);
    if (!definition.ok()) {
        write_status(res, definition.status());
        return;
    }
    http::write_json(res, 200, execution::definition_details_json(*definition));
}

}  // namespace

void register_definition_routes(http::HttpServer& server, const WebContext& ctx) {
    if (ctx.executions == nullptr) return;
    const std::string one = std::string("/api/v1/definitions/") + kDefinitionId;
    server.get("/api/v1/definitions", "/api/v1/definitions", with_principal(ctx, list_definitions));
    server.post("/api/v1/definitions", "/api/v1/definitions",
                with_principal(ctx, create_definition));
    server.get(one, "/api/v1/definitions/{id}", with_principal(ctx, get_definition));
    server.put(one, "/api/v1/definitions/{id}", with_principal(ctx, update_definition));
    server.del(one, "/api/v1/definitions/{id}", with_principal(ctx, delete_definition));
    server.post(one + "/(enable|disable)", "/api/v1/definitions/{id}/{enable|disable}",
                with_principal(ctx, set_enabled));
}

}  // namespace yuzu::web
