#include "yuzu/mcp/agentic/playbooks.hpp"

namespace yuzu::mcp::agentic {
namespace {

const char* const kPosturePurpose =
    "what the fleet looks like now, and what is not collected, before anything else";

PlaybookStep posture() {
    return {"get_fleet_posture_fast", kPosturePurpose, "{}", false};
}

PlaybookStep read(std::string tool, std::string purpose, std::string args = "{}") {
    return {std::move(tool), std::move(purpose), std::move(args), false};
}

PlaybookStep dispatch_read(std::string purpose, std::string args) {
    return {"execute_instruction", std::move(purpose), std::move(args), false};
}

PlaybookStep change(std::string tool, std::string purpose, std::string args) {
    return {std::move(tool), std::move(purpose), std::move(args), true};
}

const std::string kNoChangeWithoutTicket =
    "Propose a change, never make one unasked: any change goes through execute_instruction or "
    "a write tool, and at a tier that gates it the call answers -32006 with an approval_id a "
    "person must approve in the dashboard before the recall runs.";
const std::string kNarrowFirst =
    "Narrow the targets with stored inventory (query_inventory, query_installed_software, "
    "preview_scope_targets) before any dispatch; never dispatch to the whole fleet to find one "
    "host.";
const std::string kNoInvention =
    "Report only what the tools returned; say 'not collected' for what Yuzu does not see "
    "instead of guessing.";

std::vector<Playbook> build() {
    std::vector<Playbook> all;

    all.push_back(
        {"openshift_cluster_operator_degraded",
         "OpenShift cluster operator degraded",
         "platform",
         {"openshift", "ocp", "k8s", "kubernetes", "cluster_operator", "crashloop",
          "crashloopbackoff"},
         QuestionClass::kRequiresExternalConnector,
         "get_fleet_posture_fast",
         "OpenShift / Kubernetes API",
         "Operator and pod state live in the cluster API, which Yuzu does not read. Yuzu can "
         "check the nodes as endpoints: their services, disks, memory, time and network.",
         {posture(),
          read("query_installed_software", "which agents carry the cluster's node packages",
               R"({"name":"cri-o"})"),
          read("query_inventory", "failed service units on those nodes (kubelet, crio)",
               R"({"source":"systemd_units"})"),
          read("list_dex_perf_devices", "nodes under disk pressure", R"({"metric":"disk"})"),
          dispatch_read(
              "service state of the kubelet, read-only",
              R"({"plugin":"service","action":"status","params":{"unit":"kubelet.service"},"scope":"<a narrowed scope>"})")},
         {"Say plainly that operator and pod status need the cluster API (a connector gap).",
          kNoInvention, kNoChangeWithoutTicket}});

    all.push_back(
        {"container_build_failure",
         "Container build or image failure",
         "build",
         {"docker", "buildx", "chisel", "chiselled", "container", "containers"},
         QuestionClass::kAnswerableWithLiveDispatch,
         "get_fleet_posture_fast",
         std::nullopt,
         "Builds fail on the build hosts: disk space, the daemon, DNS and the registry path. "
         "Yuzu reads the hosts; registry-side image state is a connector gap.",
         {posture(),
          read("query_installed_software", "which agents have Docker installed",
               R"({"name":"docker-ce"})"),
          read("list_dex_perf_devices", "build hosts short of disk", R"({"metric":"disk"})"),
          dispatch_read(
              "the Docker daemon is running on the narrowed hosts",
              R"({"plugin":"process","action":"find","params":{"name":"dockerd"},"scope":"<a narrowed scope>"})"),
          dispatch_read(
              "disk use where images and build cache live",
              R"({"plugin":"disk","action":"usage","params":{"path":"/var/lib/docker"},"scope":"<a narrowed scope>"})"),
          read("get_execution_status", "collect the dispatches' results",
               R"({"execution_id":"<from execute_instruction>"})")},
         {kNarrowFirst, "Never prune images or build cache without an approved plan.",
          kNoChangeWithoutTicket}});

    all.push_back(
        {"collaboration_quality_issue",
         "Teams / Zoom call quality",
         "collaboration",
         {"teams", "zoom", "call_quality", "meetings", "audio", "video"},
         QuestionClass::kAnswerableWithLiveDispatch,
         "get_fleet_posture_fast",
         std::nullopt,
         "Poor calls are often the endpoint: CPU or memory pressure, or a VPN path. Yuzu reads "
         "those; the call-quality service's own per-call data is a connector gap.",
         {posture(), read("get_dex_perf_fleet", "the fleet's CPU and memory pressure"),
          read("list_dex_perf_devices", "the devices under the most CPU pressure",
               R"({"metric":"cpu"})"),
          read("query_inventory", "network interfaces of the affected devices",
               R"({"source":"network"})"),
          dispatch_read(
              "established connections, read-only",
              R"({"plugin":"network","action":"connections","params":{"state":"established"},"agent_ids":["<an affected agent>"]})")},
         {kNoInvention, "Do not blame the network or the service without evidence from the tools.",
          kNoChangeWithoutTicket}});

    all.push_back(
        {"endpoint_security_client_outage",
         "Endpoint security client outage",
         "security",
         {"crowdstrike", "falcon", "zscaler", "check_point", "checkpoint", "cisco_secure_client",
          "anyconnect", "vpn", "edr"},
         QuestionClass::kAnswerableWithLiveDispatch,
         "get_fleet_posture_fast",
         std::nullopt,
         "Is the agent installed, is its service running, and can it reach out? Yuzu reads "
         "all three on the endpoints; the vendor console's view is a connector gap.",
         {posture(),
          read("query_installed_software", "which agents have the sensor installed",
               R"({"name":"falcon-sensor"})"),
          read("query_inventory", "failed service units", R"({"source":"systemd_units"})"),
          dispatch_read(
              "the sensor's service state, read-only",
              R"({"plugin":"service","action":"status","params":{"unit":"falcon-sensor.service"},"scope":"<a narrowed scope>"})"),
          change(
              "execute_instruction", "restart the sensor, only after a person approves",
              R"({"plugin":"service","action":"restart","params":{"unit":"falcon-sensor.service"},"agent_ids":["<an affected agent>"]})")},
         {kNarrowFirst,
          "Never quarantine a device or restart a security client without an approved ticket.",
          kNoChangeWithoutTicket}});

    all.push_back(
        {"patch_or_reboot_risk",
         "Patch and reboot risk",
         "endpoint",
         {"patch", "patching", "reboot", "reboots", "windows_update", "macos_update",
          "patch_tuesday"},
         QuestionClass::kUnsafeWithoutApproval,
         "get_fleet_posture_fast",
         std::nullopt,
         "Which hosts ask for a reboot, what runs on them, and what would a reboot interrupt? "
         "Yuzu has no reboot instruction: the plan is for people to carry out.",
         {posture(),
          read("query_inventory", "the hosts that report a pending reboot",
               R"({"source":"reboot_pending"})"),
          read("get_agent_details", "what one of those hosts is",
               R"({"agent_id":"<an affected agent>"})"),
          dispatch_read(
              "confirm the pending reboot now, read-only",
              R"({"plugin":"reboot","action":"pending","agent_ids":["<an affected agent>"]})"),
          read("list_pending_approvals", "tickets already waiting for a person")},
         {"Yuzu cannot reboot a host; say so rather than promising one.",
          "Group hosts by role before proposing a window; never propose all at once.",
          kNoChangeWithoutTicket}});

    all.push_back(
        {"database_client_or_host_bottleneck",
         "Database client or host bottleneck",
         "database",
         {"postgres", "postgresql", "oracle", "db", "lock_contention", "replication_lag"},
         QuestionClass::kRequiresExternalConnector,
         "get_fleet_posture_fast",
         "Database engine connection",
         "Locks, replication and plans live in the engine, which Yuzu does not query. Yuzu "
         "reads the database hosts and clients: disk, memory, CPU, sockets and packages.",
         {posture(),
          read("query_installed_software", "which agents run the engine",
               R"({"name":"postgresql"})"),
          read("list_dex_perf_devices", "database hosts short of disk", R"({"metric":"disk"})"),
          read("query_inventory", "who listens on the database port",
               R"({"source":"listening_sockets"})")},
         {"Say plainly that engine internals need a database connector (a connector gap).",
          kNoInvention, kNoChangeWithoutTicket}});

    all.push_back(
        {"java_node_service_degradation",
         "Java gateway or Node service degradation",
         "application",
         {"java", "jvm", "spring", "spring_cloud_gateway", "gateway", "node", "nodejs", "npm"},
         QuestionClass::kAnswerableWithLiveDispatch,
         "get_fleet_posture_fast",
         std::nullopt,
         "A degraded service is a process, a unit and a port on some hosts. Yuzu finds the "
         "hosts, reads the unit and the process, and can restart it once a person approves.",
         {posture(),
          read("query_inventory", "failed service units", R"({"source":"systemd_units"})"),
          dispatch_read(
              "the service's processes, read-only",
              R"({"plugin":"process","action":"find","params":{"name":"java"},"scope":"<a narrowed scope>"})"),
          dispatch_read(
              "the unit's state, read-only",
              R"({"plugin":"service","action":"status","params":{"unit":"gateway.service"},"scope":"<a narrowed scope>"})"),
          change(
              "execute_instruction", "restart the unit, only after a person approves",
              R"({"plugin":"service","action":"restart","params":{"unit":"gateway.service"},"agent_ids":["<an affected agent>"]})")},
         {kNarrowFirst, "Restart one host first and check it before proposing more.",
          kNoChangeWithoutTicket}});

    all.push_back(
        {"kvm_libvirt_host_issue",
         "KVM / libvirt host issue",
         "virtualization",
         {"kvm", "libvirt", "qemu", "hypervisor", "virsh", "vm"},
         QuestionClass::kRequiresExternalConnector,
         "get_fleet_posture_fast",
         "libvirt / hypervisor API",
         "Guest state lives in libvirt, which Yuzu does not query. Yuzu reads the hypervisor "
         "hosts as endpoints: CPU, memory, disk, the libvirtd unit and its packages.",
         {posture(),
          read("query_installed_software", "which agents are KVM hosts",
               R"({"name":"libvirt-daemon-system"})"),
          read("list_dex_perf_devices", "hosts under CPU pressure", R"({"metric":"cpu"})"),
          read("query_inventory", "the libvirtd unit's state", R"({"source":"systemd_units"})")},
         {"Say plainly that guest state needs the hypervisor API (a connector gap).", kNoInvention,
          kNoChangeWithoutTicket}});
    return all;
}

// Lower-case ASCII words joined by single underscores: any run of other
// bytes (spaces, hyphens, underscores, line breaks) is one separator, and
// none leads or trails.
std::string normalise(std::string_view text) {
    std::string out;
    bool gap = false;
    for (char c : text) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        const bool word = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!word) {
            gap = true;
            continue;
        }
        if (gap && !out.empty()) out += '_';
        gap = false;
        out += c;
    }
    return out;
}

}  // namespace

const std::vector<Playbook>& playbooks() {
    static const std::vector<Playbook> all = build();
    return all;
}

std::string_view playbook_match_name(PlaybookMatch m) {
    switch (m) {
        case PlaybookMatch::kName:
            return "name";
        case PlaybookMatch::kCategory:
            return "category";
        case PlaybookMatch::kAlias:
            return "alias";
    }
    return "name";
}

std::optional<FoundPlaybook> find_playbook(std::string_view scenario) {
    const std::string key = normalise(scenario);
    if (key.empty()) return std::nullopt;
    for (const auto& p : playbooks()) {
        if (p.name == key) return FoundPlaybook{&p, PlaybookMatch::kName};
    }
    for (const auto& p : playbooks()) {
        if (p.category == key) return FoundPlaybook{&p, PlaybookMatch::kCategory};
    }
    for (const auto& p : playbooks()) {
        for (const auto& alias : p.aliases) {
            if (alias == key) return FoundPlaybook{&p, PlaybookMatch::kAlias};
        }
    }
    return std::nullopt;
}

}  // namespace yuzu::mcp::agentic
