#include "client/identity_worker.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <optional>
#include <random>

#include "client/backoff.hpp"
#include "client/command_executor.hpp"
#include "client/recent_commands.hpp"
#include "yuzu/agent/host_facts.hpp"
#include "yuzu/common/thread_guard.hpp"

namespace yuzu::agent {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr auto kPollReadSlack = seconds(10);         // read timeout = wait_s + this
constexpr auto kMinPollSpacing = milliseconds(500);  // against a server that never holds

class IdentityWorker {
  public:
    IdentityWorker(Identity& identity, const RuntimeContext& ctx)
        : id_(identity),
          ctx_(ctx),
          backoff_(ctx.options.backoff_initial, ctx.options.backoff_max),
          result_backoff_(ctx.options.backoff_initial, ctx.options.backoff_max),
          rng_(std::random_device{}()) {}

    void run() {
        wait_for_first_request();
        if (id_.phase() == IdentityPhase::kEnrolling && !enroll()) return;
        poll_loop();
        if (ctx_.stop.requested() && id_.active()) goodbye();
    }

  private:
    // Sleeps d unless the agent or this identity stops first.
    void sleep(milliseconds d) { (void)id_.sleep_for(d); }

    void wait_for_first_request() {
        const auto now = std::chrono::steady_clock::now();
        if (id_.first_request_at() > now) {
            sleep(std::chrono::ceil<milliseconds>(id_.first_request_at() - now));
        }
    }

    // What a 429/503 asks for (Retry-After, else the default), jittered up.
    milliseconds server_requested_wait(const HttpReply& reply) {
        const int s = reply.retry_after_s.value_or(
            static_cast<int>(ctx_.options.default_retry_after.count()));
        return retry_after_delay(seconds(s), rng_);
    }

    bool keep_going() const { return !ctx_.stop.requested() && id_.active(); }

    // After a 429/503, or a fault: the wait the protocol asks for.
    void wait_before_retry(const HttpReply& reply, const char* what) {
        if (classify_reply(reply) == ReplyAction::kRetryAfter) {
            const milliseconds delay = server_requested_wait(reply);
            spdlog::info("{}: {} deferred by the server ({}); retrying in {} ms", id_.label(), what,
                         describe_reply(reply), delay.count());
            sleep(delay);
            return;
        }
        const milliseconds delay = backoff_.next();
        spdlog::warn("{}: {} failed ({}); retrying in {} ms", id_.label(), what,
                     describe_reply(reply), delay.count());
        sleep(delay);
    }

    bool enroll() {
        const HostFacts facts = read_host_facts(ctx_.options.host_paths);
        const std::string body =
            enroll_body(ctx_.options.enrollment_token, facts, enrollment_csr());
        while (!ctx_.stop.requested() && id_.phase() == IdentityPhase::kEnrolling) {
            std::optional<bool> enrolled;
            // A throw is logged and counted, then backed off like a fault.
            if (!run_guarded("agent.enroll", [&] { enrolled = try_enroll(body); })) {
                sleep(backoff_.next());
                continue;
            }
            if (enrolled) return *enrolled;
        }
        return false;
    }

    // The request for the identity's client key (made now if absent). ""
    // when the key cannot be made: the identity then enrolls, and runs,
    // without a client certificate.
    std::string enrollment_csr() {
        auto csr = id_.credential().enrollment_csr(id_.name());
        if (csr.ok()) return std::move(*csr);
        spdlog::warn("{}: no client key ({}); enrolling without a client certificate", id_.name(),
                     csr.status().message());
        return {};
    }

    // One enrollment attempt: whether it enrolled, or nullopt to try again.
    std::optional<bool> try_enroll(const std::string& body) {
        const HttpReply reply = id_.poll_channel().post("/agent/v1/enroll", "", body);
        if (ctx_.stop.requested()) return false;
        switch (classify_reply(reply)) {
            case ReplyAction::kAccepted:
                return finish_enrollment(reply);
            case ReplyAction::kRefused:
                spdlog::error(
                    "{}: enrollment token refused by the server ({}); give a new "
                    "--enrollment-token to enroll this identity",
                    id_.name(), describe_reply(reply));
                id_.halt();
                return false;
            case ReplyAction::kRejected:
                spdlog::error("{}: enrollment rejected ({}); this identity stops", id_.name(),
                              describe_reply(reply));
                id_.halt();
                return false;
            case ReplyAction::kRetryAfter:
            case ReplyAction::kBackOff:
                wait_before_retry(reply, "enrollment");
                break;
        }
        return std::nullopt;
    }

    bool finish_enrollment(const HttpReply& reply) {
        auto answer = parse_enroll_answer(reply.body);
        if (!answer.ok()) {
            spdlog::error("{}: {} ({}); this identity stops", id_.name(), answer.status().message(),
                          describe_reply(reply));
            id_.halt();
            return false;
        }
        IdentityRecord record;
        record.server_url = ctx_.endpoint.url();
        record.agent_id = answer->agent_id;
        record.device_token = answer->device_token;
        record.enrolled_at_ms = ctx_.options.clock->now_ms();
        // Installed before identity.json is written, so an identity on disk
        // always has the certificate it was issued, and before the first
        // heartbeat, which activation lets go.
        std::optional<Result<CertificateInfo>> installed;
        if (answer->certificate) installed = id_.credential().install(*answer->certificate);
        // An identity that could not be saved would enroll again on every start.
        if (Status saved = save_identity(id_.dir(), record); !saved.ok()) {
            spdlog::error("{}: enrolled as {} but {}; this identity stops", id_.name(),
                          record.agent_id, saved.message());
            id_.halt();
            return false;
        }
        id_.apply(answer->settings);
        id_.activate(std::move(record));
        backoff_.reset();
        spdlog::info("{}: enrolled with {}", id_.label(), ctx_.endpoint.url());
        if (installed && installed->ok()) {
            spdlog::info("{}: client certificate installed (serial {}, expires {})", id_.label(),
                         (*installed)->serial_hex, (*installed)->not_after);
        } else if (installed) {
            spdlog::warn(
                "{}: the server issued a client certificate that cannot be installed ({}); "
                "carrying on without one",
                id_.label(), installed->status().message());
        }
        return true;
    }

    void poll_loop() {
        for (bool more = true; more && keep_going();) {
            // A poll (or a command it delivered) that throws is logged and
            // counted, then backed off like a fault; the loop goes on.
            if (!run_guarded("agent.command_poll", [this, &more] { more = poll_once(); })) {
                sleep(backoff_.next());
            }
        }
    }

    // One long-poll and the commands it brought; false: this identity stops
    // polling. The poll is the answer to the last result when the server
    // gave one, else a GET.
    bool poll_once() {
        auto started = std::chrono::steady_clock::now();
        HttpReply reply;
        if (chained_) {
            reply = std::move(chained_->reply);
            started = chained_->started;
            chained_.reset();
        } else {
            const int wait_s = id_.poll_wait_s();
            reply =
                id_.poll_channel().get("/agent/v1/commands?wait_s=" + std::to_string(wait_s),
                                       id_.record().device_token, seconds(wait_s) + kPollReadSlack);
        }
        if (ctx_.stop.requested()) return false;
        switch (classify_reply(reply)) {
            case ReplyAction::kAccepted: {
                const bool idle = handle_commands(reply);
                const auto elapsed = std::chrono::steady_clock::now() - started;
                if (idle && elapsed < kMinPollSpacing) {
                    sleep(std::chrono::duration_cast<milliseconds>(kMinPollSpacing - elapsed));
                }
                break;
            }
            case ReplyAction::kRefused:
                id_.refuse("the command poll", reply);
                return false;
            case ReplyAction::kRetryAfter:
            case ReplyAction::kBackOff:
            case ReplyAction::kRejected:
                wait_before_retry(reply, "command poll");
                break;
        }
        return true;
    }

    // Runs what the answer delivered. True when it was a well-formed answer
    // with no commands (the poll simply timed out on the server).
    bool handle_commands(const HttpReply& reply) {
        auto answer = parse_commands_answer(reply.body);
        if (!answer.ok()) {
            const milliseconds delay = backoff_.next();
            spdlog::warn("{}: {}; polling again in {} ms", id_.label(), answer.status().message(),
                         delay.count());
            sleep(delay);
            return false;
        }
        backoff_.reset();
        ServerSettings settings;
        settings.quarantined = answer->quarantined;
        id_.apply(settings);
        if (answer->skipped > 0) {
            spdlog::warn("{}: {} command(s) without a command_id ignored", id_.label(),
                         answer->skipped);
        }
        const size_t n = answer->commands.size();
        for (size_t i = 0; i < n; ++i) {
            if (!keep_going()) break;
            // The last result carries the next poll.
            handle_command(answer->commands[i], /*then_poll=*/i + 1 == n);
        }
        return answer->commands.empty();
    }

    void handle_command(const AgentCommand& cmd, bool then_poll) {
        if (const std::string* sent = recent_.find(cmd.command_id)) {
            spdlog::debug("{}: command {} delivered again; resending its result", id_.label(),
                          cmd.command_id);
            post_result(cmd.command_id, *sent, then_poll);
            return;
        }
        const bool quarantined = id_.quarantined();
        spdlog::info("{}: command {} {}.{}{}", id_.label(), cmd.command_id, cmd.plugin, cmd.action,
                     quarantined ? " refused (quarantined)" : "");
        std::string body = execute_command(cmd, quarantined, ctx_.plugins);
        recent_.remember(cmd.command_id, body);
        post_result(cmd.command_id, body, then_poll);
    }

    // Retried until accepted or the identity stops while the server is away
    // (no answer, 5xx) or busy (429/503); a 401 stops the identity; any
    // other 4xx (a 409, a 400) would refuse the same body again: dropped.
    // With then_poll the post asks the server to answer with the next poll
    // (a 200 with commands), kept for poll_once(); a 204 means the server
    // answers results alone, and poll_once() polls.
    void post_result(const std::string& command_id, const std::string& body, bool then_poll) {
        // One per identity, reset per result: seeding a random source for
        // every result stood out in the 10,000-identity profile.
        Backoff& retry = result_backoff_;
        retry.reset();
        while (keep_going()) {
            const int wait_s = id_.poll_wait_s();
            const auto started = std::chrono::steady_clock::now();
            const HttpReply reply =
                then_poll
                    ? id_.poll_channel().post("/agent/v1/results?wait_s=" + std::to_string(wait_s),
                                              id_.record().device_token, body,
                                              seconds(wait_s) + kPollReadSlack)
                    : id_.poll_channel().post("/agent/v1/results", id_.record().device_token, body);
            switch (classify_reply(reply)) {
                case ReplyAction::kAccepted:
                    if (then_poll && reply.status == 200) chained_ = Chained{reply, started};
                    return;
                case ReplyAction::kRefused:
                    id_.refuse("a result", reply);
                    return;
                case ReplyAction::kRejected:
                    spdlog::warn("{}: result for command {} not accepted ({})", id_.label(),
                                 command_id, describe_reply(reply));
                    return;
                case ReplyAction::kRetryAfter:
                    sleep(server_requested_wait(reply));
                    break;
                case ReplyAction::kBackOff: {
                    // A held post cut short because the agent stops is no failure.
                    if (!keep_going()) return;
                    const milliseconds delay = retry.next();
                    spdlog::warn(
                        "{}: posting the result of command {} failed ({}); retrying in "
                        "{} ms",
                        id_.label(), command_id, describe_reply(reply), delay.count());
                    sleep(delay);
                    break;
                }
            }
        }
    }

    // A fresh connection: the identity's own may have just been cancelled.
    void goodbye() {
        HttpTimeouts t;
        t.connect = ctx_.options.goodbye_timeout;
        t.read = ctx_.options.goodbye_timeout;
        t.write = ctx_.options.goodbye_timeout;
        HttpChannel channel(ctx_.endpoint, ctx_.options.ca_file, t, id_.source_address(),
                            /*keep_alive=*/false, &id_.credential());
        const HttpReply reply = channel.post("/agent/v1/goodbye", id_.record().device_token, "{}");
        if (reply.ok()) {
            spdlog::info("{}: said goodbye", id_.label());
        } else {
            spdlog::warn("{}: goodbye not delivered ({})", id_.label(), describe_reply(reply));
        }
    }

    Identity& id_;
    const RuntimeContext& ctx_;
    // The poll answer that came back with the last result.
    struct Chained {
        HttpReply reply;
        std::chrono::steady_clock::time_point started;  // when its request went out
    };

    Backoff backoff_;
    Backoff result_backoff_;
    std::mt19937_64 rng_;  // jitters server-requested waits
    RecentCommands recent_;
    std::optional<Chained> chained_;
};

}  // namespace

void run_identity(Identity& identity, const RuntimeContext& ctx) {
    IdentityWorker(identity, ctx).run();
}

}  // namespace yuzu::agent
