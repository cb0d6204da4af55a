// GET /api/v1/events?execution_id=<id>: one execution's events as
// Server-Sent Events, for REST clients that want progress without polling.
//
// Each event is written as
//   id: <seq>\nevent: <type>\ndata: <json>\n\n
// with the types and seq of the ExecutionEventBus (dispatched,
// agent_responded, agent_failed, agent_timed_out, agent_offline,
// completed). A stream usually opens after the dispatch, so it starts with
// what already happened, rebuilt from the stored state and marked
// "replayed": true (without an id line): dispatched, every agent already
// settled, and completed when the execution is already over. A `: keepalive`
// comment goes out every 15 s of silence. The stream ends after
// `completed`, when the client goes away (noticed at the next write) or
// when the server stops (the bus closes; the worker checks every 500 ms).
//
// Each open stream holds one management worker and a slot of the
// listener's stream budget (--max-sse-streams, shared with the MCP GET
// channel; at most --mcp-max-streams-per-principal event streams per user,
// counted apart from that user's MCP streams); beyond it the answer is 429
// with Retry-After. Permission: Execution:Read; agent events
// of agents outside the caller's management groups are left out, and an execution the caller cannot
// see answers 404 like an unknown one.
#include <chrono>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "execution_route_support.hpp"
#include "route_registry.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/execution/event_bus.hpp"
#include "yuzu/execution/execution_json.hpp"
#include "yuzu/execution/executions.hpp"
#include "yuzu/http/sse_writer.hpp"
#include "yuzu/http/stream_budget.hpp"

namespace yuzu::web {
namespace {

using auth::Operation;
using auth::Permission;
using auth::Securable;
using nlohmann::json;
using std::chrono::steady_clock;

const Permission kRead{Securable::kExecution, Operation::kRead};
constexpr auto kPopSlice = std::chrono::milliseconds(500);
constexpr auto kKeepaliveEvery = std::chrono::seconds(15);
constexpr int kBusyRetryAfterS = 5;
// An execution event is a few hundred bytes; the cap only guards against a
// runaway error text.
constexpr size_t kMaxFrameBytes = size_t{64} * 1024;

execution::ExecutionEventType event_type_for_state(const std::string& state) {
    using T = execution::ExecutionEventType;
    if (state == "responded") return T::kAgentResponded;
    if (state == "timed_out") return T::kAgentTimedOut;
    if (state == "offline") return T::kAgentOffline;
    return T::kAgentFailed;  // failed, refused, dispatch_failed
}

// One open stream: used only by the worker thread serving it.
struct EventStream {
    explicit EventStream(execution::Subscription sub) : subscription(std::move(sub)) {}

    execution::Subscription subscription;
    access::VisibleExecution start;  // the state when the stream opened
    std::set<std::string> reported;  // agents whose settled state was sent
    bool replayed = false;
    steady_clock::time_point last_write = steady_clock::now();
};

std::string frame(const execution::ExecutionEvent& event, bool replayed) {
    json data = execution::to_json(event);
    http::SseEvent sse;
    if (replayed) {
        data["replayed"] = true;
    } else {
        sse.id = event.seq;
    }
    sse.event = execution::event_type_name(event.type);
    sse.data = dump_json(data);
    auto text = http::SseWriter(kMaxFrameBytes).frame(sse);
    if (text.ok()) return std::move(text).value();
    // Only an oversized error text gets here: the event goes out without it.
    data.erase("error");
    data["error_truncated"] = true;
    sse.data = dump_json(data);
    return http::SseWriter(std::numeric_limits<size_t>::max()).frame(sse).value();
}

bool write(EventStream& stream, httplib::DataSink& sink, const std::string& text) {
    stream.last_write = steady_clock::now();
    return sink.write(text.data(), text.size());
}

// What already happened, from the stored state. Answers whether the
// execution was already over (then `completed` has been written).
bool replay(EventStream& stream, httplib::DataSink& sink, bool& ok) {
    const auto& record = stream.start.record;
    execution::ExecutionEvent base;
    base.execution_id = record.execution_id;
    base.status = record.status;
    base.counts = record.counts;
    base.at_ms = record.dispatched_at_ms;
    base.type = execution::ExecutionEventType::kDispatched;
    ok = write(stream, sink, frame(base, true));
    for (const auto& agent : stream.start.agents) {
        if (!ok || agent.state == "dispatched") continue;
        execution::ExecutionEvent e = base;
        e.type = event_type_for_state(agent.state);
        e.agent_id = agent.agent_id;
        e.agent_state = agent.state;
        e.error = agent.error;
        e.at_ms = agent.updated_at_ms;
        stream.reported.insert(agent.agent_id);
        ok = write(stream, sink, frame(e, true));
    }
    if (!ok || !execution::is_terminal_status(record.status)) return false;
    execution::ExecutionEvent done = base;
    done.type = execution::ExecutionEventType::kCompleted;
    done.at_ms = record.completed_at_ms;
    ok = write(stream, sink, frame(done, true));
    return true;
}

// Whether a live event goes to this client.
bool wanted(const EventStream& stream, const execution::ExecutionEvent& event) {
    using T = execution::ExecutionEventType;
    if (event.type == T::kDispatched) return false;  // replayed already
    if (event.agent_id.empty()) return true;
    return execution::in_view(stream.start.view, event.agent_id) &&
           stream.reported.count(event.agent_id) == 0;
}

// The chunked provider: called by the worker until it ends the stream.
bool pump(EventStream& stream, httplib::DataSink& sink) {
    if (!stream.replayed) {
        stream.replayed = true;
        bool ok = true;
        if (replay(stream, sink, ok)) {
            sink.done();
            return ok;
        }
        return ok;
    }
    auto event = stream.subscription.pop(kPopSlice);
    if (event) {
        if (!wanted(stream, *event)) return true;
        if (!event->agent_id.empty()) stream.reported.insert(event->agent_id);
        if (!write(stream, sink, frame(*event, false))) return false;
        if (event->type == execution::ExecutionEventType::kCompleted) sink.done();
        return true;
    }
    if (stream.subscription.closed()) {
        sink.done();  // the server is stopping
        return true;
    }
    if (steady_clock::now() - stream.last_write >= kKeepaliveEvery) {
        return write(stream, sink, http::SseWriter::comment("keepalive"));
    }
    return true;
}

void stream_events(const WebContext& ctx, http::StreamBudget& budget, const httplib::Request& req,
                   httplib::Response& res, const auth::Principal& who) {
    const std::string id = query_param(req, "execution_id").value_or("");
    if (!tier_permits(ctx, req, res, who, kRead, "execution.events", "execution", id)) return;
    if (id.empty()) {
        http::write_error(res, 400, "query parameter 'execution_id' is required");
        return;
    }
    // Subscribe before reading the state, so nothing falls between the two.
    auto stream = std::make_shared<EventStream>(executions_of(ctx).events().subscribe(id));
    auto start = visible_execution(ctx, who, kRead, id);
    if (!start.ok()) {
        write_status(res, start.status());
        return;
    }
    stream->start = std::move(start).value();
    // Counted apart from the user's MCP streams (a NUL cannot occur in a
    // username, so the key cannot name one), under the same per-principal
    // cap: one user cannot hold every slot of the listener.
    auto admission = budget.acquire(std::string("events\0", 7) + who.username);
    if (!admission.lease) {
        res.set_header("Retry-After", std::to_string(kBusyRetryAfterS));
        const bool mine = admission.refusal == http::StreamBudget::Refusal::kPerPrincipalCap;
        http::write_error(
            res, 429,
            mine
                ? "you have the most event streams one user may hold open (" +
                      std::to_string(budget.per_principal_cap()) + "); close one, or retry after " +
                      std::to_string(kBusyRetryAfterS) + " s"
                : "too many event streams are open (at most " + std::to_string(budget.cap()) +
                      " on this listener); retry after " + std::to_string(kBusyRetryAfterS) + " s");
        return;
    }
    auto lease = std::make_shared<http::StreamBudget::Lease>(std::move(*admission.lease));
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Accel-Buffering", "no");
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_chunked_content_provider(
        "text/event-stream",
        [stream](size_t, httplib::DataSink& sink) { return pump(*stream, sink); },
        [lease](bool) { lease->release(); });
}

}  // namespace

void register_events_routes(http::HttpServer& server, const WebContext& ctx) {
    if (ctx.executions == nullptr || ctx.fleet == nullptr) return;
    http::StreamBudget& budget = server.stream_budget();
    server.get("/api/v1/events", "/api/v1/events",
               authed(ctx, [&ctx, &budget](const httplib::Request& req, httplib::Response& res,
                                           const http::Authenticated& who) {
                   stream_events(ctx, budget, req, res, who.principal);
               }));
}

}  // namespace yuzu::web
