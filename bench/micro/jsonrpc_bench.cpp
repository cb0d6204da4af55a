// The JSON-RPC framing around every tools/call: parse_message() on the POST
// body, tool_result() wrapping the handler's output, and make_result() /
// make_result_text() serialising the response (bytes out of the server).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "bench_support.hpp"
#include "yuzu/common/json_text.hpp"
#include "yuzu/mcp/jsonrpc.hpp"
#include "yuzu/mcp/pipeline.hpp"

namespace yuzu::bench {
namespace {

using nlohmann::json;

// What validate_scope's handler answers for the request in kToolsCallBody.
json validate_scope_output() {
    return {{"valid", true}, {"expression", "os == \"linux\""}, {"canonical", "os = \"linux\""}};
}

void BM_JsonRpcParse(benchmark::State& state) {
    const std::string body(kToolsCallBody);
    auto first = mcp::parse_message(body);
    const auto* msg = std::get_if<mcp::RpcMessage>(&first);
    if (msg == nullptr || msg->method != "tools/call") {
        state.SkipWithError("parse_message did not accept the tools/call body");
        return;
    }
    for (auto _ : state) {
        auto parsed = mcp::parse_message(body);
        benchmark::DoNotOptimize(parsed);
    }
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(body.size()));
}
BENCHMARK(BM_JsonRpcParse);

// The handler's output into {content:[{type:text,text}], structuredContent,
// isError}: one dump of the output plus the envelope. Includes one copy of
// the output (BM_JsonCopy_ToolResult is the same for the whole result).
void BM_ToolResult(benchmark::State& state) {
    const json output = validate_scope_output();
    for (auto _ : state) {
        json result = mcp::tool_result(output);
        benchmark::DoNotOptimize(result);
    }
}
BENCHMARK(BM_ToolResult);

// make_result() takes the result by value; the pipeline moves it in, a
// benchmark must copy it. This row is that copy, to subtract from the next.
void BM_JsonCopy_ToolResult(benchmark::State& state) {
    const json result = mcp::tool_result(validate_scope_output());
    for (auto _ : state) {
        json copy = result;
        benchmark::DoNotOptimize(copy);
    }
}
BENCHMARK(BM_JsonCopy_ToolResult);

void BM_MakeResult(benchmark::State& state) {
    const json id = 7;
    const json result = mcp::tool_result(validate_scope_output());
    for (auto _ : state) {
        std::string out = mcp::make_result(id, result);
        benchmark::DoNotOptimize(out);
    }
}
BENCHMARK(BM_MakeResult);

// The same response bytes from a result serialised earlier (a cached
// tools/list page): string concatenation only.
void BM_MakeResultText(benchmark::State& state) {
    const json id = 7;
    const json result = mcp::tool_result(validate_scope_output());
    const std::string result_text = dump_json(result);
    if (mcp::make_result_text(id, result_text) != mcp::make_result(id, result)) {
        state.SkipWithError("make_result_text and make_result disagree");
        return;
    }
    for (auto _ : state) {
        std::string out = mcp::make_result_text(id, result_text);
        benchmark::DoNotOptimize(out);
    }
}
BENCHMARK(BM_MakeResultText);

}  // namespace
}  // namespace yuzu::bench
