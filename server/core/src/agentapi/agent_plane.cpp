// The /agent/v1/ routes (docs/agent-protocol.md). Every route but enroll
// authenticates the device token first; any authenticated request counts as
// the agent being seen.
#include "yuzu/agentapi/agent_plane.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>

#include "agentapi/agent_bodies.hpp"
#include "agentapi/agent_certificates.hpp"
#include "agentapi/background_worker.hpp"
#include "agentapi/poll_parking.hpp"
#include "agentapi/result_ingest.hpp"
#include "yuzu/audit/audit_log.hpp"
#include "yuzu/common/json_parse.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/fleet/agent_registry.hpp"
#include "yuzu/fleet/command_queue.hpp"
#include "yuzu/fleet/enrollment.hpp"
#include "yuzu/fleet/fleet.hpp"
#include "yuzu/fleet/inventory_store.hpp"
#include "yuzu/http/deferred_reply.hpp"
#include "yuzu/http/server.hpp"
#include "yuzu/metrics/builder.hpp"
#include "yuzu/metrics/counter.hpp"
#include "yuzu/metrics/family.hpp"
#include "yuzu/metrics/gauge.hpp"
#include "yuzu/metrics/histogram.hpp"
#include "yuzu/metrics/registry.hpp"

namespace yuzu::agentapi {
namespace {

using nlohmann::json;

constexpr int kRetryAfterS = 5;
// After a result the store could not take: soon, it is usually a moment.
constexpr int kResultRetryAfterS = 1;
// After a full inventory report deferred for others being written.
constexpr int kInventoryRetryAfterS = 10;
// After a digest-only report the server did not ask the sources for (past
// the invitation rate). Longer: a fleet reporting at once is invited at 20
// a second whatever the retries, and at 10 s each 10,000 agents would send
// 600 refused reports a second.
constexpr int kInvitationRetryAfterS = 60;
// Bodies up to this size (digest-only reports, tiny hosts) are handled on
// the worker that read them; larger ones on the background worker.
constexpr size_t kInlineInventoryBytes = size_t{16} * 1024;
// How much lower the background worker's CPU priority is (nice steps).
constexpr int kBackgroundNiceness = 10;
// A result received this recently means agents are answering an execution.
constexpr std::chrono::seconds kAnsweringWindow{1};

using http::error_body;

metrics::BucketBoundaries delivery_buckets() {
    return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

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
          certs_(ctx.ca, ctx.client_certs, ctx.clock),
          enrollments_(metrics::BuildCounter()
                           .Name("yuzu_agent_enrollments_total")
                           .Help("Agent enrollment attempts by result")
                           .Register(ctx.metrics)),
          results_(metrics::BuildCounter()
                       .Name("yuzu_agent_results_total")
                       .Help("Command results received from agents by status (unmatched: not "
                             "this agent's command, or settled already; retried: the store could "
                             "not take it, the agent sends it again)")
                       .Register(ctx.metrics)),
          dropped_(metrics::BuildCounter()
                       .Name("yuzu_agent_answers_dropped_total")
                       .Help("Agents' answers that will never be recorded, by reason (rejected: "
                             "the store refused the result for good; abandoned: a command handed "
                             "out again and again without an answer). Should stay 0.")
                       .Register(ctx.metrics)),
          inventory_reports_(metrics::BuildCounter()
                                 .Name("yuzu_agent_inventory_reports_total")
                                 .Help("Inventory reports by kind (full: sources written; "
                                       "unchanged: confirmed by digest; sources_requested: "
                                       "digest unknown, the agent sends the sources; deferred: "
                                       "answered 503, others being written or past the "
                                       "rate sources are asked for)")
                                 .Register(ctx.metrics)),
          polls_refused_(metrics::BuildCounter()
                             .Name("yuzu_agent_polls_refused_total")
                             .Help("Long-polls the poll parking had no room for (answered 503, or "
                                   "at once with an empty list when they followed a result)")
                             .Register(ctx.metrics)
                             .Add({})),
          results_refused_(metrics::BuildCounter()
                               .Name("yuzu_agent_results_refused_total")
                               .Help("Result uploads answered 503 because the ingest queue was "
                                     "full (the agent sends them again)")
                               .Register(ctx.metrics)
                               .Add({})),
          delivery_seconds_(metrics::BuildHistogram()
                                .Name("yuzu_agent_command_delivery_seconds")
                                .Help("From a command being queued to its first hand-out to "
                                      "the agent, in seconds")
                                .Register(ctx.metrics)
                                .Add({}, delivery_buckets())),
          parking_(
              ctx.fleet.commands(),
              [this](const std::string& agent_id, const std::vector<fleet::AgentCommand>& cmds) {
                  return poll_answer(agent_id, cmds);
              },
              ctx.options.max_held_polls,
              [this](const std::vector<std::string>& agent_ids) {
                  for (const std::string& id : agent_ids) ctx_.fleet.registry().touch(id);
              },
              // Often enough that a held agent never looks offline, rarely
              // enough that 10,000 of them are not 10,000 writes a second.
              std::max(std::chrono::milliseconds(1000),
                       std::chrono::milliseconds(ctx.fleet.registry().offline_timeout_ms() / 3)),
              kAgentPlaneNiceness),
          ingest_(
              ctx.fleet.commands(),
              [this](const ResultIngest::Item& item, const Status& s) { settle(item, s); },
              ctx.options.result_queue_capacity, ctx.options.result_batch_max, kAgentPlaneNiceness),
          background_("agent.inventory",
                      static_cast<size_t>(std::max(1, ctx.options.max_concurrent_inventory)),
                      kBackgroundNiceness) {}

    ~AgentPlane() { stop(); }

    // Writes the results waiting (a result that carries a poll is parked),
    // then answers the held polls; idempotent.
    void stop() {
        ingest_.stop();
        parking_.stop();
        background_.stop();
    }

    void set_result_sink(fleet::CommandResultSink sink) { ingest_.set_sink(std::move(sink)); }
    void on_ready(const std::string& agent_id) { parking_.on_ready(agent_id); }
    void shut_out(const std::string& agent_id) {
        parking_.refuse(agent_id, 401,
                        http::error_body(401, "the client certificate is revoked", ""));
    }
    // Commands given up after too many deliveries, for the dropped counter.
    uint64_t abandoned() const { return ctx_.fleet.commands().abandoned(); }
    metrics::Counter& abandoned_counter() { return dropped_.Add({{"reason", "abandoned"}}); }
    size_t held_polls() const { return parking_.held(); }
    size_t ingest_depth() const { return ingest_.depth(); }

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
        // The CSR is checked before the enrollment token is spent.
        auto csr = certs_.read_csr(*body, /*required=*/true);
        if (!csr.ok()) {
            enrollments_.Add({{"result", "invalid"}}).Increment();
            write_status(res, csr.status());
            return;
        }
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
        std::optional<pki::Issued> certificate;
        if (*csr) {
            auto issued = certs_.issue(enrolled->agent_id, **csr, "enrollment");
            if (issued.ok()) {
                certificate = std::move(issued).value();
            } else {
                // Enrolled all the same; the heartbeat's renewal hint asks
                // for a certificate again.
                spdlog::error("agent {} enrolled without a client certificate: {}",
                              enrolled->agent_id, issued.status().message());
            }
        }
        audit(req, res, enrolled->agent_id, "agent.enroll", audit::AuditResult::kSuccess,
              "hostname=" + r.hostname + " os=" + r.os + " arch=" + r.arch +
                  (certificate ? " certificate=" + certificate->certificate.serial_hex : ""));
        spdlog::info("agent {} enrolled (hostname {}, {} {})", enrolled->agent_id, r.hostname, r.os,
                     r.arch);
        const auto& o = ctx_.fleet.options();
        json answer = {
            {"agent_id", enrolled->agent_id},
            {"device_token", enrolled->device_token},
            {"heartbeat_interval_s", o.heartbeat_interval_s},
            {"inventory_interval_s", o.inventory_interval_s},
            {"poll_wait_s", std::min(ctx_.options.default_poll_wait_s, o.max_poll_wait_s)}};
        if (certificate) {
            answer["certificate"] = certificate->certificate.certificate_pem;
            answer["certificate_chain"] = certificate->chain_pem;
        }
        http::write_json(res, 201, answer);
    }

    // POST /agent/v1/certificate {"csr"}: a fresh certificate for the
    // caller, when the heartbeat said certificate_renewal.
    void renew_certificate(const httplib::Request& req, httplib::Response& res) {
        auto agent = authenticate(req, res);
        if (!agent) return;
        auto body = parse_object(req, res);
        if (!body) return;
        if (!certs_.issuing()) {
            write_status(res, Status::NotFound("this server issues no client certificates"));
            return;
        }
        auto csr = certs_.read_csr(*body, /*required=*/false);
        if (!csr.ok() || !*csr) {
            write_status(
                res, csr.ok() ? Status::InvalidArgument("field 'csr' is required") : csr.status());
            return;
        }
        if (Status s = certs_.check_renewal(*agent); !s.ok()) {
            write_status(res, s);
            return;
        }
        auto issued = certs_.issue(*agent, **csr, *agent);
        if (!issued.ok()) {
            audit(req, res, *agent, "ca.cert.issued", audit::AuditResult::kFailure,
                  issued.status().message());
            write_status(res, issued.status());
            return;
        }
        audit(req, res, *agent, "ca.cert.issued", audit::AuditResult::kSuccess,
              "purpose=agent renewal serial=" + issued->certificate.serial_hex);
        http::write_json(res, 200,
                         json{{"certificate", issued->certificate.certificate_pem},
                              {"certificate_chain", issued->chain_pem}});
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
        if (certs_.issuing() && certs_.renewal_due()) answer["certificate_renewal"] = true;
        http::write_json(res, 200, answer);
    }

    void inventory(const httplib::Request& req, httplib::Response& res) {
        auto agent = authenticate(req, res);
        if (!agent) return;
        // A digest-only report is a few hundred bytes: answered here. A full
        // one goes to the background worker, a few at a time and at a lower
        // priority, its reply deferred.
        if (req.body.size() <= kInlineInventoryBytes) {
            auto answer = inventory_answer(*agent, req.body);
            if (!answer.ok()) {
                write_status(res, answer.status());
            } else {
                write_inventory_answer(res, *answer);
            }
            return;
        }
        if (inventory_writers_.fetch_add(1) >= ctx_.options.max_concurrent_inventory) {
            inventory_writers_.fetch_sub(1);
            inventory_reports_.Add({{"kind", "deferred"}}).Increment();
            res.set_header("Retry-After", std::to_string(kInventoryRetryAfterS));
            http::write_error(res, 503, "too many inventory reports at once; retry");
            return;
        }
        auto reply = http::defer_reply(res);
        if (!reply) {
            inventory_writers_.fetch_sub(1);
            write_status(res, Status::Unavailable("inventory cannot be taken right now; retry"));
            return;
        }
        auto job = [this, agent_id = *agent, body = req.body, reply] {
            struct Leave {
                std::atomic<int>& writers;
                ~Leave() { writers.fetch_sub(1); }
            } leave{inventory_writers_};
            auto answer = inventory_answer(agent_id, body);
            if (!answer.ok()) {
                const int code = http_status_for(answer.status().code());
                reply->send_json(
                    code,
                    error_body(code, code == 500 ? "internal error" : answer.status().message(),
                               reply->correlation_id()));
                return;
            }
            if (answer->status == 503) {
                // Built without a request at hand: this one carries its id.
                answer->body = error_body(503, "too many inventory reports at once; retry",
                                          reply->correlation_id());
            }
            reply->send_json(answer->status, answer->body, answer->headers);
        };
        if (!background_.submit(std::move(job))) {
            inventory_writers_.fetch_sub(1);
            reply->send_json(503,
                             error_body(503, "too many inventory reports at once; retry",
                                        reply->correlation_id()),
                             {{"Retry-After", std::to_string(kInventoryRetryAfterS)}});
        }
    }

    // The request's wait_s, capped at the fleet's longest poll; nullopt when
    // absent; InvalidArgument when malformed.
    Result<std::optional<int>> read_wait_s(const httplib::Request& req) const {
        if (!req.has_param("wait_s")) return std::optional<int>();
        const std::string raw = req.get_param_value("wait_s");
        char* end = nullptr;
        const long v = std::strtol(raw.c_str(), &end, 10);
        if (raw.empty() || end == nullptr || *end != '\0' || v < 0) {
            return Status::InvalidArgument("wait_s must be a non-negative integer");
        }
        return std::optional<int>(
            static_cast<int>(std::min<long>(v, ctx_.fleet.options().max_poll_wait_s)));
    }

    void commands(const httplib::Request& req, httplib::Response& res) {
        auto agent = authenticate(req, res);
        if (!agent) return;
        auto wait = read_wait_s(req);
        if (!wait.ok()) {
            http::write_error(res, 400, wait.status().message());
            return;
        }
        const int wait_s = wait->value_or(ctx_.options.default_poll_wait_s);
        auto queued = ctx_.fleet.commands().take(*agent);
        std::shared_ptr<http::DeferredReply> reply;
        if (queued.empty() && wait_s > 0) reply = http::defer_reply(res);
        if (!reply) {
            http::write_json(res, 200, poll_answer(*agent, queued));
            return;
        }
        // Held without a thread until a command is queued or the wait ends.
        if (!parking_.park(*agent, reply, std::chrono::seconds(wait_s))) {
            polls_refused_.Increment();
            reply->send_json(503,
                             error_body(503, "the server holds as many polls as it can; retry",
                                        reply->correlation_id()),
                             {{"Retry-After", std::to_string(kRetryAfterS)}});
        }
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
        // With wait_s the reply, once the result is written, is the agent's
        // next long-poll: one round trip per answer instead of two.
        auto wait = read_wait_s(req);
        if (!wait.ok()) {
            http::write_error(res, 400, wait.status().message());
            return;
        }
        CommandResult r = std::move(read).value();
        r.received_at_ms = ctx_.clock.now_ms();
        // Answered once the result is written with the others waiting (a
        // group commit), never before: an acknowledged result is on disk.
        auto reply = http::defer_reply(res);
        if (!reply) {
            spdlog::error("agent plane: a result upload could not wait for its commit");
            write_status(res, Status::Unavailable("results cannot be taken right now; retry"));
            return;
        }
        if (!ingest_.submit(ResultIngest::Item{fleet::AgentResult{*agent, std::move(r)}, reply,
                                               wait->value_or(-1)})) {
            results_refused_.Increment();
            reply->send_json(503,
                             error_body(503, "too many results are waiting to be written; retry",
                                        reply->correlation_id()),
                             {{"Retry-After", std::to_string(kResultRetryAfterS)}});
        }
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
    // The body of a poll's answer: what it delivers, and the quarantine flag
    // as it is now (read when commands go out, so a quarantine set while
    // the poll was held is never missed).
    std::string poll_answer(const std::string& agent_id,
                            const std::vector<fleet::AgentCommand>& queued) {
        const int64_t now_ms = ctx_.clock.now_ms();
        json list = json::array();
        for (const auto& c : queued) {
            if (c.deliveries == 1) {
                delivery_seconds_.Observe(
                    static_cast<double>(std::max<int64_t>(0, now_ms - c.queued_at_ms)) / 1000.0);
            }
            json params = parse_json_or_discarded(c.params_json);
            if (params.is_discarded()) params = json::object();
            list.push_back({{"command_id", c.command_id},
                            {"execution_id", c.execution_id},
                            {"plugin", c.plugin},
                            {"action", c.action},
                            {"params", std::move(params)},
                            {"timeout_s", c.timeout_s}});
        }
        return dump_json(
            json{{"commands", std::move(list)}, {"quarantined", quarantined(agent_id)}});
    }

    // A result's batch was written: count it and answer the agent.
    void settle(const ResultIngest::Item& item, const Status& s) {
        const std::string& agent_id = item.result.agent_id;
        const CommandResult& r = item.result.result;
        const StatusCode code = s.code();
        if (s.ok()) {
            last_result_at_.store(std::chrono::steady_clock::now().time_since_epoch().count(),
                                  std::memory_order_relaxed);
            results_.Add({{"status", r.status}}).Increment();
            acknowledge(item);
        } else if (code == StatusCode::kNotFound || code == StatusCode::kFailedPrecondition) {
            // Not this agent's command, or settled already (a duplicate
            // after redelivery, a result after the timeout, or forged):
            // acknowledged, so the agent does not send it forever.
            spdlog::debug("agent {} sent a result for command {} that is not outstanding: {}",
                          agent_id, r.command_id, s.message());
            results_.Add({{"status", "unmatched"}}).Increment();
            acknowledge(item);
        } else if (ResultIngest::is_transient(code)) {
            results_.Add({{"status", "retried"}}).Increment();
            item.reply->send_json(503,
                                  error_body(503, "the result could not be written yet; retry",
                                             item.reply->correlation_id()),
                                  {{"Retry-After", std::to_string(kResultRetryAfterS)}});
        } else {
            spdlog::error("agent {}: result for command {} refused by the store: {}", agent_id,
                          r.command_id, s.to_string());
            dropped_.Add({{"reason", "rejected"}}).Increment();
            item.reply->send_json(400, error_body(400, s.message(), item.reply->correlation_id()));
        }
    }

    // A result done with: 204, or, when the agent asked to wait, its next
    // poll, held in the parking for what is left of its wait (counted from
    // the upload's arrival). The parking hands out what is queued at once,
    // and never to a client that has hung up. A 200 always means the
    // result was taken, so when no more polls can be held that one is
    // answered at once with what is queued, often nothing (the agent then
    // polls again).
    void acknowledge(const ResultIngest::Item& item) {
        if (item.then_poll_s < 0) {
            item.reply->send_json(204, "");
            return;
        }
        const std::string& agent_id = item.result.agent_id;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::seconds(item.then_poll_s) -
            (std::chrono::steady_clock::now() - item.received));
        if (left.count() > 0) {
            item.reply->mark_held();
            if (parking_.park(agent_id, item.reply, left)) return;
            polls_refused_.Increment();
        }
        item.reply->send_json(200, poll_answer(agent_id, ctx_.fleet.commands().take(agent_id)));
    }

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
        if (Status s = certs_.check_peer(*agent); !s.ok()) {
            write_status(res, s);
            return std::nullopt;
        }
        ctx_.fleet.registry().touch(*agent);
        return *agent;
    }

    // What an inventory report is answered with (status 204 without a body,
    // 200 asking for the sources, or 503); an error Status for a bad report.
    struct InventoryAnswer {
        int status = 204;
        std::string body;
        http::DeferredReply::Headers headers;
    };
    Result<InventoryAnswer> inventory_answer(const std::string& agent_id, const std::string& text) {
        auto body = parse_body_object(text);
        if (!body.ok()) return body.status();
        auto digest = read_inventory_digest(*body);
        if (!digest.ok()) return digest.status();
        if (!has_inventory_sources(*body)) {
            if (digest->empty())
                return Status::InvalidArgument("field 'sources' must be an object");
            // "Unchanged since my last report": one small write, or a
            // request for the sources when the server holds another digest.
            auto same = ctx_.fleet.inventory().confirm_unchanged(agent_id, *digest,
                                                                 read_collected_at(*body));
            if (!same.ok()) return same.status();
            if (*same) {
                inventory_reports_.Add({{"kind", "unchanged"}}).Increment();
                return InventoryAnswer{};
            }
            if (!take_invitation()) {
                inventory_reports_.Add({{"kind", "deferred"}}).Increment();
                return InventoryAnswer{
                    503,
                    error_body(503, "too many inventory reports at once; retry", ""),
                    {{"Retry-After", std::to_string(kInvitationRetryAfterS)}}};
            }
            inventory_reports_.Add({{"kind", "sources_requested"}}).Increment();
            return InventoryAnswer{200, R"({"send_sources":true})", {}};
        }
        auto items = read_inventory_body(*body, agent_id, ctx_.clock.now_ms());
        if (!items.ok()) return items.status();
        YUZU_RETURN_IF_ERROR(ctx_.fleet.inventory().replace(agent_id, *items, *digest));
        inventory_reports_.Add({{"kind", "full"}}).Increment();
        return InventoryAnswer{};
    }

    static void write_inventory_answer(httplib::Response& res, const InventoryAnswer& answer) {
        for (const auto& [name, value] : answer.headers) res.set_header(name, value);
        if (answer.status == 204) {
            res.status = 204;
        } else if (answer.status == 503) {
            http::write_error(res, 503, "too many inventory reports at once; retry");
        } else {
            http::write_json(res, answer.status, answer.body);
        }
    }

    // A token of the invitations-per-second bucket (one second's worth
    // at most), or false when none is left. While agents are answering an
    // execution the bucket fills at a tenth of the rate: a full inventory
    // costs the CPU of a hundred answers, and the answers are what someone
    // is waiting for.
    bool take_invitation() {
        std::lock_guard lock(invite_mu_);
        const auto now = std::chrono::steady_clock::now();
        const auto last_result = std::chrono::steady_clock::time_point(
            std::chrono::steady_clock::duration(last_result_at_.load(std::memory_order_relaxed)));
        const bool answering = now - last_result < kAnsweringWindow;
        const int configured = std::max(1, ctx_.options.inventory_invitations_per_s);
        const double rate = answering ? std::max(1, configured / 10) : configured;
        invite_tokens_ = std::min(
            rate, invite_tokens_ + rate * std::chrono::duration<double>(now - invite_at_).count());
        invite_at_ = now;
        if (invite_tokens_ < 1.0) return false;
        invite_tokens_ -= 1.0;
        return true;
    }

    bool quarantined(const std::string& agent_id) {
        return ctx_.fleet.registry().quarantined(agent_id);
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
    const AgentCertificates certs_;
    metrics::Family<metrics::Counter>& enrollments_;
    metrics::Family<metrics::Counter>& results_;
    metrics::Family<metrics::Counter>& dropped_;
    metrics::Family<metrics::Counter>& inventory_reports_;
    metrics::Counter& polls_refused_;
    metrics::Counter& results_refused_;
    metrics::Histogram& delivery_seconds_;
    std::atomic<int> inventory_writers_{0};
    // steady_clock ticks of the last result recorded; 0 before the first.
    std::atomic<std::chrono::steady_clock::rep> last_result_at_{0};
    std::mutex invite_mu_;
    double invite_tokens_ = 0;  // guarded by invite_mu_
    std::chrono::steady_clock::time_point invite_at_ = std::chrono::steady_clock::now();  // ditto
    // Last: their threads call back into the members above.
    PollParking parking_;
    ResultIngest ingest_;
    BackgroundWorker background_;
};

}  // namespace

std::shared_ptr<AgentPlaneHandle> register_agent_plane_routes(http::HttpServer& server,
                                                              AgentPlaneContext& context) {
    // Lives as long as the process's route table; the context outlives the
    // server.
    auto plane = std::make_shared<AgentPlane>(context);
    // Through a weak pointer: an enqueue racing the plane's destruction
    // finds nothing to wake instead of a dead object.
    context.fleet.commands().set_ready_listener(
        [weak = std::weak_ptr<AgentPlane>(plane)](const std::string& agent_id) {
            if (auto p = weak.lock()) p->on_ready(agent_id);
        });
    server.post("/agent/v1/enroll", "/agent/v1/enroll",
                [plane](const httplib::Request& q, httplib::Response& r) { plane->enroll(q, r); });
    server.post("/agent/v1/certificate", "/agent/v1/certificate",
                [plane](const httplib::Request& q, httplib::Response& r) {
                    plane->renew_certificate(q, r);
                });
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

    auto& connected = metrics::BuildGauge()
                          .Name("yuzu_agents_connected")
                          .Help("Agents holding a long-poll open right now")
                          .Register(context.metrics)
                          .Add({});
    auto& depth = metrics::BuildGauge()
                      .Name("yuzu_agent_result_ingest_depth")
                      .Help("Agents' results waiting for their group commit")
                      .Register(context.metrics)
                      .Add({});
    context.metrics.AddCollector([weak = std::weak_ptr<AgentPlane>(plane), &connected, &depth] {
        if (auto p = weak.lock()) {
            connected.Set(static_cast<double>(p->held_polls()));
            depth.Set(static_cast<double>(p->ingest_depth()));
            // The queue keeps the total; the counter catches up to it.
            metrics::Counter& abandoned = p->abandoned_counter();
            const double grown = static_cast<double>(p->abandoned()) - abandoned.Value();
            if (grown > 0) abandoned.Increment(grown);
        }
    });

    class Handle final : public AgentPlaneHandle {
      public:
        explicit Handle(std::shared_ptr<AgentPlane> plane) : plane_(std::move(plane)) {}
        void set_result_sink(fleet::CommandResultSink sink) override {
            plane_->set_result_sink(std::move(sink));
        }
        void stop() override { plane_->stop(); }
        void shut_out(const std::string& agent_id) override { plane_->shut_out(agent_id); }

      private:
        std::shared_ptr<AgentPlane> plane_;
    };
    return std::make_shared<Handle>(plane);
}

}  // namespace yuzu::agentapi
