// Bytes that are not UTF-8 reaching a JSON answer, over real HTTP. The scope
// parser quotes at most 32 bytes of a token in its error messages, cutting
// by bytes, so a well-formed request whose string token has a multibyte
// character across byte 32 gets an error message holding half a character;
// and a query parameter is percent-decoded into whatever bytes it names.
// Before dump_json, nlohmann's dump() threw on either (type_error 316) and
// the answer became a 500; now the bad bytes read as U+FFFD, the request
// gets its real answer, and yuzu_json_invalid_utf8_total counts it.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "fleet_test_helpers.hpp"

namespace yuzu::testing {
namespace {

using fleet::FleetFixture;
using nlohmann::json;

constexpr char kFffd[] = "\xEF\xBF\xBD";  // U+FFFD as UTF-8

double invalid_utf8_total(httplib::Client& client) {
    auto res = client.Get("/metrics");
    EXPECT_TRUE(res);
    if (!res) return -1;
    const std::string key = "\nyuzu_json_invalid_utf8_total ";
    const auto at = res->body.find(key);
    EXPECT_NE(at, std::string::npos) << res->body;
    return at == std::string::npos ? -1 : std::stod(res->body.substr(at + key.size()));
}

// `hostname "aaa…aé"`: valid UTF-8, 33 bytes in the string, "é" at 32-33.
std::string expression_with_a_character_across_the_quote_limit() {
    return "hostname \"" + std::string(31, 'a') + "\xC3\xA9\"";
}

TEST(InvalidUtf8, AScopeErrorCutInsideACharacterIs200WithUFffd) {
    FleetFixture f;
    const double before = invalid_utf8_total(*f.client);
    const std::string expression = expression_with_a_character_across_the_quote_limit();
    auto res = f.client->Post("/api/v1/scope/validate", identity::bearer(f.admin_token),
                              json{{"expression", expression}}.dump(), "application/json");
    ASSERT_TRUE(res) << f.server->log();
    ASSERT_EQ(res->status, 200) << res->body << "\n" << f.server->log();
    const json answer = json::parse(res->body, nullptr, false);  // rejects invalid UTF-8
    ASSERT_TRUE(answer.is_object()) << res->body;
    EXPECT_EQ(answer["expression"], expression);  // the request's own text is intact
    EXPECT_EQ(answer["valid"], false);
    const std::string error = answer.value("error", "");
    EXPECT_NE(error.find(std::string(31, 'a') + kFffd), std::string::npos) << error;
    EXPECT_GE(invalid_utf8_total(*f.client), before + 1);

    // The MCP twin already serialised with replacement; both answers agree.
    const json mcp =
        f.mcp_ok(f.mcp_tokens["readonly"], "validate_scope", {{"expression", expression}});
    EXPECT_EQ(mcp["valid"], false);
    EXPECT_EQ(mcp.value("error", ""), error);
}

TEST(InvalidUtf8, AQueryParameterWithARawByteIs400WithUFffdNot500) {
    FleetFixture f;
    const double before = invalid_utf8_total(*f.client);
    // scope = `hostname "\xFF"`: the parser quotes the string it did not expect.
    auto res =
        f.client->Get("/api/v1/agents?scope=hostname%20%22%FF%22", identity::bearer(f.admin_token));
    ASSERT_TRUE(res) << f.server->log();
    ASSERT_EQ(res->status, 400) << res->body << "\n" << f.server->log();
    const json answer = json::parse(res->body, nullptr, false);
    ASSERT_TRUE(answer.is_object()) << res->body;
    EXPECT_EQ(answer["error"]["code"], 400);
    const std::string message = answer["error"].value("message", "");
    EXPECT_NE(message.find(std::string("\"") + kFffd + "\""), std::string::npos) << message;
    EXPECT_FALSE(answer["error"].value("correlation_id", "").empty());
    EXPECT_GE(invalid_utf8_total(*f.client), before + 1);
}

}  // namespace
}  // namespace yuzu::testing
