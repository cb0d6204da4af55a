#!/usr/bin/env python3
"""Fleet-at-scale benchmark: one yuzu-server, one `yuzu-agent --virtual N`.

For each N it starts a fresh server (default flags, ephemeral loopback ports,
a temporary data dir) and one agent process driving N identities, then
measures:
  online_s      agent start -> every identity online (server's own gauge)
  answer_s      execute_instruction os.info on all N -> the last answer recorded
  lost          answers not recorded when the execution settled (must be 0)
  restart_s     kill -9 of the server with N connected -> all N online again
  mgmt p99      tools/call and /livez latency while the fleet heartbeats and answers
  answer2_s     after the restart, the same dispatch again (inventories now
                confirmed by digest: the steady state)
plus server threads / RSS and the agent process's RSS. See bench/README.md.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_seconds(pid):
    """User + system CPU time of a process so far, in seconds."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


def proc_status(pid):
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                out[k] = v.strip()
    except OSError:
        return {"threads": 0, "rss_mib": 0.0}
    rss_kb = int(out.get("VmRSS", "0 kB").split()[0])
    return {"threads": int(out.get("Threads", "0")), "rss_mib": rss_kb / 1024.0}


class Server:
    def __init__(self, build, data_dir, extra):
        self.build, self.data_dir, self.extra = build, data_dir, extra
        self.proc = None
        self.log = open(os.path.join(data_dir, "server.log"), "ab")

    def start(self, agent_port=0):
        listen_file = os.path.join(self.data_dir, "listen.json")
        if os.path.exists(listen_file):
            os.unlink(listen_file)
        env = dict(os.environ, YUZU_BOOTSTRAP_ADMIN_PASSWORD="bench-admin-password-1")
        args = [os.path.join(self.build, "bin", "yuzu-server"), "--data-dir", self.data_dir,
                "--listen", "127.0.0.1:0", "--agent-listen", f"127.0.0.1:{agent_port}",
                "--log-level", os.environ.get("BENCH_SERVER_LOG", "warn")] + self.extra
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log, env=env)
        for _ in range(600):
            if os.path.exists(listen_file) and os.path.getsize(listen_file) > 0:
                with open(listen_file) as f:
                    j = json.load(f)
                self.url, self.agent_url = j["management"], j["agent"]
                return
            if self.proc.poll() is not None:
                raise SystemExit(f"yuzu-server exited ({self.proc.returncode}); see {self.log.name}")
            time.sleep(0.1)
        raise SystemExit("yuzu-server did not listen within 60 s")

    def cli(self, *args):
        out = subprocess.check_output([os.path.join(self.build, "bin", "yuzu-server"), *args,
                                       "--data-dir", self.data_dir])
        return json.loads(out)

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Mcp:
    def __init__(self, url, token):
        self.url, self.token, self.next_id = url + "/mcp/v1/", token, 1
        self.lock = threading.Lock()

    def call(self, name, arguments, timeout=120):
        with self.lock:
            rid = self.next_id
            self.next_id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                           "params": {"name": name, "arguments": arguments}}).encode()
        req = urllib.request.Request(self.url, data=body, method="POST", headers={
            "Authorization": "Bearer " + self.token, "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2025-06-18"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            answer = json.loads(r.read())
        if "error" in answer:
            raise RuntimeError(f"{name}: {answer['error']}")
        result = answer["result"]
        if result.get("isError"):
            raise RuntimeError(f"{name}: {result['content'][0]['text']}")
        return result["structuredContent"]


def metric(url, name, labels=""):
    with urllib.request.urlopen(url + "/metrics", timeout=10) as r:
        text = r.read().decode()
    total = 0.0
    found = False
    for line in text.splitlines():
        if line.startswith(name + "{" + labels) or (not labels and line.startswith(name + " ")):
            total += float(line.rsplit(" ", 1)[1])
            found = True
    return total if found else None


def agent_plane_5xx(url):
    """5xx answers on the agent listener: (inventory 503s, every other 5xx).

    An inventory report past the rate at which the server asks for sources is
    answered 503 by design (flow control, Retry-After 60); anything else in
    the 5xx range during a reconnection is what "no 5xx storm" is about."""
    with urllib.request.urlopen(url + "/metrics", timeout=10) as r:
        text = r.read().decode()
    inventory = other = 0
    for line in text.splitlines():
        if (line.startswith('yuzu_http_requests_total{') and 'listener="agent"' in line
                and 'status="5' in line):
            n = int(float(line.rsplit(" ", 1)[1]))
            if 'route="/agent/v1/inventory"' in line and 'status="503"' in line:
                inventory += n
            else:
                other += n
    return inventory, other


def wait_online(server, n, deadline_s):
    start = time.monotonic()
    while time.monotonic() - start < deadline_s:
        try:
            online = metric(server.url, "yuzu_agents_connected") or 0
        except OSError:
            online = 0
        if online >= n:
            return time.monotonic() - start
        time.sleep(0.2)
    return None


class Prober(threading.Thread):
    """tools/call and /livez latencies while the fleet works."""

    def __init__(self, server, mcp, period_s=0.05):
        super().__init__(daemon=True)
        self.server, self.mcp, self.period = server, mcp, period_s
        self.stop_flag = threading.Event()
        self.call_ms, self.livez_ms, self.errors = [], [], 0
        self.slow = []  # (seconds since the probe started, livez ms, call ms) over 50 ms

    def run(self):
        start = time.monotonic()
        while not self.stop_flag.is_set():
            try:
                t0 = time.monotonic()
                with urllib.request.urlopen(self.server.url + "/livez", timeout=10) as r:
                    r.read()
                t1 = time.monotonic()
                self.mcp.call("validate_scope", {"expression": 'os = "linux"'})
                t2 = time.monotonic()
                self.livez_ms.append((t1 - t0) * 1000)
                self.call_ms.append((t2 - t1) * 1000)
                if max(t1 - t0, t2 - t1) > 0.05:
                    self.slow.append((round(t0 - start, 2), round((t1 - t0) * 1000, 1),
                                      round((t2 - t1) * 1000, 1)))
            except Exception:  # noqa: BLE001 - counted, the run goes on
                self.errors += 1
            self.stop_flag.wait(self.period)


def pct(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


def dispatch_and_wait(mcp, n, limit_s):
    t0 = time.monotonic()
    started = mcp.call("execute_instruction", {"plugin": "os", "action": "info"})
    eid = started["execution_id"]
    last = None
    status_ms = []
    while time.monotonic() - t0 < limit_s:
        t1 = time.monotonic()
        last = mcp.call("get_execution_status", {"execution_id": eid})
        status_ms.append((time.monotonic() - t1) * 1000)
        if last.get("agents_outstanding", 1) == 0 or last["agents_responded"] >= n:
            break
        # As a well-behaved MCP client: the tool says when to ask again (each
        # answer lists every agent's state, 10,000 of them at the top size),
        # but never later than 250 ms, the resolution of answer_s.
        time.sleep(min(0.25, max(0.05, last.get("retry_after_ms", 50) / 1000.0)))
    elapsed = time.monotonic() - t0
    return eid, started, last, elapsed, status_ms


def run_one(build, n, args):
    data_dir = tempfile.mkdtemp(prefix=f"yuzu-bench-{n}-")
    server = Server(build, data_dir, args.server_flag)
    agent = None
    row = {"agents": n}
    try:
        server.start()
        tok = server.cli("enroll-token", "create", "--ttl", "3600", "--max-uses", "0",
                         "--note", "bench")["token"]
        mcp_token = server.cli("token", "create", "--user", "admin", "--tier", "operator",
                               "--name", "bench")["token"]
        mcp = Mcp(server.url, mcp_token)
        agent_log = open(os.path.join(data_dir, "agent.log"), "ab")
        env = dict(os.environ, YUZU_AGENT_ENROLLMENT_TOKEN=tok)
        # The harness runs niced: on a real fleet the agents' CPU is on other
        # machines, and on this box it must not starve the server it measures.
        agent = subprocess.Popen(
            ["nice", "-n", str(args.agent_nice),
             os.path.join(build, "bin", "yuzu-agent"), "--server", server.agent_url,
             "--state-dir", os.path.join(data_dir, "agents"), "--virtual", str(n),
             "--log-level", os.environ.get("BENCH_AGENT_LOG", "warn")], stdout=agent_log, stderr=agent_log, env=env)
        row["online_s"] = wait_online(server, n, args.online_limit)
        if row["online_s"] is None:
            row["note"] = "not all online"
            return row
        prober = Prober(server, mcp)
        prober.start()
        time.sleep(1.0)
        perf = None
        if args.perf:
            # The server alone, or the whole machine: recording the harness's
            # 10,000 threads by pid runs out of file descriptors, so "all" is
            # system-wide (`perf report -s comm,dso` splits it by process).
            target = ["-p", str(server.proc.pid)] if args.perf == "server" else ["-a"]
            perf = subprocess.Popen(["perf", "record", "-g", *target, "-o",
                                     os.path.join(data_dir, "perf.data")],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(0.5)
        cpu0 = (cpu_seconds(server.proc.pid), cpu_seconds(agent.pid))
        eid, started, status, elapsed, status_ms = dispatch_and_wait(mcp, n, args.answer_limit)
        row["server_cpu_s"] = cpu_seconds(server.proc.pid) - cpu0[0]
        row["agent_cpu_s"] = cpu_seconds(agent.pid) - cpu0[1]
        if perf is not None:
            perf.send_signal(signal.SIGINT)
            perf.wait()
        prober.stop_flag.set()
        prober.join()
        row["answer_s"] = elapsed
        row["responded"] = status["agents_responded"] if status else 0
        row["reached"] = started["agents_reached"]
        row["lost"] = n - row["responded"]
        row["mgmt_call_p50_ms"] = pct(prober.call_ms, 50)
        row["mgmt_call_p99_ms"] = pct(prober.call_ms, 99)
        row["livez_p99_ms"] = pct(prober.livez_ms, 99)
        row["probe_errors"] = prober.errors
        row["probes"] = len(prober.livez_ms)
        row["slow_probes"] = prober.slow
        row["status_call_p50_ms"] = pct(status_ms, 50)
        row["status_calls"] = len(status_ms)
        s = proc_status(server.proc.pid)
        a = proc_status(agent.pid)
        row.update({"server_threads": s["threads"], "server_rss_mib": s["rss_mib"],
                    "agent_threads": a["threads"], "agent_rss_mib": a["rss_mib"]})
        if args.restart:
            port = int(server.agent_url.rsplit(":", 1)[1])
            server.kill9()
            t0 = time.monotonic()
            server.start(agent_port=port)
            back = wait_online(server, n, args.online_limit)
            row["restart_s"] = None if back is None else (time.monotonic() - t0)
            row["restart_inventory_503"], row["restart_5xx"] = agent_plane_5xx(server.url)
            if back is not None:
                # Steady state after the restart: inventories are confirmed by
                # digest, so this is the fleet heartbeating and answering.
                mcp = Mcp(server.url, mcp_token)
                prober = Prober(server, mcp)
                prober.start()
                time.sleep(1.0)
                cpu0 = (cpu_seconds(server.proc.pid), cpu_seconds(agent.pid))
                _, _, status2, elapsed2, _ = dispatch_and_wait(mcp, n, args.answer_limit)
                row["server2_cpu_s"] = cpu_seconds(server.proc.pid) - cpu0[0]
                row["agent2_cpu_s"] = cpu_seconds(agent.pid) - cpu0[1]
                prober.stop_flag.set()
                prober.join()
                row["answer2_s"] = elapsed2
                row["lost2"] = n - (status2["agents_responded"] if status2 else 0)
                row["mgmt2_call_p99_ms"] = pct(prober.call_ms, 99)
                row["livez2_p99_ms"] = pct(prober.livez_ms, 99)
                row["probes2"] = len(prober.livez_ms)
                row["slow_probes2"] = prober.slow
        return row
    finally:
        if agent is not None and agent.poll() is None:
            agent.terminate()
            try:
                agent.wait(60)
            except subprocess.TimeoutExpired:
                agent.kill()
        server.stop()
        if not args.keep:
            shutil.rmtree(data_dir, ignore_errors=True)
        else:
            print(f"kept {data_dir}", file=sys.stderr)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--agents", default="100,1000,10000", help="comma-separated fleet sizes")
    p.add_argument("--server-flag", action="append", default=[],
                   help="extra yuzu-server flag (repeatable), e.g. --server-flag=--agent-worker-threads=8")
    p.add_argument("--online-limit", type=float, default=180.0)
    p.add_argument("--answer-limit", type=float, default=150.0)
    p.add_argument("--no-restart", dest="restart", action="store_false")
    p.add_argument("--agent-nice", type=int, default=5,
                   help="nice(1) level of the agent harness (default 5; 0 to compete evenly)")
    p.add_argument("--keep", action="store_true", help="keep each run's data dir and logs")
    p.add_argument("--perf", nargs="?", const="server", choices=["server", "all"],
                   help="record the server (default) or the whole machine with perf(1) from "
                        "dispatch to the last answer (perf.data in the kept data dir)")
    p.add_argument("--json", action="store_true", help="print rows as JSON lines")
    args = p.parse_args()
    rows = []
    for n in [int(x) for x in args.agents.split(",") if x]:
        row = run_one(args.build_dir, n, args)
        rows.append(row)
        print(json.dumps(row), flush=True)
    if not args.json:
        cols = ["agents", "online_s", "answer_s", "server_cpu_s", "agent_cpu_s", "responded",
                "lost", "mgmt_call_p99_ms", "livez_p99_ms", "status_call_p50_ms", "restart_s",
                "restart_5xx", "restart_inventory_503", "answer2_s", "lost2", "mgmt2_call_p99_ms",
                "livez2_p99_ms", "server_threads", "server_rss_mib", "agent_threads",
                "agent_rss_mib"]
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
        for r in rows:
            cells = []
            for c in cols:
                v = r.get(c, "")
                cells.append(f"{v:.2f}" if isinstance(v, float) else str(v))
            print("| " + " | ".join(cells) + " |")
    return 0 if all(r.get("lost", 1) == 0 and r.get("lost2", 0) == 0 for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
