-- wrk script for the pipeline benchmark: every request is the same JSON-RPC
-- POST, read from the file named by BENCH_BODY, with the bearer token from
-- BENCH_TOKEN (empty for the baseline). done() prints one JSON line that
-- bench/pipeline/run_points.py reads.
local body_path = os.getenv("BENCH_BODY")
local f = assert(io.open(body_path, "rb"))
local body = f:read("*a")
f:close()

wrk.method = "POST"
wrk.body = body
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-06-18"
local token = os.getenv("BENCH_TOKEN") or ""
if token ~= "" then
  wrk.headers["Authorization"] = "Bearer " .. token
end

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  io.write(string.format(
    '{"requests":%d,"seconds":%.3f,"rps":%.1f,"p50_ms":%.3f,"p99_ms":%.3f,' ..
    '"non2xx":%d,"connect_errors":%d,"read_errors":%d,"write_errors":%d,"timeouts":%d}\n',
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.status, summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.timeout))
end
