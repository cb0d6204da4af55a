// The agent protocol's bodies (docs/agent-protocol.md): building what the
// agent sends, reading what the server answers, and sorting each reply into
// what the protocol's error table says to do with it.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/http_channel.hpp"
#include "yuzu/agent/host_facts.hpp"
#include "yuzu/agent/perf_sample.hpp"
#include "yuzu/common/status.hpp"

namespace yuzu::agent {

// The protocol's error table, as actions.
enum class ReplyAction {
    kAccepted,    // 2xx
    kRefused,     // 401: stop this identity
    kRetryAfter,  // 429 / 503: wait Retry-After (default 5 s)
    kBackOff,     // no answer or another 5xx: exponential back-off
    kRejected,    // another 4xx: log it, do not resend the same body
};
ReplyAction classify_reply(const HttpReply& reply);

// "HTTP 503: server draining (correlation 1a2b)" or "no answer from the
// server: Connection":
// for logs; never contains a token.
std::string describe_reply(const HttpReply& reply);

// The server's interval settings; each present only when the answer had it.
struct ServerSettings {
    std::optional<int> heartbeat_interval_s;
    std::optional<int> inventory_interval_s;
    std::optional<int> poll_wait_s;
    std::optional<bool> quarantined;
    // Heartbeat answers: the server wants a new client certificate.
    std::optional<bool> certificate_renewal;
};

// A client certificate the server issued (docs/agent-protocol.md, "Client
// certificate"): the leaf, and the issuing CA then the root ("" when the
// server sent no chain). Each at most kMaxCertificatePemBytes, and each
// starts with "-----BEGIN CERTIFICATE-----".
struct IssuedCertificate {
    std::string certificate;
    std::string chain;
};
inline constexpr size_t kMaxCertificatePemBytes = 64 * 1024;

struct EnrollAnswer {
    std::string agent_id;
    std::string device_token;
    ServerSettings settings;
    std::optional<IssuedCertificate> certificate;  // absent: a server without a CA
};

// csr is the PEM request for the identity's client key; "" leaves the field
// out (the key could not be made: the agent then runs without a certificate).
std::string enroll_body(const std::string& enrollment_token, const HostFacts& facts,
                        const std::string& csr);
// InvalidArgument when agent_id or device_token is missing, or a
// certificate or certificate_chain is there but not a PEM certificate (or
// over 64 KiB). null or "" count as absent.
Result<EnrollAnswer> parse_enroll_answer(const std::string& body);

std::string heartbeat_body(const HostFacts& facts, std::optional<int64_t> uptime_s,
                           const PerfSample& perf);
// Heartbeat answers are read leniently: what is missing stays unset.
ServerSettings parse_settings(const std::string& body);

// POST /agent/v1/certificate: {"csr": "<PEM>"}.
std::string certificate_request_body(const std::string& csr);
// Its 200 answer. InvalidArgument when "certificate" is missing or either
// field is not a PEM certificate of at most 64 KiB.
Result<IssuedCertificate> parse_certificate_answer(const std::string& body);

// One inventory collection as the agent reports it: the full report, and
// the digest-only one that asks the server to confirm the sources it holds
// are these (docs/agent-protocol.md, "Inventory").
struct InventoryReport {
    std::string sources_sha256;  // SHA-256 of the "sources" JSON text, lowercase hex
    std::string full;            // {"collected_at", "sources_sha256", "sources"}
    std::string digest_only;     // {"collected_at", "sources_sha256"}
};
// sources_json is the "sources" object as JSON text; it is spliced in as is.
InventoryReport inventory_report(int64_t collected_at_ms, const std::string& sources_json);
// Whether the server answered a digest-only report by asking for the
// sources ({"send_sources": true}).
bool asks_for_sources(const std::string& body);

struct AgentCommand {
    std::string command_id;
    std::string execution_id;
    std::string plugin;
    std::string action;
    std::string params_json = "{}";
    int timeout_s = 60;
};

struct CommandsAnswer {
    std::vector<AgentCommand> commands;
    std::optional<bool> quarantined;
    int skipped = 0;  // entries without a command_id: they cannot be answered
};
// InvalidArgument when the body is not an object with a "commands" array.
Result<CommandsAnswer> parse_commands_answer(const std::string& body);

std::string result_body(const std::string& command_id, const std::string& status,
                        const std::string& output_json, const std::string& error,
                        int64_t duration_ms);

}  // namespace yuzu::agent
