#include "client/protocol_json.hpp"

#include <openssl/sha.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>

#include "yuzu/common/json_parse.hpp"

namespace yuzu::agent {
namespace {

#ifndef YUZU_VERSION
#define YUZU_VERSION "0.0.0"
#endif

using nlohmann::json;

constexpr int kMaxCommandTimeoutS = 24 * 3600;
constexpr size_t kMaxLoggedMessage = 300;

std::string dump(const json& j) {
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

json parse_object(const std::string& body) {
    json j = yuzu::parse_json_or_discarded(body);
    return j.is_object() ? j : json();
}

std::string text_field(const json& j, const char* key) {
    const auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<int> positive_int(const json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer()) return std::nullopt;
    const auto v = it->get<int64_t>();
    if (v < 1 || v > 86'400) return std::nullopt;
    return static_cast<int>(v);
}

ServerSettings settings_from(const json& j) {
    ServerSettings s;
    s.heartbeat_interval_s = positive_int(j, "heartbeat_interval_s");
    s.inventory_interval_s = positive_int(j, "inventory_interval_s");
    s.poll_wait_s = positive_int(j, "poll_wait_s");
    if (const auto it = j.find("quarantined"); it != j.end() && it->is_boolean()) {
        s.quarantined = it->get<bool>();
    }
    if (const auto it = j.find("certificate_renewal"); it != j.end() && it->is_boolean()) {
        s.certificate_renewal = it->get<bool>();
    }
    return s;
}

// A PEM certificate field: nullopt when absent, null or ""; InvalidArgument
// when it is something else than PEM certificate text within the cap.
Result<std::optional<std::string>> pem_certificate_field(const json& j, const char* key) {
    static constexpr std::string_view kBegin = "-----BEGIN CERTIFICATE-----";
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return std::optional<std::string>();
    if (!it->is_string()) return Status::InvalidArgument(std::string(key) + " is not a string");
    const auto& text = it->get_ref<const std::string&>();
    if (text.empty()) return std::optional<std::string>();
    if (text.size() > kMaxCertificatePemBytes) {
        return Status::InvalidArgument(std::string(key) + " is over 64 KiB");
    }
    if (text.compare(0, kBegin.size(), kBegin) != 0) {
        return Status::InvalidArgument(std::string(key) + " is not a PEM certificate");
    }
    return std::optional<std::string>(text);
}

// certificate and certificate_chain; nullopt when there is no certificate
// (a chain alone is of no use and is ignored).
Result<std::optional<IssuedCertificate>> issued_certificate(const json& j) {
    auto leaf = pem_certificate_field(j, "certificate");
    if (!leaf.ok()) return leaf.status();
    auto chain = pem_certificate_field(j, "certificate_chain");
    if (!chain.ok()) return chain.status();
    if (!*leaf) return std::optional<IssuedCertificate>();
    return std::optional<IssuedCertificate>(
        IssuedCertificate{std::move(**leaf), chain->value_or(std::string())});
}

json facts_json(const HostFacts& facts) {
    return {{"hostname", facts.hostname},
            {"os", facts.os},
            {"arch", facts.arch},
            {"agent_version", YUZU_VERSION},
            {"os_version", facts.os_version}};
}

}  // namespace

ReplyAction classify_reply(const HttpReply& reply) {
    if (reply.ok()) return ReplyAction::kAccepted;
    if (reply.status == 401) return ReplyAction::kRefused;
    if (reply.status == 429 || reply.status == 503) return ReplyAction::kRetryAfter;
    if (reply.status == 0 || reply.status >= 500) return ReplyAction::kBackOff;
    return ReplyAction::kRejected;
}

std::string describe_reply(const HttpReply& reply) {
    if (reply.status == 0) return "no answer from the server: " + reply.transport_error;
    std::string text = "HTTP " + std::to_string(reply.status);
    const json j = parse_object(reply.body);
    if (j.is_object() && j.contains("error") && j["error"].is_object()) {
        std::string message = text_field(j["error"], "message");
        if (message.size() > kMaxLoggedMessage) message = message.substr(0, kMaxLoggedMessage);
        if (!message.empty()) text += ": " + message;
    }
    if (!reply.correlation_id.empty()) text += " (correlation " + reply.correlation_id + ")";
    return text;
}

std::string enroll_body(const std::string& enrollment_token, const HostFacts& facts,
                        const std::string& csr) {
    json body = facts_json(facts);
    body["enrollment_token"] = enrollment_token;
    if (!csr.empty()) body["csr"] = csr;
    return dump(body);
}

Result<EnrollAnswer> parse_enroll_answer(const std::string& body) {
    const json j = parse_object(body);
    EnrollAnswer answer;
    answer.agent_id = text_field(j, "agent_id");
    answer.device_token = text_field(j, "device_token");
    if (answer.agent_id.empty() || answer.device_token.empty()) {
        return Status::InvalidArgument("enrollment answer lacks agent_id or device_token");
    }
    answer.settings = settings_from(j);
    auto issued = issued_certificate(j);
    if (!issued.ok()) {
        return Status::InvalidArgument("enrollment answer is malformed: " +
                                       issued.status().message());
    }
    answer.certificate = std::move(*issued);
    return answer;
}

std::string heartbeat_body(const HostFacts& facts, std::optional<int64_t> uptime_s,
                           const PerfSample& perf) {
    json body = facts_json(facts);
    if (uptime_s) body["uptime_s"] = *uptime_s;
    json p = json::object();
    if (perf.cpu_pct) p["cpu_pct"] = *perf.cpu_pct;
    if (perf.mem_used_pct) p["mem_used_pct"] = *perf.mem_used_pct;
    if (perf.disk_used_pct) p["disk_used_pct"] = *perf.disk_used_pct;
    if (perf.load1) p["load1"] = *perf.load1;
    if (!p.empty()) body["perf"] = std::move(p);
    return dump(body);
}

ServerSettings parse_settings(const std::string& body) {
    return settings_from(parse_object(body));
}

std::string certificate_request_body(const std::string& csr) {
    return dump(json{{"csr", csr}});
}

Result<IssuedCertificate> parse_certificate_answer(const std::string& body) {
    const json j = parse_object(body);
    if (!j.is_object()) return Status::InvalidArgument("certificate answer is not a JSON object");
    auto issued = issued_certificate(j);
    if (!issued.ok()) {
        return Status::InvalidArgument("certificate answer is malformed: " +
                                       issued.status().message());
    }
    if (!*issued) return Status::InvalidArgument("certificate answer has no certificate");
    return std::move(**issued);
}

InventoryReport inventory_report(int64_t collected_at_ms, const std::string& sources_json) {
    unsigned char md[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(sources_json.data()), sources_json.size(), md);
    static constexpr char kHex[] = "0123456789abcdef";
    InventoryReport report;
    for (unsigned char b : md) {
        report.sources_sha256 += kHex[b >> 4];
        report.sources_sha256 += kHex[b & 0xF];
    }
    const std::string head = R"({"collected_at":)" + std::to_string(collected_at_ms) +
                             R"(,"sources_sha256":")" + report.sources_sha256 + "\"";
    report.digest_only = head + "}";
    report.full = head + R"(,"sources":)" + sources_json + "}";
    return report;
}

bool asks_for_sources(const std::string& body) {
    const json j = parse_object(body);
    if (!j.is_object()) return false;
    auto it = j.find("send_sources");
    return it != j.end() && it->is_boolean() && it->get<bool>();
}

Result<CommandsAnswer> parse_commands_answer(const std::string& body) {
    const json j = parse_object(body);
    if (!j.is_object() || !j.contains("commands") || !j["commands"].is_array()) {
        return Status::InvalidArgument("commands answer has no \"commands\" array");
    }
    CommandsAnswer answer;
    answer.quarantined = settings_from(j).quarantined;
    for (const json& c : j["commands"]) {
        AgentCommand cmd;
        cmd.command_id = c.is_object() ? text_field(c, "command_id") : std::string();
        if (cmd.command_id.empty()) {
            ++answer.skipped;
            continue;
        }
        cmd.execution_id = text_field(c, "execution_id");
        cmd.plugin = text_field(c, "plugin");
        cmd.action = text_field(c, "action");
        if (const auto it = c.find("params"); it != c.end() && !it->is_null()) {
            cmd.params_json = dump(*it);
        }
        if (const auto it = c.find("timeout_s"); it != c.end() && it->is_number()) {
            cmd.timeout_s = static_cast<int>(
                std::clamp<double>(it->get<double>(), 1.0, double{kMaxCommandTimeoutS}));
        }
        answer.commands.push_back(std::move(cmd));
    }
    return answer;
}

std::string result_body(const std::string& command_id, const std::string& status,
                        const std::string& output_json, const std::string& error,
                        int64_t duration_ms) {
    json body = {{"command_id", command_id}, {"status", status}, {"duration_ms", duration_ms}};
    json output = yuzu::parse_json_or_discarded(output_json);
    body["output"] = output.is_discarded() ? json() : std::move(output);
    if (status != "success") body["error"] = error;
    return dump(body);
}

}  // namespace yuzu::agent
