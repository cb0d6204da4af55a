#!/usr/bin/env python3
"""Instructions per tools/call, counted by valgrind's callgrind.

Wall-clock ratios on this shared 2-core machine move by tens of percent
between runs; an instruction count does not (the same binary, inputs and
environment give the same count whatever else the machine is doing). This
runs one server under callgrind, counting only inside cpp-httplib's
serve_connection (one request's parse, handler and response, kernel time
excluded), drives it with wrk for --seconds, and prints instructions per
answered request and the heaviest functions, inclusive of their callees.

  bench/pipeline/instructions.py                     memaudit, 10 s
  bench/pipeline/instructions.py --server yuzu       yuzu-server (audit.db)
  bench/pipeline/instructions.py --out FILE          keep callgrind's file

Under callgrind everything runs about 50x slower and one thread at a time,
so group commit batches fewer rows than at full speed: for yuzu-server the
audit row's share is an upper bound. See bench/README.md.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_points  # noqa: E402

ROOT = run_points.ROOT


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--server", choices=["memaudit", "yuzu"], default="memaudit")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--conns", type=int, default=4)
    ap.add_argument("--top", type=int, default=25, help="functions to list")
    ap.add_argument("--out", help="callgrind output file (default: a temporary one)")
    args = ap.parse_args()
    for tool in ("valgrind", "callgrind_annotate", "wrk"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not installed")
    binary = os.path.join(args.build, "bin",
                          "yuzu-bench-memaudit" if args.server == "memaudit" else "yuzu-server")
    work = tempfile.mkdtemp(prefix="yuzu-bench-instructions-")
    out = args.out or os.path.join(work, "callgrind.out")
    # run_points.Yuzu starts the server under taskset; start it under
    # callgrind instead, collecting only inside a request.
    real_popen = subprocess.Popen

    def popen(cmd, **kw):
        if cmd[:1] == ["taskset"] and cmd[3] == binary:
            cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
                   "--toggle-collect=yuzu::http::GatedServer*serve_connection*",
                   f"--callgrind-out-file={out}"] + cmd[3:]
        return real_popen(cmd, **kw)

    server = None
    try:
        subprocess.Popen = popen
        try:
            server = run_points.Yuzu(args.server, binary, args.build, work)
        finally:
            subprocess.Popen = real_popen
        body = os.path.join(work, "call-request.json")
        with open(body, "w") as f:
            json.dump(run_points.CALL_BODY, f)
        run_points.checked_result(server, run_points.CALL_BODY)
        result = run_points.wrk(server, body, args.conns, args.seconds)
        server.stop()
        server = None
        time.sleep(0.5)
        report = subprocess.run(["callgrind_annotate", "--inclusive=yes", out],
                                capture_output=True, text=True, check=True).stdout
    finally:
        if server is not None:
            server.stop()
    requests = result["requests"] + 1  # and the checked call before the load
    total = None
    rows = []
    for line in report.splitlines():
        m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(\*\s+)?(.*)$", line)
        if not m:
            continue
        count = int(m.group(1).replace(",", ""))
        name = m.group(3)
        if "PROGRAM TOTALS" in name:
            total = count
            continue
        name = re.sub(r" \[/.*\]$", "", name)
        name = re.sub(r"^.*?:(?=[A-Za-z_~?])", "", name, count=1)
        rows.append((count, name))
    if total is None:
        raise SystemExit("callgrind_annotate printed no total; is the toggle pattern stale?")
    print(f"{args.server}: {requests} requests, {total / requests:,.0f} instructions per request")
    print()
    print("instructions/request  function (inclusive)")
    # The thread and dispatch frames around every request hold the whole
    # count; they say nothing.
    # callgrind_annotate lists a function once per source file it has
    # code from (inlined headers); the first, largest row is the function's.
    seen = set()
    rows = [r for r in rows if r[0] < 0.99 * total and not (r[1] in seen or seen.add(r[1]))]
    for count, name in rows[:args.top]:
        print(f"{count / requests:>20,.0f}  {name[:110]}")
    if not args.out:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"\ncallgrind output: {out}")


if __name__ == "__main__":
    main()
