#include "execution/builtin_definitions.hpp"

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "execution/json_text.hpp"

namespace yuzu::execution {
namespace {

using nlohmann::json;

// The systemd unit-name rule (and no leading '-', so a unit can never be
// read as an option by systemctl).
constexpr const char* kUnitPattern = "^[A-Za-z0-9@._:][A-Za-z0-9@._:-]{0,254}$";
constexpr int kMaxPathBytes = 4096;

json object_schema(json properties, json required = json::array()) {
    json schema = {
        {"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
    if (!required.empty()) schema["required"] = std::move(required);
    return schema;
}

json column(const char* name, const char* type) {
    return {{"name", name}, {"type", type}};
}

json path_property(const char* description) {
    return {{"type", "string"},
            {"minLength", 1},
            {"maxLength", kMaxPathBytes},
            {"description", description}};
}

DefinitionSpec spec(const char* plugin, const char* action, const char* name,
                    const char* description, const json& schema, const json& columns) {
    DefinitionSpec s;
    s.plugin = plugin;
    s.action = action;
    s.id = s.plugin + "." + s.action;
    s.name = name;
    s.type = "question";
    s.description = description;
    s.parameter_schema_json = dump_json(schema);
    s.result_columns_json = dump_json(columns);
    s.approval_mode = "auto";
    return s;
}

std::vector<DefinitionSpec> make_catalogue() {
    std::vector<DefinitionSpec> all;
    all.push_back(spec("os", "info", "Operating system information",
                       "Hostname, distribution, kernel release, architecture and uptime.",
                       object_schema(json::object()),
                       json::array({column("hostname", "string"), column("os", "string"),
                                    column("os_version", "string"), column("kernel", "string"),
                                    column("arch", "string"), column("uptime_s", "integer")})));
    all.push_back(
        spec("process", "list", "Running processes",
             "Processes with their owner, state and resident memory, largest first.",
             object_schema({{"limit",
                             {{"type", "integer"},
                              {"minimum", 1},
                              {"maximum", 10000},
                              {"description", "at most this many processes (default 1000)"}}}}),
             json::array({column("pid", "integer"), column("ppid", "integer"),
                          column("name", "string"), column("user", "string"),
                          column("rss_bytes", "integer"), column("state", "string")})));
    all.push_back(spec("process", "find", "Find processes by name",
                       "Processes whose command name equals the given name.",
                       object_schema({{"name",
                                       {{"type", "string"},
                                        {"minLength", 1},
                                        {"maxLength", 255},
                                        {"description", "the process's command name, e.g. sshd"}}}},
                                     json::array({"name"})),
                       json::array({column("pid", "integer"), column("name", "string"),
                                    column("user", "string"), column("cmdline", "string")})));
    const json unit_schema =
        object_schema({{"unit",
                        {{"type", "string"},
                         {"pattern", kUnitPattern},
                         {"description", "the systemd unit, e.g. sshd.service"}}}},
                      json::array({"unit"}));
    all.push_back(spec("service", "status", "Service status",
                       "The systemd unit's load, active and sub state.", unit_schema,
                       json::array({column("unit", "string"), column("load", "string"),
                                    column("active", "string"), column("sub", "string")})));
    DefinitionSpec restart =
        spec("service", "restart", "Restart a service",
             "Restarts the systemd unit and reports its state afterwards.", unit_schema,
             json::array(
                 {column("unit", "string"), column("active", "string"), column("sub", "string")}));
    restart.type = "action";
    restart.destructive = true;
    restart.approval_mode = "always";
    all.push_back(std::move(restart));
    all.push_back(
        spec("disk", "usage", "Disk usage",
             "Size, free space and use of mounted filesystems, or of the one holding `path`.",
             object_schema({{"path", path_property("a path whose filesystem to report")}}),
             json::array({column("mount", "string"), column("device", "string"),
                          column("fstype", "string"), column("total_bytes", "integer"),
                          column("free_bytes", "integer"), column("used_pct", "number")})));
    all.push_back(spec(
        "file", "exists", "File exists", "Whether the absolute path exists, and its type and size.",
        object_schema({{"path", path_property("an absolute path")}}, json::array({"path"})),
        json::array({column("path", "string"), column("exists", "boolean"),
                     column("type", "string"), column("size_bytes", "integer")})));
    all.push_back(spec("file", "hash", "File SHA-256",
                       "The SHA-256 of a regular file, refusing files larger than max_bytes.",
                       object_schema({{"path", path_property("an absolute path to a regular file")},
                                      {"max_bytes",
                                       {{"type", "integer"},
                                        {"minimum", 1},
                                        {"maximum", int64_t{1} << 40},
                                        {"description", "refuse files larger than this"}}}},
                                     json::array({"path"})),
                       json::array({column("path", "string"), column("sha256", "string"),
                                    column("size_bytes", "integer")})));
    all.push_back(
        spec("network", "connections", "Network connections",
             "TCP and UDP sockets with their local and remote endpoints; `truncated` and "
             "`matched` say whether `limit` left some out.",
             object_schema({{"state",
                             {{"type", "string"},
                              {"enum", json::array({"listen", "established", "all"})},
                              {"description", "which sockets (default all)"}}},
                            {"limit",
                             {{"type", "integer"},
                              {"minimum", 1},
                              {"maximum", 4000},
                              {"description", "at most this many sockets (default 1000)"}}}}),
             json::array({column("protocol", "string"), column("local_address", "string"),
                          column("local_port", "integer"), column("remote_address", "string"),
                          column("remote_port", "integer"), column("state", "string")})));
    all.push_back(spec("packages", "list", "Installed packages",
                       "Installed packages from dpkg or rpm, optionally only those named.",
                       object_schema({{"name",
                                       {{"type", "string"},
                                        {"minLength", 1},
                                        {"maxLength", 255},
                                        {"description", "only packages with this name"}}}}),
                       json::array({column("name", "string"), column("version", "string"),
                                    column("arch", "string")})));
    all.push_back(spec("reboot", "pending", "Reboot pending",
                       "Whether the host asks for a reboot, and which packages asked.",
                       object_schema(json::object()),
                       json::array({column("pending", "boolean"), column("packages", "array")})));
    all.push_back(spec("user", "sessions", "User sessions", "Logged-in user sessions from utmp.",
                       object_schema(json::object()),
                       json::array({column("user", "string"), column("tty", "string"),
                                    column("host", "string"), column("login_time", "integer")})));
    all.push_back(spec("perf", "snapshot", "Performance snapshot",
                       "CPU, memory and root-disk use and load averages, measured now.",
                       object_schema(json::object()),
                       json::array({column("cpu_pct", "number"), column("mem_used_pct", "number"),
                                    column("disk_used_pct", "number"), column("load1", "number"),
                                    column("load5", "number"), column("load15", "number")})));
    return all;
}

}  // namespace

const std::vector<DefinitionSpec>& builtin_definitions() {
    static const std::vector<DefinitionSpec> kCatalogue = make_catalogue();
    return kCatalogue;
}

}  // namespace yuzu::execution
