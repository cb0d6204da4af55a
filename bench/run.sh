#!/usr/bin/env bash
# Runs the performance benchmarks (bench/README.md): the micro-benchmarks of
# each tools/call step, then the pipeline benchmark (yuzu-server against the
# in-memory-audit build and a bare cpp-httplib baseline, all points in one
# run) with a perf profile of the c=16 point. Not a test: scripts/test.sh
# runs none of this.
#
#   bench/run.sh                 build in ./build-bench, results in ./bench-results
#   bench/run.sh --quick         1 round of 5 s per point (a smoke run)
#
# Takes about 8 minutes once built (3 rounds x 4 points x 3 servers x 10 s).
set -euo pipefail
source "$(dirname "$0")/../scripts/lib.sh"

seconds=10
rounds=3
for arg in "$@"; do
  case "$arg" in
    --quick) seconds=5; rounds=1 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "bench/run.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

build_dir="$YUZU_ROOT/build-bench"
out_dir="$YUZU_ROOT/bench-results"
yuzu_install_packages "${YUZU_DEBIAN_PACKAGES[@]}" wrk linux-perf python3
# Benchmarks skip the test targets they do not need only through the cache:
# a build dir configured without the flag is reconfigured with it.
if [ -f "$build_dir/CMakeCache.txt" ] && ! grep -q '^YUZU_BUILD_BENCH:BOOL=ON' "$build_dir/CMakeCache.txt"; then
  cmake "$build_dir" -DYUZU_BUILD_BENCH=ON >/dev/null
fi
yuzu_build "$build_dir" -DYUZU_BUILD_BENCH=ON
mkdir -p "$out_dir"

# perf needs to read this user's processes' samples.
if [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)" -gt 1 ]; then
  yuzu_log "warning: kernel.perf_event_paranoid > 1; the profile may be empty (sysctl -w kernel.perf_event_paranoid=1)"
fi

yuzu_log "micro-benchmarks -> $out_dir/micro.txt"
"$build_dir/bin/yuzu-bench-micro" --benchmark_min_time=0.3 | tee "$out_dir/micro.txt"

yuzu_log "pipeline benchmark -> $out_dir/pipeline.txt (profile in $out_dir/perf)"
python3 "$YUZU_ROOT/bench/pipeline/run_points.py" --build "$build_dir" \
  --seconds "$seconds" --rounds "$rounds" --perf "$out_dir/perf" \
  --json "$out_dir/pipeline.json" | tee "$out_dir/pipeline.txt"
