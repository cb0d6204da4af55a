// Every retry_after_ms the MCP server emits comes from one of these named
// constants — error-shaped (error.data) and, for the three result-poll tools,
// success-shaped (in the tool's own payload). Each keeps its own symbol even
// where values coincide, so one can be re-tuned without dragging another.
#pragma once

#include <cstdint>

namespace yuzu::mcp {

// A transient store or subsystem fault on an error-shaped response. Matches
// the REST 503 Retry-After: long enough for a WAL checkpoint or a busy
// writer to clear (busy_timeout is 5 s), short enough not to strand a client.
inline constexpr int64_t kMcpStoreFaultRetryMs = 5000;

// Plugin-config and API-token-rotation faults. Parity with the REST
// Retry-After: 2 on those routes: the contention is a single row, released
// within one request's lifetime.
inline constexpr int64_t kMcpStoreFaultShortRetryMs = 2000;

// A provider (DEX/app-perf) still initialising at server start: its first
// aggregation pass takes a few seconds after boot.
inline constexpr int64_t kMcpProviderWarmupRetryMs = 5000;

// Success-shaped "result not ready" from get_execution_status,
// query_responses and get_bundle_result. No dispatch-to-first-result
// histogram exists to measure from, so this is one agent heartbeat/long-poll
// cycle; counted by yuzu_mcp_poll_total{tool,result} so it can be tuned from
// real poll rates.
inline constexpr int64_t kMcpResultPollRetryMs = 2000;

// An approval ticket (-32006) waits on a human: polling faster than every
// 30 s only amplifies load; minting is deduplicated, so a recall before the
// ticket resolves returns the same pending ticket.
inline constexpr int64_t kMcpApprovalPollRetryMs = 30000;

// A GET stream refused by --max-sse-streams or
// --mcp-max-streams-per-principal (-32012). A slot frees when another
// client's stream ends, which is not tied to any request's lifetime; five
// seconds keeps a refused client from hammering while the cap is full.
inline constexpr int64_t kMcpStreamCapRetryMs = 5000;

// A streamed POST refused at admission (-32012: stream caps, the bridge's
// record cap, the session's streamed-call slots). A streamed slot is held
// until its work finishes, so the GET figure would only cause a retry storm.
inline constexpr int64_t kMcpStreamedPostRetryMs = 30000;

// initialize refused by the global session cap, or during shutdown. Idle
// sessions expire on their own (30 min TTL), so this only spreads retries.
inline constexpr int64_t kMcpSessionCapRetryMs = 5000;

}  // namespace yuzu::mcp
