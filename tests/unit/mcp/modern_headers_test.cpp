// The 2026-07-28 request envelope: header values (trimmed, literal or
// =?base64?...?=), the header text of an argument, params._meta validation,
// which era a request belongs to, and the header rules that must repeat the
// body (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*).
#include "mcp/transport/modern_headers.hpp"

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>

#include "yuzu/mcp/catalogue.hpp"
#include "yuzu/mcp/error_codes.hpp"
#include "yuzu/mcp/protocol_era.hpp"

namespace yuzu::mcp {
namespace {

using nlohmann::json;

constexpr char kCid[] = "req-1-1";

RpcMessage request(const std::string& method, json params = json::object()) {
    RpcMessage m;
    m.kind = RpcMessage::Kind::kRequest;
    m.id = 7;
    m.method = method;
    m.params = std::move(params);
    return m;
}

// params whose _meta is a valid 2026 envelope, with `extra` merged into it.
json with_meta(json params = json::object(), const json& extra = json::object()) {
    json meta = {{kMetaProtocolVersion, kModernProtocolVersion},
                 {kMetaClientCapabilities, json::object()}};
    meta.update(extra);
    params["_meta"] = std::move(meta);
    return params;
}

RpcError meta_error(const json& params) {
    auto parsed = parse_request_meta(params, kCid);
    EXPECT_TRUE(std::holds_alternative<RpcError>(parsed)) << params.dump();
    if (!std::holds_alternative<RpcError>(parsed)) return RpcError{};
    return std::get<RpcError>(parsed);
}

TEST(McpHeaderValue, PlainValuesAreLiteralAndTrimmedOfSpacesAndTabs) {
    EXPECT_EQ(decode_mcp_header_value("tools/call"), "tools/call");
    EXPECT_EQ(decode_mcp_header_value(""), "");
    EXPECT_EQ(decode_mcp_header_value("  \tus-west1 \t"), "us-west1");
    EXPECT_EQ(decode_mcp_header_value(" us west 1 "), "us west 1") << "inner spaces stay";
}

TEST(McpHeaderValue, TheBase64FormDecodesToItsText) {
    EXPECT_EQ(decode_mcp_header_value("=?base64?SGVsbG8=?="), "Hello");
    EXPECT_EQ(decode_mcp_header_value(" \t=?base64?SGVsbG8=?=  "), "Hello");
    EXPECT_EQ(decode_mcp_header_value("=?base64?SGVsbG8sIOS4lueVjA==?="), "Hello, 世界");
}

// Outside the base64 form a value is visible ASCII, spaces and tabs only
// (SEP-2243: non-ASCII and control characters must come base64-encoded).
TEST(McpHeaderValue, PlainValuesWithNonAsciiOrControlBytesAreRefused) {
    EXPECT_EQ(decode_mcp_header_value("Hello, 世界"), std::nullopt) << "raw UTF-8";
    EXPECT_EQ(decode_mcp_header_value("caf\xe9"), std::nullopt) << "Latin-1 obs-text";
    EXPECT_EQ(decode_mcp_header_value("a\x7f"), std::nullopt) << "DEL";
    EXPECT_EQ(decode_mcp_header_value(std::string("a\0b", 3)), std::nullopt) << "NUL";
    EXPECT_EQ(decode_mcp_header_value("a\x01"
                                      "b"),
              std::nullopt)
        << "SOH";
    EXPECT_EQ(decode_mcp_header_value("a\tb"), "a\tb") << "an inner tab is allowed";
    EXPECT_EQ(decode_mcp_header_value("~!#$%&'()*+,-./:;<=>?@[\\]^_`{|}"),
              "~!#$%&'()*+,-./:;<=>?@[\\]^_`{|}");
}

TEST(McpHeaderValue, MalformedBase64IsRefusedRatherThanTakenLiterally) {
    EXPECT_EQ(decode_mcp_header_value("=?base64?SGVsbG8?="), std::nullopt) << "no padding";
    EXPECT_EQ(decode_mcp_header_value("=?base64?SGVs!!!bG8=?="), std::nullopt);
    EXPECT_EQ(decode_mcp_header_value("=?base64?SGV*bG8=?="), std::nullopt);
    EXPECT_EQ(decode_mcp_header_value("=?base64?SGVsbG8_?="), std::nullopt) << "base64url";
    EXPECT_EQ(decode_mcp_header_value("=?base64?SGVsbG9=?="), std::nullopt) << "not canonical";
}

TEST(McpHeaderValue, WithoutTheWholePrefixAndSuffixTheValueIsLiteral) {
    EXPECT_EQ(decode_mcp_header_value("SGVsbG8="), "SGVsbG8=");
    EXPECT_EQ(decode_mcp_header_value("SGVsbG8=?="), "SGVsbG8=?=");
    EXPECT_EQ(decode_mcp_header_value("=?base64?SGVsbG8="), "=?base64?SGVsbG8=");
    EXPECT_EQ(decode_mcp_header_value("=?base64?"), "=?base64?");
}

TEST(McpHeaderText, PrimitivesHaveHeaderTextAndStructuresHaveNone) {
    EXPECT_EQ(mcp_header_text_of(json("us-west1")), "us-west1");
    EXPECT_EQ(mcp_header_text_of(json("")), "");
    EXPECT_EQ(mcp_header_text_of(json(true)), "true");
    EXPECT_EQ(mcp_header_text_of(json(false)), "false");
    EXPECT_EQ(mcp_header_text_of(json(42)), "42");
    EXPECT_EQ(mcp_header_text_of(json(-7)), "-7");
    EXPECT_EQ(mcp_header_text_of(json(nullptr)), std::nullopt);
    EXPECT_EQ(mcp_header_text_of(json::object()), std::nullopt);
    EXPECT_EQ(mcp_header_text_of(json::array({1, 2})), std::nullopt);
}

TEST(RequestMetaParse, AMissingOrNonObjectMetaIsInvalidParams) {
    EXPECT_EQ(meta_error(json::object()).code, kInvalidParams);
    EXPECT_EQ(meta_error(json(nullptr)).code, kInvalidParams);
    EXPECT_EQ(meta_error({{"_meta", "2026-07-28"}}).code, kInvalidParams);
    RpcError e = meta_error({{"_meta", json::array()}});
    EXPECT_EQ(e.code, kInvalidParams);
    EXPECT_EQ(e.data["correlation_id"], kCid);
    EXPECT_TRUE(e.data["remediation"].is_string());
}

TEST(RequestMetaParse, TheProtocolVersionMustBeAString) {
    json no_version = {{"_meta", {{kMetaClientCapabilities, json::object()}}}};
    EXPECT_EQ(meta_error(no_version).code, kInvalidParams);
    EXPECT_EQ(meta_error(with_meta(json::object(), {{kMetaProtocolVersion, 20260728}})).code,
              kInvalidParams);
}

TEST(RequestMetaParse, AnUnsupportedVersionListsTheSupportedOnesAndEchoesTheRequested) {
    RpcError e = meta_error(with_meta(json::object(), {{kMetaProtocolVersion, "2025-11-25"}}));
    EXPECT_EQ(e.code, kUnsupportedProtocolVersion);
    EXPECT_EQ(e.code, -32022);
    EXPECT_EQ(e.data["supported"], json::array({"2026-07-28"}));
    EXPECT_EQ(e.data["requested"], "2025-11-25");
    EXPECT_EQ(e.data["correlation_id"], kCid);
    // A long version is echoed bounded.
    RpcError long_one =
        meta_error(with_meta(json::object(), {{kMetaProtocolVersion, std::string(500, 'v')}}));
    EXPECT_EQ(long_one.code, kUnsupportedProtocolVersion);
    EXPECT_EQ(long_one.data["requested"], std::string(64, 'v'));
}

TEST(RequestMetaParse, ClientCapabilitiesMustBeAnObject) {
    json no_caps = {{"_meta", {{kMetaProtocolVersion, kModernProtocolVersion}}}};
    EXPECT_EQ(meta_error(no_caps).code, kInvalidParams);
    EXPECT_EQ(
        meta_error(with_meta(json::object(), {{kMetaClientCapabilities, json::array()}})).code,
        kInvalidParams);
}

TEST(RequestMetaParse, ClientInfoWhenSentMustBeAnObject) {
    EXPECT_EQ(meta_error(with_meta(json::object(), {{kMetaClientInfo, "me"}})).code,
              kInvalidParams);
}

TEST(RequestMetaParse, ALogLevelMustBeAnRfc5424Name) {
    EXPECT_EQ(meta_error(with_meta(json::object(), {{kMetaLogLevel, "verbose"}})).code,
              kInvalidParams);
    EXPECT_EQ(meta_error(with_meta(json::object(), {{kMetaLogLevel, 3}})).code, kInvalidParams);
    EXPECT_EQ(meta_error(with_meta(json::object(), {{kMetaLogLevel, "WARNING"}})).code,
              kInvalidParams);
}

TEST(RequestMetaParse, AValidMetaIsReadWithItsLogLevelAndClientInfo) {
    const json caps = {{"sampling", json::object()}};
    const json info = {{"name", "probe"}, {"version", "1"}};
    auto parsed = parse_request_meta(with_meta({{"name", "x"}}, {{kMetaClientCapabilities, caps},
                                                                 {kMetaClientInfo, info},
                                                                 {kMetaLogLevel, "warning"}}),
                                     kCid);
    ASSERT_TRUE(std::holds_alternative<RequestMeta>(parsed));
    const RequestMeta& meta = std::get<RequestMeta>(parsed);
    EXPECT_EQ(meta.protocol_version, "2026-07-28");
    EXPECT_EQ(meta.client_capabilities, caps);
    EXPECT_EQ(meta.client_info, info);
    EXPECT_EQ(meta.log_level, LogLevel::kWarning);
}

TEST(RequestMetaParse, ClientInfoAndLogLevelAreOptional) {
    auto parsed = parse_request_meta(with_meta(), kCid);
    ASSERT_TRUE(std::holds_alternative<RequestMeta>(parsed));
    const RequestMeta& meta = std::get<RequestMeta>(parsed);
    EXPECT_TRUE(meta.client_info.is_null());
    EXPECT_EQ(meta.log_level, std::nullopt);
    EXPECT_EQ(meta.client_capabilities, json::object());
}

TEST(ProtocolEra, AnInitializeIsModernOnlyByItsMeta) {
    EXPECT_FALSE(is_modern_request(request("initialize"), "2026-07-28"));
    EXPECT_FALSE(is_modern_request(request("initialize", {{"protocolVersion", "2025-11-25"}}),
                                   "2026-07-28"));
    EXPECT_TRUE(is_modern_request(request("initialize", with_meta()), ""));
}

TEST(ProtocolEra, TheModernVersionHeaderAloneMakesARequestModern) {
    EXPECT_TRUE(is_modern_request(request("tools/list"), "2026-07-28"));
    EXPECT_TRUE(is_modern_request(request("tools/list", with_meta()), ""));
    EXPECT_FALSE(is_modern_request(request("tools/list"), "2025-11-25"));
    EXPECT_FALSE(is_modern_request(request("tools/list"), ""));
}

TEST(ProtocolEra, A2025RequestWithOnlyAProgressTokenInMetaStays2025) {
    json params = {{"name", "execute_instruction"}, {"_meta", {{"progressToken", "tok"}}}};
    EXPECT_FALSE(is_modern_request(request("tools/call", params), ""));
    EXPECT_FALSE(is_modern_request(request("tools/call", params), "2025-11-25"));
}

class ModernHeadersTest : public ::testing::Test {
  protected:
    ModernHeadersTest() {
        ToolSpec t;
        t.name = "route";
        t.input_schema = {{"type", "object"},
                          {"properties",
                           {{"region", {{"type", "string"}, {"x-mcp-header", "Region"}}},
                            {"note", {{"type", "string"}}}}}};
        t.tier_key = auth::Permission{auth::Securable::kInfrastructure, auth::Operation::kRead};
        t.access = ToolAccess{*t.tier_key, AccessScope::kSelf, ""};
        t.handler = [](const ToolCall&) -> Result<nlohmann::json> { return json::object(); };
        EXPECT_TRUE(tools.add(t).ok());
        t.name = "route_nested";
        t.input_schema = {
            {"type", "object"},
            {"properties",
             {{"target",
               {{"type", "object"},
                {"properties", {{"zone", {{"type", "integer"}, {"x-mcp-header", "Zone"}}}}}}}}}};
        EXPECT_TRUE(tools.add(std::move(t)).ok());
        meta.protocol_version = kModernProtocolVersion;
    }

    // A request with the version header and, when given, Mcp-Method.
    static httplib::Request http_request(const std::string& method) {
        httplib::Request req;
        req.headers.emplace("MCP-Protocol-Version", kModernProtocolVersion);
        if (!method.empty()) req.headers.emplace("Mcp-Method", method);
        return req;
    }

    std::optional<RpcError> check(const httplib::Request& req, const RpcMessage& message) const {
        return check_modern_headers(req, message, meta, tools, kCid);
    }

    // The header a -32020 names, or "" when the request passed.
    std::string mismatched(const httplib::Request& req, const RpcMessage& message) const {
        auto e = check(req, message);
        if (!e) return "";
        EXPECT_EQ(e->code, kHeaderMismatch);
        EXPECT_EQ(e->data["correlation_id"], kCid);
        return e->data.value("header", "");
    }

    static RpcMessage call_route(json arguments) {
        return request("tools/call", with_meta({{"name", "route"}, {"arguments", arguments}}));
    }

    ToolCatalogue tools;
    RequestMeta meta;
};

TEST_F(ModernHeadersTest, HeadersThatRepeatTheBodyPass) {
    EXPECT_EQ(mismatched(http_request("tools/list"), request("tools/list", with_meta())), "");
    auto read = http_request("resources/read");
    read.headers.emplace("Mcp-Name", "yuzu://server/health");
    EXPECT_EQ(
        mismatched(read, request("resources/read", with_meta({{"uri", "yuzu://server/health"}}))),
        "");
}

TEST_F(ModernHeadersTest, AMissingDifferentOrRepeatedMcpMethodIsAMismatch) {
    const RpcMessage list = request("tools/list", with_meta());
    EXPECT_EQ(mismatched(http_request("tools/call"), list), "Mcp-Method");
    EXPECT_EQ(mismatched(http_request(""), list), "Mcp-Method");
    EXPECT_EQ(mismatched(http_request("Tools/List"), list), "Mcp-Method")
        << "values are case-sensitive";
    auto twice = http_request("tools/list");
    twice.headers.emplace("Mcp-Method", "tools/list");
    EXPECT_EQ(mismatched(twice, list), "Mcp-Method");
}

TEST_F(ModernHeadersTest, McpNameIsRequiredForToolsCallAndMayCarrySurroundingSpaces) {
    const RpcMessage call = call_route(json::object());
    EXPECT_EQ(mismatched(http_request("tools/call"), call), "Mcp-Name");
    auto spaced = http_request("tools/call");
    spaced.headers.emplace("Mcp-Name", "  route\t");
    EXPECT_EQ(mismatched(spaced, call), "");
    auto other = http_request("tools/call");
    other.headers.emplace("Mcp-Name", "Route");
    EXPECT_EQ(mismatched(other, call), "Mcp-Name");
}

TEST_F(ModernHeadersTest, McpNameOnAMethodWithoutANameIsAMismatch) {
    auto req = http_request("tools/list");
    req.headers.emplace("Mcp-Name", "route");
    EXPECT_EQ(mismatched(req, request("tools/list", with_meta())), "Mcp-Name");
}

TEST_F(ModernHeadersTest, AnArgumentWithAnXMcpHeaderNeedsItsParamHeader) {
    auto req = http_request("tools/call");
    req.headers.emplace("Mcp-Name", "route");
    EXPECT_EQ(mismatched(req, call_route({{"region", "us-west1"}})), "Mcp-Param-Region");
    // Without the argument the header is not expected, and an argument
    // without x-mcp-header needs none.
    EXPECT_EQ(mismatched(req, call_route({{"note", "hi"}})), "");
    req.headers.emplace("Mcp-Param-Region", "us-west1");
    EXPECT_EQ(mismatched(req, call_route(json::object())), "Mcp-Param-Region");
}

TEST_F(ModernHeadersTest, AParamHeaderEqualToTheArgumentPassesLiteralOrBase64) {
    const RpcMessage call = call_route({{"region", "us-west1"}});
    for (const char* value : {"us-west1", " us-west1 ", "=?base64?dXMtd2VzdDE=?="}) {
        auto req = http_request("tools/call");
        req.headers.emplace("Mcp-Name", "route");
        req.headers.emplace("Mcp-Param-Region", value);
        EXPECT_EQ(mismatched(req, call), "") << value;
    }
    for (const char* value : {"us-east1", "US-WEST1", "=?base64?dXMtd2VzdDE?="}) {
        auto req = http_request("tools/call");
        req.headers.emplace("Mcp-Name", "route");
        req.headers.emplace("Mcp-Param-Region", value);
        EXPECT_EQ(mismatched(req, call), "Mcp-Param-Region") << value;
    }
}

TEST_F(ModernHeadersTest, ARawNonAsciiParamHeaderIsRefusedEvenWhenItEqualsTheBody) {
    const RpcMessage call = call_route({{"region", "Zürich"}});
    auto raw = http_request("tools/call");
    raw.headers.emplace("Mcp-Name", "route");
    raw.headers.emplace("Mcp-Param-Region", "Zürich");
    EXPECT_EQ(mismatched(raw, call), "Mcp-Param-Region");
    auto encoded = http_request("tools/call");
    encoded.headers.emplace("Mcp-Name", "route");
    encoded.headers.emplace("Mcp-Param-Region", "=?base64?WsO8cmljaA==?=");
    EXPECT_EQ(mismatched(encoded, call), "");
}

TEST_F(ModernHeadersTest, AnXMcpHeaderNestedThroughPropertiesIsChecked) {
    const auto call = [](json arguments) {
        return request("tools/call",
                       with_meta({{"name", "route_nested"}, {"arguments", std::move(arguments)}}));
    };
    auto req = http_request("tools/call");
    req.headers.emplace("Mcp-Name", "route_nested");
    EXPECT_EQ(mismatched(req, call({{"target", {{"zone", 7}}}})), "Mcp-Param-Zone");
    EXPECT_EQ(mismatched(req, call({{"target", json::object()}})), "");
    EXPECT_EQ(mismatched(req, call({{"target", "not an object"}})), "");
    req.headers.emplace("Mcp-Param-Zone", "007");
    EXPECT_EQ(mismatched(req, call({{"target", {{"zone", 7}}}})), "");
    EXPECT_EQ(mismatched(req, call({{"target", {{"zone", 8}}}})), "Mcp-Param-Zone");
    // The schema's integer accepts 7.0, and a client writes it as 7.
    EXPECT_EQ(mismatched(req, call({{"target", {{"zone", 7.0}}}})), "");
    EXPECT_EQ(mismatched(req, call({{"target", {{"zone", 7.5}}}})), "Mcp-Param-Zone");
}

TEST_F(ModernHeadersTest, TheVersionHeaderMustEqualTheMetaVersion) {
    const RpcMessage list = request("tools/list", with_meta());
    httplib::Request other;
    other.headers.emplace("MCP-Protocol-Version", "2025-11-25");
    other.headers.emplace("Mcp-Method", "tools/list");
    EXPECT_EQ(mismatched(other, list), "MCP-Protocol-Version");
    httplib::Request missing;
    missing.headers.emplace("Mcp-Method", "tools/list");
    EXPECT_EQ(mismatched(missing, list), "MCP-Protocol-Version");
}

TEST(ModernVersionHeader, AHeaderThatDisagreesWithMetaIsAMismatchBeforeTheVersionIsJudged) {
    const RpcMessage unknown =
        request("tools/list", with_meta(json::object(), {{kMetaProtocolVersion, "v999"}}));
    httplib::Request modern;
    modern.headers.emplace("MCP-Protocol-Version", kModernProtocolVersion);
    auto e = check_version_header(modern, unknown, kCid);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->code, kHeaderMismatch);
    httplib::Request same;
    same.headers.emplace("MCP-Protocol-Version", "v999");
    EXPECT_EQ(check_version_header(same, unknown, kCid), std::nullopt);
    EXPECT_EQ(check_version_header(httplib::Request(), unknown, kCid), std::nullopt);
}

}  // namespace
}  // namespace yuzu::mcp
