// yuzu-bench-micro: the hot steps of one MCP tools/call, one benchmark file
// per step (token, tier, schema, rbac, audit, jsonrpc). Times on this shared
// 2-core machine are noisy: compare rows of one run, not runs.
#include <benchmark/benchmark.h>
#include <spdlog/spdlog.h>

int main(int argc, char** argv) {
    // Every benchmark opens fresh stores; their migration lines would bury
    // the table.
    spdlog::set_level(spdlog::level::warn);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
