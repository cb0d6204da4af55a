#!/usr/bin/env python3
"""The MCP pipeline benchmark: yuzu-server against a bare cpp-httplib baseline.

Servers (each on 127.0.0.1, pinned to CPU 0; wrk runs on CPU 1):
  yuzu      yuzu-server, default flags, a fresh data dir (audit.db on disk)
  memaudit  yuzu-bench-memaudit: the same server code with the in-memory audit
            log (bench-only wiring, no flag reaches it)
  baseline  yuzu-bench-baseline: cpp-httplib + nlohmann, answering the result
            bytes captured from yuzu-server
  ts-sdk    (with --ts-sdk) the official TypeScript SDK answering `echo`

Points: tools/call validate_scope at c=1, 16, 64 and tools/list at c=16.
Each point runs every server once per round, rounds interleaved, and the
table shows the median of the rounds. See bench/README.md.
"""
import argparse
import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SERVER_CPU = "0"
LOAD_CPU = "1"

CALL_BODY = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "validate_scope",
                        "arguments": {"expression": 'os = "linux" AND tag:env = "prod"'}}}
LIST_BODY = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
ECHO_BODY = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "echo", "arguments": {"message": "hello"}}}


def post(url, body, token=""):
    headers = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers=headers)
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


class Yuzu:
    """yuzu-server or yuzu-bench-memaudit on a fresh data dir."""

    def __init__(self, name, binary, build, work):
        self.name, self.binary, self.build = name, binary, build
        self.data_dir = os.path.join(work, name)
        os.makedirs(self.data_dir, mode=0o700)
        self.log = open(os.path.join(work, name + ".log"), "ab")
        env = dict(os.environ, YUZU_BOOTSTRAP_ADMIN_PASSWORD="bench-admin-password-1")
        args = ["taskset", "-c", SERVER_CPU, binary, "--data-dir", self.data_dir,
                "--listen", "127.0.0.1:0", "--agent-listen", "127.0.0.1:0",
                "--log-level", "warn"]
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log, env=env)
        listen = os.path.join(self.data_dir, "listen.json")
        for _ in range(600):
            if os.path.exists(listen) and os.path.getsize(listen) > 0:
                with open(listen) as f:
                    self.url = json.load(f)["management"] + "/mcp/v1/"
                break
            if self.proc.poll() is not None:
                raise SystemExit(f"{name} exited ({self.proc.returncode}); see {self.log.name}")
            time.sleep(0.1)
        else:
            raise SystemExit(f"{name} did not listen within 60 s")
        out = subprocess.check_output(
            [os.path.join(build, "bin", "yuzu-server"), "token", "create", "--user", "admin",
             "--tier", "operator", "--name", "bench", "--data-dir", self.data_dir])
        self.token = json.loads(out)["token"]

    def audit_rows(self):
        # memaudit's calls go to memory; its audit.db holds only the token
        # command's row.
        path = os.path.join(self.data_dir, "audit.db")
        if self.name == "memaudit" or not os.path.exists(path):
            return None
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return db.execute("SELECT COUNT(*) FROM audit_events").fetchone()[0]
        finally:
            db.close()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Baseline:
    def __init__(self, build, work, call_result, list_result):
        self.name, self.token = "baseline", ""
        call_file = os.path.join(work, "call-result.json")
        list_file = os.path.join(work, "list-result.json")
        with open(call_file, "w") as f:
            f.write(call_result)
        with open(list_file, "w") as f:
            f.write(list_result)
        port_file = os.path.join(work, "baseline.port")
        self.log = open(os.path.join(work, "baseline.log"), "ab")
        self.proc = subprocess.Popen(
            ["taskset", "-c", SERVER_CPU, os.path.join(build, "bin", "yuzu-bench-baseline"),
             "--port-file", port_file, "--call-result", call_file, "--list-result", list_file,
             "--threads", "80"], stdout=self.log, stderr=self.log)
        for _ in range(100):
            if os.path.exists(port_file):
                with open(port_file) as f:
                    self.url = f"http://127.0.0.1:{int(f.read())}/mcp/v1/"
                return
            time.sleep(0.05)
        raise SystemExit("yuzu-bench-baseline did not listen")

    def audit_rows(self):
        return None

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


class TsSdk:
    def __init__(self, work):
        self.name, self.token = "ts-sdk", ""
        port_file = os.path.join(work, "ts-sdk.port")
        self.log = open(os.path.join(work, "ts-sdk.log"), "ab")
        self.proc = subprocess.Popen(
            ["taskset", "-c", SERVER_CPU, "node", os.path.join(HERE, "ts_echo_server.mjs"),
             port_file], stdout=self.log, stderr=self.log,
            env=dict(os.environ, NODE_PATH=os.path.join(ROOT, "tests", "e2e", "node_modules")))
        for _ in range(200):
            if os.path.exists(port_file):
                with open(port_file) as f:
                    self.url = f"http://127.0.0.1:{int(f.read())}/mcp/v1/"
                return
            if self.proc.poll() is not None:
                raise SystemExit(f"ts_echo_server.mjs exited; see {self.log.name}")
            time.sleep(0.05)
        raise SystemExit("ts_echo_server.mjs did not listen")

    def audit_rows(self):
        return None

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def wrk(server, body_file, conns, seconds):
    env = dict(os.environ, BENCH_BODY=body_file, BENCH_TOKEN=server.token)
    out = subprocess.run(
        ["taskset", "-c", LOAD_CPU, "wrk", "-t1", f"-c{conns}", f"-d{seconds}s", "--latency",
         "-s", os.path.join(HERE, "post.lua"), server.url],
        env=env, capture_output=True, text=True, check=True).stdout
    line = [l for l in out.splitlines() if l.startswith("{")][-1]
    r = json.loads(line)
    errors = r["non2xx"] + r["connect_errors"] + r["read_errors"] + r["write_errors"]
    if errors:
        raise SystemExit(f"{server.name}: {errors} failed requests at c={conns}:\n{out}")
    return r


def checked_result(server, body, want_tool_result=True):
    answer = post(server.url, body, server.token)
    if "error" in answer:
        raise SystemExit(f"{server.name}: {body['method']} answered an error: {answer['error']}")
    result = answer["result"]
    if want_tool_result and result.get("isError"):
        raise SystemExit(f"{server.name}: tool error: {result}")
    return result


def median(values):
    return statistics.median(values)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ts-sdk", action="store_true", help="also measure the TypeScript SDK")
    ap.add_argument("--perf", metavar="DIR",
                    help="record yuzu-server with perf(1) for one more c=16 tools/call run and "
                         "write the report to DIR")
    ap.add_argument("--point", action="append", metavar="LABEL",
                    help='measure only this point (e.g. "tools/call c=16"); repeatable')
    ap.add_argument("--json", metavar="FILE", help="write every run's numbers to FILE")
    ap.add_argument("--keep", action="store_true", help="keep the work dir (logs, data dirs)")
    args = ap.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (apt-get install wrk, or run bench/run.sh)")

    work = tempfile.mkdtemp(prefix="yuzu-bench-pipeline-")
    servers = []
    try:
        yuzu = Yuzu("yuzu", os.path.join(args.build, "bin", "yuzu-server"), args.build, work)
        servers.append(yuzu)
        memaudit = None
        memaudit_bin = os.path.join(args.build, "bin", "yuzu-bench-memaudit")
        if os.path.exists(memaudit_bin):
            memaudit = Yuzu("memaudit", memaudit_bin, args.build, work)
            servers.append(memaudit)
        call_result = checked_result(yuzu, CALL_BODY)
        list_result = checked_result(yuzu, LIST_BODY, want_tool_result=False)
        if memaudit:
            checked_result(memaudit, CALL_BODY)
        # The baseline answers exactly the bytes yuzu answers.
        baseline = Baseline(args.build, work,
                            json.dumps(call_result, separators=(",", ":")),
                            json.dumps(list_result, separators=(",", ":")))
        servers.append(baseline)
        if checked_result(baseline, LIST_BODY, False) != list_result:
            raise SystemExit("baseline tools/list differs from yuzu's")
        ts = None
        if args.ts_sdk:
            ts = TsSdk(work)
            servers.append(ts)
            checked_result(ts, ECHO_BODY)

        bodies = {}
        for key, body in (("call", CALL_BODY), ("list", LIST_BODY), ("echo", ECHO_BODY)):
            bodies[key] = os.path.join(work, key + "-request.json")
            with open(bodies[key], "w") as f:
                json.dump(body, f)

        points = [("tools/call c=1", "call", 1), ("tools/call c=16", "call", 16),
                  ("tools/call c=64", "call", 64), ("tools/list c=16", "list", 16)]
        if args.point:
            unknown = set(args.point) - {label for label, _, _ in points}
            if unknown:
                raise SystemExit(f"unknown point(s): {', '.join(sorted(unknown))}")
            points = [p for p in points if p[0] in args.point]
        runs = {}
        for label, kind, conns in points:
            for rnd in range(args.rounds):
                for server in servers:
                    if kind == "list" and server is memaudit:
                        continue
                    body = bodies[kind]
                    if server is ts:
                        if kind == "list":
                            continue
                        body = bodies["echo"]
                    before = server.audit_rows()
                    r = wrk(server, body, conns, args.seconds)
                    after = server.audit_rows()
                    if before is not None and kind == "call" and after - before < r["requests"]:
                        raise SystemExit(f"{server.name}: {r['requests']} answered calls but only "
                                         f"{after - before} new audit rows")
                    runs.setdefault((label, server.name), []).append(r)
                    print(f"{label:16} round {rnd + 1} {server.name:9} {r['rps']:9.0f} req/s  "
                          f"p50 {r['p50_ms']:.2f} ms  p99 {r['p99_ms']:.2f} ms", flush=True)

        def m(label, name, key):
            rs = runs.get((label, name))
            return median([r[key] for r in rs]) if rs else None

        print()
        print("| point | yuzu req/s | memaudit req/s | baseline req/s | yuzu / baseline | "
              "yuzu / memaudit | yuzu p50 / p99 ms | baseline p50 / p99 ms | p99 yuzu / baseline |"
              + (" ts-sdk req/s | yuzu / ts-sdk |" if ts else ""))
        print("|---|---|---|---|---|---|---|---|---|" + ("---|---|" if ts else ""))
        for label, kind, _ in points:
            y, b = m(label, "yuzu", "rps"), m(label, "baseline", "rps")
            mem = m(label, "memaudit", "rps")
            yp50, yp99 = m(label, "yuzu", "p50_ms"), m(label, "yuzu", "p99_ms")
            bp50, bp99 = m(label, "baseline", "p50_ms"), m(label, "baseline", "p99_ms")
            row = (f"| {label} | {y:,.0f} | {f'{mem:,.0f}' if mem else '—'} | {b:,.0f} | "
                   f"{y / b:.2f} | {f'{y / mem:.2f}' if mem else '—'} | {yp50:.2f} / {yp99:.2f} | "
                   f"{bp50:.2f} / {bp99:.2f} | {yp99 / bp99:.2f} |")
            if ts:
                t = m(label, "ts-sdk", "rps")
                row += f" {f'{t:,.0f}' if t else '—'} | {f'{y / t:.1f}×' if t else '—'} |"
            print(row)

        if args.perf:
            os.makedirs(args.perf, exist_ok=True)
            data = os.path.join(args.perf, "perf.data")
            rec = subprocess.Popen(["perf", "record", "-F", "499", "--call-graph", "dwarf,16384",
                                    "-o", data, "-p",
                                    str(yuzu.proc.pid)], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
            time.sleep(0.5)
            wrk(yuzu, bodies["call"], 16, args.seconds)
            rec.send_signal(signal.SIGINT)
            rec.wait()
            # self: where the CPU is spent; children: which of our functions
            # it is spent under (callees included), the view that names a
            # pipeline step.
            for name, mode, sort in (("report-symbols.txt", "--no-children", "symbol"),
                                     ("report-children.txt", "--children", "symbol"),
                                     ("report-dso.txt", "--no-children", "dso")):
                out = subprocess.run(["perf", "report", "-i", data, mode, "--stdio",
                                      "--sort", sort, "--percent-limit", "1", "-g", "none"],
                                     capture_output=True, text=True).stdout
                lines = [" ".join(l.split()) for l in out.splitlines()
                         if l.strip() and not l.startswith("#")]
                with open(os.path.join(args.perf, name), "w") as f:
                    f.write("\n".join(lines) + "\n")
            print(f"\nperf reports in {args.perf}/report-{{symbols,children,dso}}.txt")

        if args.json:
            with open(args.json, "w") as f:
                json.dump({f"{k[0]}|{k[1]}": v for k, v in runs.items()}, f, indent=1)
    finally:
        for server in servers:
            server.stop()
        if args.keep:
            print(f"work dir kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
