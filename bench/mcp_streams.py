#!/usr/bin/env python3
"""MCP GET streams at scale: what 1,000 idle session streams cost one yuzu-server.

One run starts one server (ephemeral loopback ports, a temporary data dir) with
room for the streams (--max-sse-streams 1100, --mcp-max-streams-per-principal
1100, --mcp-max-sessions-per-principal 1100, --mcp-max-sessions 2000), then:
  1. times --calls sequential tools/call of a cheap read tool with no stream open
     (p50, p99; one started every --call-interval-ms at most, so the calls span
     more than one heartbeat tick) and reads the server's RSS and thread count;
  2. opens --streams sessions (initialize + notifications/initialized), each with
     a GET /mcp/v1/ stream held open on a raw socket by a holder process at
     nice 5 that reads and discards the heartbeats; waits until
     yuzu_mcp_streams_active reads --streams and one heartbeat tick has passed;
  3. reads RSS and threads again, and the server's CPU over that tick;
  4. times the same calls again with the streams open;
  5. closes the streams and waits for yuzu_mcp_streams_active to read 0.
Reports rss_per_stream_kib = (RSS with - RSS without) / streams, the p50s and
p99s and the p99 ratio, threads before and after. See bench/README.md.
"""
import argparse
import http.client
import json
import os
import resource
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fleet_scale import ROOT, Server, cpu_seconds, metric, pct  # noqa: E402

PROTOCOL_VERSION = "2025-06-18"


def rss_kib(pid):
    """(VmRSS in KiB, threads) of a process, from /proc/<pid>/status."""
    rss, threads = 0, 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    return rss, threads


def raise_nofile(wanted):
    """Raises this process's soft RLIMIT_NOFILE to `wanted` (within the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= wanted:
        return soft
    new = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
    if new < wanted:
        raise SystemExit(f"open-files hard limit is {hard}; {wanted} are needed "
                         "(raise ulimit -Hn or lower --streams)")
    return new


def post(host, port, token, message, session=None, timeout=30):
    """One JSON-RPC message by POST on a fresh connection: (status, headers, body)."""
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": PROTOCOL_VERSION}
        if session:
            headers["Mcp-Session-Id"] = session
        conn.request("POST", "/mcp/v1/", body=json.dumps({"jsonrpc": "2.0", **message}),
                     headers=headers)
        r = conn.getresponse()
        data = r.read()
        return r.status, r.headers, (json.loads(data) if data else None)
    finally:
        conn.close()


def time_calls(host, port, token, tool, n, interval_ms=0.0, slow_ms=10.0):
    """n sequential sessionless tools/call of `tool` (no arguments), one every
    interval_ms at most: (milliseconds of each, [(seconds into the run, ms)
    of the calls over slow_ms])."""
    out, slow = [], []
    start = time.perf_counter()
    for i in range(n):
        t0 = time.perf_counter()
        status, _, body = post(host, port, token, {"id": i + 1, "method": "tools/call",
                                                   "params": {"name": tool, "arguments": {}}})
        ms = (time.perf_counter() - t0) * 1000
        out.append(ms)
        if ms > slow_ms:
            slow.append((round(t0 - start, 2), round(ms, 1)))
        if status != 200 or "error" in body or body["result"].get("isError"):
            raise SystemExit(f"tools/call {tool}: HTTP {status}: {json.dumps(body)[:300]}")
        rest = interval_ms / 1000.0 - (time.perf_counter() - t0)
        if rest > 0:
            time.sleep(rest)
    return out, slow


# --- the stream holder (a child process: `mcp_streams.py --hold`) ---------------

def hold(args):
    """Opens args.streams sessions with a GET stream each; prints one JSON line
    when all are primed (or failed), holds them until stdin closes, then closes
    them and prints a second JSON line."""
    raise_nofile(args.streams + 64)
    host, port = args.host, args.port
    token = os.environ["BENCH_MCP_TOKEN"]
    t0 = time.monotonic()
    sessions = []
    for i in range(args.streams):
        status, headers, body = post(host, port, token, {
            "id": 1, "method": "initialize",
            "params": {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                       "clientInfo": {"name": "yuzu-bench-mcp-streams", "version": "1"}}})
        sid = headers.get("Mcp-Session-Id")
        if status != 200 or not sid:
            print(json.dumps({"error": f"initialize {i}: HTTP {status}: {json.dumps(body)[:300]}"}),
                  flush=True)
            return 1
        status, _, _ = post(host, port, token, {"method": "notifications/initialized"}, sid)
        if status != 202:
            print(json.dumps({"error": f"notifications/initialized {i}: HTTP {status}"}), flush=True)
            return 1
        sessions.append(sid)
    sessions_s = time.monotonic() - t0

    sel = selectors.DefaultSelector()
    state = {}  # socket -> {"buf": bytes, "primed": bool}
    failed = []

    def pump(timeout):
        for key, _ in sel.select(timeout):
            if key.fileobj is sys.stdin:
                continue
            s = key.fileobj
            st = state[s]
            try:
                chunk = s.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError as e:
                chunk, st["error"] = b"", str(e)
            if not chunk:
                sel.unregister(s)
                s.close()
                st["closed"] = True
                if not st["primed"]:
                    failed.append(st.get("error") or st["buf"][:300].decode("latin1"))
                continue
            st["bytes"] += len(chunk)
            if not st["primed"]:
                st["buf"] += chunk
                head_end = st["buf"].find(b"\r\n\r\n")
                if head_end >= 0 and not st["buf"].startswith(b"HTTP/1.1 200"):
                    failed.append(st["buf"][:300].decode("latin1"))
                    sel.unregister(s)
                    s.close()
                    st["closed"] = True
                elif head_end >= 0 and b"\nretry:" in st["buf"][head_end:]:
                    st["primed"] = True
                    st["buf"] = b""

    t1 = time.monotonic()
    for sid in sessions:
        s = socket.create_connection((host, port), timeout=30)
        s.sendall((f"GET /mcp/v1/ HTTP/1.1\r\nHost: {host}:{port}\r\n"
                   f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n"
                   f"Mcp-Session-Id: {sid}\r\nMCP-Protocol-Version: {PROTOCOL_VERSION}\r\n\r\n")
                  .encode())
        s.setblocking(False)
        state[s] = {"buf": b"", "primed": False, "closed": False, "bytes": 0}
        sel.register(s, selectors.EVENT_READ)
        pump(0)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        primed = sum(1 for st in state.values() if st["primed"])
        if primed + len(failed) >= len(state):
            break
        pump(0.2)
    primed = sum(1 for st in state.values() if st["primed"] and not st["closed"])
    print(json.dumps({"sessions_s": round(sessions_s, 3), "open_s": round(time.monotonic() - t1, 3),
                      "primed": primed, "failed": len(failed), "first_failure": failed[:1]}),
          flush=True)

    # Hold: read and discard heartbeats until the parent closes our stdin.
    sel.register(sys.stdin, selectors.EVENT_READ)
    while True:
        ready = sel.select(1.0)
        if any(key.fileobj is sys.stdin for key, _ in ready):
            if not os.read(sys.stdin.fileno(), 4096):
                break
        pump(0)
    ended_early = sum(1 for st in state.values() if st["primed"] and st["closed"])
    held_bytes = sum(st["bytes"] for st in state.values())
    for s in list(state):
        if not state[s]["closed"]:
            s.close()
    print(json.dumps({"ended_by_server": ended_early, "bytes_read": held_bytes}), flush=True)
    return 0


# --- the run --------------------------------------------------------------------

def wait_metric(url, name, value, limit_s):
    """Seconds until the gauge `name` reads `value`, or None after limit_s."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < limit_s:
        try:
            if metric(url, name) == value:
                return time.monotonic() - t0
        except OSError:
            pass
        time.sleep(0.1)
    return None


def run(args):
    n = args.streams
    cap = max(1100, n + 100)
    flags = ["--max-sse-streams", str(cap), "--mcp-max-streams-per-principal", str(cap),
             "--mcp-max-sessions-per-principal", str(cap), "--mcp-max-sessions", str(max(2000, 2 * n))]
    if n + 64 > 1024:  # the listener's --max-connections default
        flags += ["--max-connections", str(n + 256)]
    flags += ["--mcp-stream-tick-ms", str(args.tick_ms)] + args.server_flag
    data_dir = tempfile.mkdtemp(prefix="yuzu-bench-streams-")
    server = Server(args.build_dir, data_dir, flags)
    holder = None
    row = {"streams": n, "calls": args.calls, "tool": args.tool}
    ok = False
    try:
        server.start()
        host, port = server.url.split("//", 1)[1].rsplit(":", 1)
        port = int(port)
        token = server.cli("token", "create", "--user", "admin", "--tier", "operator",
                           "--name", "bench-streams")["token"]
        _, _, listed = post(host, port, token, {"id": 1, "method": "tools/list"})
        names = [t["name"] for t in listed["result"]["tools"]]
        if args.tool not in names:
            raise SystemExit(f"{args.tool} is not in tools/list for an operator token: {names}")
        pid = server.proc.pid

        time_calls(host, port, token, args.tool, 50)  # warm-up, not counted
        without, row["slow_calls_without"] = time_calls(host, port, token, args.tool, args.calls,
                                                        args.call_interval_ms)
        rss0, threads0 = rss_kib(pid)
        row.update({"p50_without_ms": pct(without, 50), "p99_without_ms": pct(without, 99),
                    "rss_without_mib": rss0 / 1024.0, "threads_without": threads0})

        env = dict(os.environ, BENCH_MCP_TOKEN=token)
        holder = subprocess.Popen(
            ["nice", "-n", str(args.holder_nice), sys.executable, os.path.abspath(__file__),
             "--hold", "--host", host, "--port", str(port), "--streams", str(n)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
        opened = json.loads(holder.stdout.readline() or '{"error": "the holder died"}')
        if "error" in opened:
            row["note"] = opened["error"]
            return row, False
        row.update({"sessions_s": opened["sessions_s"], "streams_open_s": opened["open_s"],
                    "primed": opened["primed"], "stream_failures": opened["failed"]})
        if opened["failed"]:
            row["first_failure"] = opened["first_failure"]
        active = wait_metric(server.url, "yuzu_mcp_streams_active", n, 60)
        if active is None:
            row["note"] = (f"yuzu_mcp_streams_active read {metric(server.url, 'yuzu_mcp_streams_active')}"
                           f", not {n}")
            return row, False
        # One whole heartbeat tick, so every stream has written a heartbeat and
        # re-checked its credential at least once: the steady state.
        cpu0 = cpu_seconds(pid)
        settle = args.tick_ms / 1000.0 + 0.5
        time.sleep(settle)
        row["idle_cpu_pct"] = (cpu_seconds(pid) - cpu0) / settle * 100
        rss1, threads1 = rss_kib(pid)
        row.update({"rss_with_mib": rss1 / 1024.0, "threads_with": threads1,
                    "rss_per_stream_kib": (rss1 - rss0) / n})

        with_streams, row["slow_calls_with"] = time_calls(host, port, token, args.tool, args.calls,
                                                          args.call_interval_ms)
        row.update({"p50_with_ms": pct(with_streams, 50), "p99_with_ms": pct(with_streams, 99)})
        row["p99_ratio"] = row["p99_with_ms"] / row["p99_without_ms"]
        row["p50_ratio"] = row["p50_with_ms"] / row["p50_without_ms"]
        row["streams_active_during_calls"] = metric(server.url, "yuzu_mcp_streams_active")

        holder.stdin.close()
        closed = json.loads(holder.stdout.readline() or "{}")
        holder.wait(60)
        row["ended_by_server"] = closed.get("ended_by_server")
        row["drain_s"] = wait_metric(server.url, "yuzu_mcp_streams_active", 0, 60)
        ok = (opened["primed"] == n and row["ended_by_server"] == 0 and row["drain_s"] is not None
              and row["streams_active_during_calls"] == n)
        return row, ok
    finally:
        if holder is not None and holder.poll() is None:
            holder.kill()
            holder.wait()
        server.stop()
        if not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
        else:
            print(f"kept {data_dir}", file=sys.stderr)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--streams", type=int, default=1000, help="idle GET streams to hold (default 1000)")
    p.add_argument("--calls", type=int, default=300, help="timed tools/call per phase (default 300)")
    p.add_argument("--call-interval-ms", type=float, default=20.0,
                   help="start a timed call at most every this many ms (default 20: 300 calls "
                        "span 6 s, two heartbeat ticks; 0 = back to back)")
    p.add_argument("--tool", default="get_dex_perf_fleet",
                   help="the read tool to time, called with no arguments (default get_dex_perf_fleet)")
    p.add_argument("--tick-ms", type=int, default=3000,
                   help="--mcp-stream-tick-ms of the server (default 3000, the server's default)")
    p.add_argument("--holder-nice", type=int, default=5,
                   help="nice(1) level of the stream holder (default 5; 0 to compete evenly)")
    p.add_argument("--server-flag", action="append", default=[],
                   help="extra yuzu-server flag (repeatable), e.g. --server-flag=--http-worker-threads=1200")
    p.add_argument("--keep", action="store_true", help="keep the data dir and server.log")
    p.add_argument("--json", action="store_true", help="print the row as JSON only")
    # The holder process (internal).
    p.add_argument("--hold", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--host", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.hold:
        return hold(args)
    if args.streams < 1 or args.calls < 1:
        p.error("--streams and --calls must be at least 1")
    raise_nofile(args.streams + 256)
    row, ok = run(args)
    print(json.dumps(row), flush=True)
    if not args.json:
        cols = ["streams", "calls", "p50_without_ms", "p50_with_ms", "p99_without_ms",
                "p99_with_ms", "p99_ratio", "rss_without_mib", "rss_with_mib",
                "rss_per_stream_kib", "threads_without", "threads_with", "idle_cpu_pct",
                "streams_open_s", "drain_s"]
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
        cells = []
        for c in cols:
            v = row.get(c, "")
            cells.append(f"{v:.2f}" if isinstance(v, float) else str(v))
        print("| " + " | ".join(cells) + " |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
