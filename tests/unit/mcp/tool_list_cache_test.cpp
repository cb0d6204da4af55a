// ToolListCache and the cached tools/list: one build per (catalogue
// generation, tier, page), the same bytes an uncached answer would carry,
// and errors never kept.
#include "mcp/protocol/tool_list_cache.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/jsonrpc.hpp"
#include "yuzu/mcp/mcp_server.hpp"

namespace yuzu::mcp {
namespace {

TEST(ToolListCache, BuildsOncePerTierAndPageAndKeepsTheBytes) {
    ToolListCache cache;
    int built = 0;
    auto build = [&](std::string text) {
        return [&built, text]() -> std::optional<std::string> {
            ++built;
            return text;
        };
    };
    auto a1 = cache.get(1, "readonly", 0, true, build("A"));
    auto a2 = cache.get(1, "readonly", 0, true, build("other"));
    auto b = cache.get(1, "operator", 0, true, build("B"));
    auto a_page2 = cache.get(1, "readonly", 100, true, build("A2"));
    ASSERT_NE(a1, nullptr);
    EXPECT_EQ(*a1, "A");
    EXPECT_EQ(a1.get(), a2.get()) << "the second call rebuilt the page";
    EXPECT_EQ(*b, "B");
    EXPECT_EQ(*a_page2, "A2");
    EXPECT_EQ(built, 3);
    EXPECT_EQ(cache.builds(), 3u);
}

TEST(ToolListCache, ANewGenerationDropsEveryKeptPage) {
    ToolListCache cache;
    cache.get(1, "", 0, true, [] { return std::optional<std::string>("old"); });
    auto fresh = cache.get(2, "", 0, true, [] { return std::optional<std::string>("new"); });
    EXPECT_EQ(*fresh, "new");
    auto again = cache.get(2, "", 0, true, [] { return std::optional<std::string>("x"); });
    EXPECT_EQ(*again, "new");
    EXPECT_EQ(cache.builds(), 2u);
}

TEST(ToolListCache, ErrorsAndOffPageOffsetsAreNotKept) {
    ToolListCache cache;
    EXPECT_EQ(cache.get(1, "", 0, true, [] { return std::optional<std::string>(); }), nullptr);
    auto ok = cache.get(1, "", 0, true, [] { return std::optional<std::string>("fine"); });
    EXPECT_EQ(*ok, "fine");
    // A hand-made cursor at an offset the server never hands out is served
    // but not kept, so such requests cannot grow the cache.
    cache.get(1, "", 3, false, [] { return std::optional<std::string>("odd"); });
    cache.get(1, "", 3, false, [] { return std::optional<std::string>("odd"); });
    EXPECT_EQ(cache.builds(), 4u);
}

TEST(ToolListCache, ConcurrentCallersShareOneBuild) {
    ToolListCache cache;
    std::atomic<int> built{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i) {
        threads.emplace_back([&] {
            for (int n = 0; n < 200; ++n) {
                auto page = cache.get(5, "operator", 0, true, [&] {
                    ++built;
                    return std::optional<std::string>("page");
                });
                EXPECT_EQ(*page, "page");
            }
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(built.load(), 1);
}

TEST(MakeResultText, CarriesTheSameBytesAsMakeResult) {
    const nlohmann::json result = {{"tools", {{{"name", "a"}, {"x", 1}}}}, {"nextCursor", "Mg"}};
    for (const nlohmann::json& id : {nlohmann::json(7), nlohmann::json("req-\"1\""),
                                     nlohmann::json(-3), nlohmann::json(1e3)}) {
        // The JSON-RPC envelope as nlohmann writes it, keys sorted.
        const nlohmann::json envelope = {{"jsonrpc", "2.0"}, {"id", id}, {"result", result}};
        EXPECT_EQ(make_result_text(id, result.dump()), envelope.dump()) << id.dump();
        EXPECT_EQ(make_result(id, result), envelope.dump()) << id.dump();
    }
}

class CachedToolsListTest : public ::testing::Test {
  protected:
    void add_tool(const std::string& name) {
        ToolSpec t;
        t.name = name;
        t.input_schema = {{"type", "object"}};
        t.tier_key = auth::Permission{auth::Securable::kInfrastructure, auth::Operation::kRead};
        t.access = ToolAccess{*t.tier_key, AccessScope::kSelf, ""};
        t.handler = [](const ToolCall&) -> Result<nlohmann::json> {
            return nlohmann::json::object();
        };
        ASSERT_TRUE(tools.add(std::move(t)).ok());
    }

    std::string list(const McpServer& server, nlohmann::json params = nlohmann::json::object(),
                     nlohmann::json id = 7) {
        RpcMessage m;
        m.kind = RpcMessage::Kind::kRequest;
        m.id = std::move(id);
        m.method = "tools/list";
        m.params = std::move(params);
        auth::Principal who;
        who.username = "alice";
        return server.handle(m, who, RequestInfo{"req-1-1", "127.0.0.1", "test"}).body;
    }

    ToolCatalogue tools;
    ResourceCatalogue resources;
    PromptCatalogue prompts;
    McpSettings settings;
    audit::MemoryAuditLog audit_log;
};

TEST_F(CachedToolsListTest, TheCachedAnswerIsTheUncachedOneWithTheCallersId) {
    for (int i = 0; i < 5; ++i) add_tool("tool_" + std::to_string(i));
    McpServerOptions o;
    o.page_size = 2;
    McpServer server(tools, resources, prompts, settings, &audit_log, nullptr, o);
    const std::string first = list(server);
    const std::string second = list(server);
    EXPECT_EQ(first, second);
    auto other_id = nlohmann::json::parse(list(server, nlohmann::json::object(), "abc"));
    EXPECT_EQ(other_id["id"], "abc");
    EXPECT_EQ(other_id["result"], nlohmann::json::parse(first)["result"]);
    // What the catalogue itself says, built the uncached way.
    auto parsed = nlohmann::json::parse(first);
    ASSERT_EQ(parsed["result"]["tools"].size(), 2u);
    EXPECT_EQ(parsed["result"]["tools"][0], tools.list_entry(tools.tools()[0], ""));
    EXPECT_EQ(parsed["result"]["tools"][1], tools.list_entry(tools.tools()[1], ""));
    // Later pages are cached too and still chain.
    auto page2 = nlohmann::json::parse(list(server, {{"cursor", parsed["result"]["nextCursor"]}}));
    EXPECT_EQ(page2["result"]["tools"][0]["name"], "tool_2");
}

TEST_F(CachedToolsListTest, ABadCursorIsAnErrorEveryTime) {
    add_tool("only");
    McpServer server(tools, resources, prompts, settings, &audit_log, nullptr, McpServerOptions{});
    for (int i = 0; i < 3; ++i) {
        auto r = nlohmann::json::parse(list(server, {{"cursor", "zzz"}}));
        EXPECT_EQ(r["error"]["code"], kInvalidParams);
    }
    auto ok = nlohmann::json::parse(list(server));
    EXPECT_EQ(ok["result"]["tools"].size(), 1u);
}

TEST_F(CachedToolsListTest, AToolAddedAfterAListShowsInTheNextList) {
    add_tool("first");
    McpServer server(tools, resources, prompts, settings, &audit_log, nullptr, McpServerOptions{});
    EXPECT_EQ(nlohmann::json::parse(list(server))["result"]["tools"].size(), 1u);
    add_tool("second");
    EXPECT_EQ(nlohmann::json::parse(list(server))["result"]["tools"].size(), 2u);
}

}  // namespace
}  // namespace yuzu::mcp
