// The /agent/v1/ routes (docs/agent-protocol.md). Every route but enroll
// authenticates the device token first; any authenticated request counts as
// the agent being seen.
#include "yuzu/agentapi/agent_plane.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>

#include "agentapi/agent_bodies.hpp"
#include "yuzu/audit/audit_log.hpp"
#include "yuzu/common/json_parse.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/command_queue.hpp"
#include "yuzu/fleet/enrollment.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/fleet/inventory_store.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/metrics/builder.hpp"
#include "yuzu/metrics/counter.hpp"
#include "yuzu/metrics/family.hpp"
#include "yuzu/metrics/gauge.hpp"

namespace yuzu::agentapi {
namespace {

using nlohmann::json;

constexpr int kRetryAfterS = 5;

void write_status(httplib::Response& res, const Status& s) {
    const int code = http_status_for(s.code());
    if (code == 401) res.set_header("WWW-Authenticate", "Bearer realm=\"yuzu-agent\"");
    if (code == 429 || code == 503) res.set_header("Retry-After", std::to_string(kRetryAfterS));
    // Internal details stay in the log, not in the answer to an agent.
    http::write_error(res, code, code == 500 ? "internal error" : s.message());
}

// The request body as a JSON object, or nullopt after answering 400.
std::optional<json> parse_object(const httplib::Request& req, httplib::Response& res) {
    auto body = parse_body_object(req.body);
    if (!body.ok()) {
        write_status(res, body.status());
        return std::nullopt;
    }
    return std::move(body).value();
}

std::string bearer_of(const httplib::Request& req) {
    const std::string header = req.get_header_value("Authorization");
    constexpr std::string_view kPrefix = "Bearer ";
    if (header.size() <= kPrefix.size() || header.compare(0, kPrefix.size(), kPrefix) != 0) {
        return {};
    }
    return header.substr(kPrefix.size());
}

class AgentPlane {
  public:
    explicit AgentPlane(AgentPlaneContext& ctx)
        : ctx_(ctx),
          enrollments_(metrics::BuildCounter()
                           .Name("yuzu_agent_enrollments_total")
                           .Help("Agent enrollment attempts by result")
                           .Register(ctx.metrics)),
          results_(metrics::BuildCounter()
                       .Name("yuzu_agent_results_total")
                       .Help("Command results received from agents by status")
                       .Register(ctx.metrics)),
          polls_waiting_(metrics::BuildGauge()
                             .Name("yuzu_agent_polls_waiting")
                             .Help("Agent long-polls held open right now")
                             .Register(ctx.metrics)
                             .Add({})),
          polls_refused_(metrics::BuildCounter()
                             .Name("yuzu_agent_polls_refused_total")
                             .Help("Long-polls answered 429 because every poll slot was taken")
                             .Register(ctx.metrics)
                             .Add({})) {}

    void enroll(const httplib::Request& req, httplib::Response& res) {
        auto body = parse_object(req, res);
        if (!body) return;
        auto read = read_enroll_body(*body);
        if (!read.ok()) {
            write_status(res, read.status());
            return;
        }
        EnrollRequest r = std::move(read).value();
        r.source_ip = req.remote_addr;
        auto enrolled = ctx_.fleet.enrollment().enroll(r);
        if (!enrolled.ok()) {
            const bool auth_failure = enrolled.status().code() == StatusCode::kUnauthenticated;
            enrollments_.Add({{"result", auth_failure ? "denied" : "invalid"}}).Increment();
            audit(req, res, "", "agent.enroll",
                  auth_failure ? audit::AuditResult::kDenied : audit::AuditResult::kFailure,
                  "hostname=" + r.hostname + " " + enrolled.status().message());
            write_status(res, enrolled.status());
            return;
        }
        enrollments_.Add({{"result", "success"}}).Increment();
        audit(req, res, enrolled->agent_id, "agent.enroll", audit::AuditResult::kSuccess,
              "hostname=" + r.hostname + " os=" + r.os + " arch=" + r.arch);
        spdlog::info("agent {} enrolled (hostname {}, {} {})", enrolled->agent_id, r.hostname, r.os,
                     r.arch);
        const auto& o = ctx_.fleet.options();
        json answer = {
            {"agent_id", enrolled->agent_id},
            {"device_token", enrolled->device_token},
            {"heartbeat_interval_s", o.heartbeat_interval_s},
            {"inventory_interval_s", o.inventory_interval_s},
            {"poll_wait_s", std::min(ctx_.options.default_poll_wait_s, o.max_poll_wait_s)}};
        http::write_json(res, 201, answer);
    }

    void heartbeat(const httplib::Request& req, httplib::Response& res) {
        auto agent = authenticate(req, res);
        if (!agent) return;
        auto body = parse_object(req, res);
        if (!body) return;
        auto read = read_heartbeat_body(*body);
        if (!read.ok()) {
            write_status(res, read.status());
            return;
        }
        Heartbeat beat = std::move(read).value();
        if (beat.perf) beat.perf->at_ms = ctx_.clock.now_ms();
        if (Status s = ctx_.fleet.registry().record_heartbeat(*agent, beat); !s.ok()) {
            write_status(res, s);
            return;
        }
        const auto& o = ctx_.fleet.options();
        json answer = {{"heartbeat_interval_s", o.heartbeat_interval_s},
                       {"inventory_interval_s", o.inventory_interval_s},
                       {"quarantined", quarantined(*agent)}};
        http::write_json(res, 200, answer);
    }

    void inventory(const httplib::Request& req, httplib::Response& res) {
        auto agent = authenticate(req, res);
        if (!agent) return;
        auto body = parse_object(req, res);
        if (!body) return;
        auto items = read_inventory_body(*body, *agent, ctx_.clock.now_ms());
        if (!items.ok()) {
            write_status(res, items.status());
            return;
        }
        if (Status s = ctx_.fleet.inventory().replace(*agent, *items); !s.ok()) {
            write_status(res, s);
            return;
        }
        res.status = 204;
    }

    void commands(const httplib::Request& req, httplib::Response& res) {
        auto agent = authenticate(req, res);
        if (!agent) return;
        int wait_s = ctx_.options.default_poll_wait_s;
        if (req.has_param("wait_s")) {
            const std::string raw = req.get_param_value("wait_s");
            char* end = nullptr;
            const long v = std::strtol(raw.c_str(), &end, 10);
            if (raw.empty() || end == nullptr || *end != '\0' || v < 0) {
                http::write_error(res, 400, "wait_s must be a non-negative integer");
                return;
            }
            wait_s = static_cast<int>(std::min<long>(v, ctx_.fleet.options().max_poll_wait_s));
        }
        if (polls_active_.fetch_add(1) >= ctx_.options.max_concurrent_polls) {
            polls_active_.fetch_sub(1);
            polls_refused_.Increment();
            write_status(res, Status::ResourceExhausted("every long-poll slot is taken; retry"));
            return;
        }
        polls_waiting_.Increment();
        auto queued = ctx_.fleet.commands().wait_for_commands(*agent, std::chrono::seconds(wait_s));
        polls_waiting_.Decrement();
        polls_active_.fetch_sub(1);
        ctx_.fleet.registry().touch(*agent);

        json list = json::array();
        for (const auto& c : queued) {
            json params = parse_json_or_discarded(c.params_json);
            if (params.is_discarded()) params = json::object();
            list.push_back({{"command_id", c.command_id},
                            {"execution_id", c.execution_id},
                            {"plugin", c.plugin},
                            {"action", c.action},
                            {"params", std::move(params)},
                            {"timeout_s", c.timeout_s}});
        }
        json answer = {{"commands", std::move(list)}, {"quarantined", quarantined(*agent)}};
        http::write_json(res, 200, answer);
    }

    void results(const httplib::Request& req, httplib::Response& res) {
        auto agent = authenticate(req, res);
        if (!agent) return;
        auto body = parse_object(req, res);
        if (!body) return;
        auto read = read_result_body(*body);
        if (!read.ok()) {
            write_status(res, read.status());
            return;
        }
        CommandResult r = std::move(read).value();
        r.received_at_ms = ctx_.clock.now_ms();
        // A result for a command this agent was not given (a duplicate after
        // redelivery, or forged) is acknowledged and dropped, so the agent
        // does not retry it forever.
        if (!ctx_.fleet.commands().complete(*agent, r.command_id)) {
            spdlog::debug("agent {} sent a result for unknown command {}", *agent, r.command_id);
            results_.Add({{"status", "unmatched"}}).Increment();
            res.status = 204;
            return;
        }
        results_.Add({{"status", r.status}}).Increment();
        if (ctx_.on_result) ctx_.on_result(*agent, r);
        res.status = 204;
    }

    void goodbye(const httplib::Request& req, httplib::Response& res) {
        auto agent = authenticate(req, res);
        if (!agent) return;
        if (Status s = ctx_.fleet.registry().sign_off(*agent); !s.ok()) {
            write_status(res, s);
            return;
        }
        spdlog::info("agent {} signed off", *agent);
        res.status = 204;
    }

  private:
    std::optional<std::string> authenticate(const httplib::Request& req, httplib::Response& res) {
        const std::string token = bearer_of(req);
        if (token.empty()) {
            write_status(res, Status::Unauthenticated("a device token is required"));
            return std::nullopt;
        }
        auto agent = ctx_.fleet.enrollment().authenticate_device(token);
        if (!agent.ok()) {
            write_status(res, Status::Unauthenticated("device token refused"));
            return std::nullopt;
        }
        ctx_.fleet.registry().touch(*agent);
        return *agent;
    }

    bool quarantined(const std::string& agent_id) {
        auto record = ctx_.fleet.registry().get(agent_id);
        return record.ok() && record->quarantined;
    }

    void audit(const httplib::Request& req, const httplib::Response& res,
               const std::string& agent_id, const std::string& action, audit::AuditResult result,
               const std::string& detail) {
        audit::AuditEvent ev;
        ev.principal = agent_id.empty() ? "anonymous" : agent_id;
        ev.principal_kind = "agent";
        ev.action = action;
        ev.target_type = "agent";
        ev.target_id = agent_id;
        ev.result = result;
        ev.detail = detail;
        ev.source_ip = req.remote_addr;
        ev.user_agent = req.get_header_value("User-Agent");
        ev.correlation_id = http::correlation_id_of(res);
        if (Status s = ctx_.audit.record(std::move(ev)); !s.ok()) {
            spdlog::error("audit write failed for {}: {}", action, s.message());
        }
    }

    AgentPlaneContext& ctx_;
    metrics::Family<metrics::Counter>& enrollments_;
    metrics::Family<metrics::Counter>& results_;
    metrics::Gauge& polls_waiting_;
    metrics::Counter& polls_refused_;
    std::atomic<int> polls_active_{0};
};

}  // namespace

void register_agent_plane_routes(http::HttpServer& server, AgentPlaneContext& context) {
    // Lives as long as the process's route table; the context outlives the
    // server.
    auto plane = std::make_shared<AgentPlane>(context);
    server.post("/agent/v1/enroll", "/agent/v1/enroll",
                [plane](const httplib::Request& q, httplib::Response& r) { plane->enroll(q, r); });
    server.post(
        "/agent/v1/heartbeat", "/agent/v1/heartbeat",
        [plane](const httplib::Request& q, httplib::Response& r) { plane->heartbeat(q, r); });
    server.post(
        "/agent/v1/inventory", "/agent/v1/inventory",
        [plane](const httplib::Request& q, httplib::Response& r) { plane->inventory(q, r); });
    server.get("/agent/v1/commands", "/agent/v1/commands",
               [plane](const httplib::Request& q, httplib::Response& r) { plane->commands(q, r); });
    server.post("/agent/v1/results", "/agent/v1/results",
                [plane](const httplib::Request& q, httplib::Response& r) { plane->results(q, r); });
    server.post("/agent/v1/goodbye", "/agent/v1/goodbye",
                [plane](const httplib::Request& q, httplib::Response& r) { plane->goodbye(q, r); });
}

}  // namespace yuzu::agentapi
