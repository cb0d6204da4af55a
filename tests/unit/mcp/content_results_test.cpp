// Non-structured results: tools with a ToolContentHandler (full result object,
// isError), binary resources, readable resource templates and prompts that
// render several messages.
#include <gtest/gtest.h>

#include "yuzu/audit/memory_audit_log.hpp"
#include "yuzu/mcp/catalogue.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/mcp_server.hpp"

namespace yuzu::mcp {
namespace {

using nlohmann::json;

class ContentResultsTest : public ::testing::Test {
  protected:
    ContentResultsTest() {
        ToolSpec t;
        t.name = "fails_softly";
        t.input_schema = {{"type", "object"}};
        t.tier_key = auth::Permission{auth::Securable::kInfrastructure, auth::Operation::kRead};
        t.access = ToolAccess{*t.tier_key, AccessScope::kSelf, ""};
        t.content_handler = [](const ToolCall&) -> Result<json> {
            return json{{"content", json::array({{{"type", "text"}, {"text", "boom"}}})},
                        {"isError", true}};
        };
        EXPECT_TRUE(tools.add(std::move(t)).ok());

        ResourceSpec blob;
        blob.uri = "test://blob";
        blob.name = "blob";
        blob.mime_type = "image/png";
        blob.base64_blob = true;
        blob.read = [](const auth::Principal&) -> Result<std::string> {
            return std::string("AAEC");
        };
        EXPECT_TRUE(resources.add(std::move(blob)).ok());
        ResourceTemplateSpec item;
        item.uri_template = "test://items/{id}/detail";
        item.name = "item";
        item.read = [](const UriVariables& v, const auth::Principal&) -> Result<std::string> {
            if (v.at("id") == "missing") return Status::NotFound("no such item");
            return "item " + v.at("id");
        };
        EXPECT_TRUE(resources.add_template(std::move(item)).ok());

        PromptSpec p;
        p.name = "two_messages";
        p.arguments = {{"topic", "t", true, {}, false, {}}};
        p.render_messages = [](const std::map<std::string, std::string>& a) -> Result<json> {
            return json::array(
                {{{"role", "user"}, {"content", {{"type", "text"}, {"text", "a"}}}},
                 {{"role", "user"}, {"content", {{"type", "text"}, {"text", a.at("topic")}}}}});
        };
        EXPECT_TRUE(prompts.add(std::move(p)).ok());
    }

    json rpc(const std::string& method, json params) {
        McpServerOptions o;
        McpServer server(tools, resources, prompts, settings, &audit_log, nullptr, o);
        RpcMessage m;
        m.kind = RpcMessage::Kind::kRequest;
        m.id = 1;
        m.method = method;
        m.params = std::move(params);
        auth::Principal who;
        who.username = "alice";
        auto reply = server.handle(m, who, RequestInfo{"req-1-1", "127.0.0.1", "test"});
        EXPECT_EQ(reply.kind, Reply::Kind::kJson);
        return json::parse(reply.body);
    }

    ToolCatalogue tools;
    ResourceCatalogue resources;
    PromptCatalogue prompts;
    McpSettings settings;
    audit::MemoryAuditLog audit_log;
};

TEST_F(ContentResultsTest, ContentHandlerResultPassesThroughUnchanged) {
    json r = rpc("tools/call", {{"name", "fails_softly"}});
    ASSERT_TRUE(r.contains("result")) << r.dump();
    EXPECT_EQ(r["result"]["isError"], true);
    EXPECT_EQ(r["result"]["content"][0]["text"], "boom");
    EXPECT_FALSE(r["result"].contains("structuredContent"));
}

TEST_F(ContentResultsTest, ToolNeedsExactlyOneHandler) {
    ToolSpec both;
    both.name = "both";
    both.input_schema = {{"type", "object"}};
    both.handler = [](const ToolCall&) -> Result<json> { return json::object(); };
    both.content_handler = both.handler;
    EXPECT_FALSE(tools.add(both).ok());
    ToolSpec neither;
    neither.name = "neither";
    neither.input_schema = {{"type", "object"}};
    EXPECT_FALSE(tools.add(neither).ok());
}

TEST_F(ContentResultsTest, BinaryResourceIsSentAsBlob) {
    json r = rpc("resources/read", {{"uri", "test://blob"}});
    const json& c = r["result"]["contents"][0];
    EXPECT_EQ(c["blob"], "AAEC");
    EXPECT_FALSE(c.contains("text"));
    EXPECT_EQ(c["mimeType"], "image/png");
}

TEST_F(ContentResultsTest, TemplateReadSubstitutesVariables) {
    json r = rpc("resources/read", {{"uri", "test://items/42/detail"}});
    EXPECT_EQ(r["result"]["contents"][0]["uri"], "test://items/42/detail");
    EXPECT_EQ(r["result"]["contents"][0]["text"], "item 42");
    json missing = rpc("resources/read", {{"uri", "test://items/missing/detail"}});
    EXPECT_EQ(missing["error"]["code"], kInvalidParams);
    json other = rpc("resources/read", {{"uri", "test://items/42/other"}});
    EXPECT_EQ(other["error"]["code"], kInvalidParams);
}

TEST(MatchUriTemplate, LevelOneVariables) {
    auto v = match_uri_template("test://template/{id}/data", "test://template/123/data");
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(v->at("id"), "123");
    auto two = match_uri_template("x://{a}-{b}", "x://left-right");
    ASSERT_TRUE(two.has_value());
    EXPECT_EQ(two->at("a"), "left");
    EXPECT_EQ(two->at("b"), "right");
    EXPECT_FALSE(match_uri_template("test://template/{id}/data", "test://template//data"));
    EXPECT_FALSE(match_uri_template("test://template/{id}/data", "test://template/1/2/data"));
    EXPECT_FALSE(match_uri_template("test://template/{id}", "test://template/1/"));
    EXPECT_FALSE(match_uri_template("test://{id", "test://x"));
}

TEST_F(ContentResultsTest, PromptRenderMessagesIsUsedAndArgumentsStayWrapped) {
    json r = rpc("prompts/get", {{"name", "two_messages"}, {"arguments", {{"topic", "hi"}}}});
    ASSERT_TRUE(r.contains("result")) << r.dump();
    ASSERT_EQ(r["result"]["messages"].size(), 2u);
    EXPECT_EQ(r["result"]["messages"][1]["content"]["text"],
              wrap_untrusted_argument("topic", "hi"));
}

TEST(PromptCatalogue, NeedsExactlyOneRenderer) {
    PromptCatalogue prompts;
    PromptSpec none;
    none.name = "none";
    EXPECT_FALSE(prompts.add(none).ok());
    PromptSpec both;
    both.name = "both";
    both.render = [](const std::map<std::string, std::string>&) -> Result<std::string> {
        return std::string();
    };
    both.render_messages = [](const std::map<std::string, std::string>&) -> Result<json> {
        return json::array();
    };
    EXPECT_FALSE(prompts.add(both).ok());
}

}  // namespace
}  // namespace yuzu::mcp
