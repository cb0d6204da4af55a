#!/usr/bin/env python3
"""Interleaved A/B of two or more server builds on tools/call validate_scope.

run_points.py compares yuzu-server with memaudit and the baseline; this
compares builds of the server with each other, which is how a change to the
hot path is judged on this shared machine: the builds alternate within each
round, so a change in the machine's load falls on all of them alike.

Each SERVER is an executable that takes yuzu-server's flags: a copied binary
of an earlier build, yuzu-bench-memaudit, or a shell script that sets an
environment variable and execs one. Tokens are made with --build's
yuzu-server. For each run the script prints requests per second, the p99,
the server's CPU time per request (user + system, from /proc) and how busy
its core was; then the medians.

  bench/pipeline/ab_builds.py /tmp/before/yuzu-server build-bench/bin/yuzu-server
  bench/pipeline/ab_builds.py A B --rounds 4 --conns 1
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_points  # noqa: E402


def cpu_seconds(pid):
    # utime and stime, fields 14 and 15 of /proc/PID/stat, after the
    # parenthesised command name.
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("servers", nargs="+", metavar="SERVER")
    ap.add_argument("--build", default=os.path.join(run_points.ROOT, "build-bench"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--conns", type=int, default=16)
    ap.add_argument("--seconds", type=int, default=8)
    args = ap.parse_args()
    if len(args.servers) < 2:
        ap.error("give at least two servers to compare")

    work = tempfile.mkdtemp(prefix="yuzu-ab-")
    body = os.path.join(work, "call.json")
    with open(body, "w") as f:
        json.dump(run_points.CALL_BODY, f)
    runs = {server: [] for server in args.servers}
    for r in range(args.rounds):
        for i, server in enumerate(args.servers):
            s = run_points.Yuzu(f"s{i}-r{r}", os.path.abspath(server), args.build, work)
            try:
                run_points.checked_result(s, run_points.CALL_BODY)
                run_points.wrk(s, body, args.conns, 2)  # warm-up
                # taskset execs the server, so the child's pid is the server's
                # (and a wrapper script must exec too).
                before = cpu_seconds(s.proc.pid)
                out = run_points.wrk(s, body, args.conns, args.seconds)
                cpu = cpu_seconds(s.proc.pid) - before
            finally:
                s.stop()
            run = (out["rps"], out["p99_ms"], cpu / out["requests"] * 1e6, cpu / args.seconds)
            runs[server].append(run)
            print(f"round {r} {server}: {run[0]:,.0f} req/s  p99 {run[1]:.2f} ms  "
                  f"CPU {run[2]:.1f} us/request  core {run[3] * 100:.0f} % busy", flush=True)
    print(f"\nc={args.conns}, medians of {args.rounds} rounds of {args.seconds} s:")
    first = statistics.median(x[0] for x in runs[args.servers[0]])
    for server in args.servers:
        v = runs[server]
        rps = statistics.median(x[0] for x in v)
        print(f"  {server}: {rps:,.0f} req/s ({rps / first:.3f} x the first)  "
              f"p99 {statistics.median(x[1] for x in v):.2f} ms  "
              f"CPU {statistics.median(x[2] for x in v):.1f} us/request  "
              f"core {statistics.median(x[3] for x in v) * 100:.0f} % busy")


if __name__ == "__main__":
    main()
