#include "client/protocol_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "client/backoff.hpp"
#include "client/command_executor.hpp"
#include "client/http_channel.hpp"
#include "client/recent_commands.hpp"

namespace yuzu::agent {
namespace {

using nlohmann::json;

HttpReply reply(int status, std::string body = "", std::optional<int> retry_after = {}) {
    HttpReply r;
    r.status = status;
    r.body = std::move(body);
    r.retry_after_s = retry_after;
    if (status == 0) r.transport_error = "Connection";
    return r;
}

TEST(ProtocolReplies, ClassifiedAsTheErrorTableSays) {
    EXPECT_EQ(classify_reply(reply(200)), ReplyAction::kAccepted);
    EXPECT_EQ(classify_reply(reply(201)), ReplyAction::kAccepted);
    EXPECT_EQ(classify_reply(reply(204)), ReplyAction::kAccepted);
    EXPECT_EQ(classify_reply(reply(401)), ReplyAction::kRefused);
    EXPECT_EQ(classify_reply(reply(429)), ReplyAction::kRetryAfter);
    EXPECT_EQ(classify_reply(reply(503)), ReplyAction::kRetryAfter);
    EXPECT_EQ(classify_reply(reply(500)), ReplyAction::kBackOff);
    EXPECT_EQ(classify_reply(reply(502)), ReplyAction::kBackOff);
    EXPECT_EQ(classify_reply(reply(0)), ReplyAction::kBackOff);
    EXPECT_EQ(classify_reply(reply(400)), ReplyAction::kRejected);
    EXPECT_EQ(classify_reply(reply(413)), ReplyAction::kRejected);
    EXPECT_EQ(classify_reply(reply(404)), ReplyAction::kRejected);
}

TEST(ProtocolReplies, DescribedWithTheServerMessage) {
    HttpReply r = reply(400, R"({"error":{"code":400,"message":"hostname: too long"}})");
    r.correlation_id = "abc123";
    EXPECT_EQ(describe_reply(r), "HTTP 400: hostname: too long (correlation abc123)");
    EXPECT_EQ(describe_reply(reply(502, "<html>bad gateway</html>")), "HTTP 502");
    EXPECT_EQ(describe_reply(reply(0)), "no answer from the server: Connection");
}

TEST(ProtocolReplies, RetryAfterSeconds) {
    EXPECT_EQ(parse_retry_after("7"), 7);
    EXPECT_EQ(parse_retry_after("0"), 0);
    EXPECT_EQ(parse_retry_after("99999"), 3600);
    EXPECT_FALSE(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"));
    EXPECT_FALSE(parse_retry_after("-1"));
    EXPECT_FALSE(parse_retry_after(""));
}

TEST(ProtocolBodies, EnrollAndHeartbeat) {
    HostFacts facts{"web-01", "linux", "x86_64", "Debian GNU/Linux 12 (bookworm)"};
    const std::string csr =
        "-----BEGIN CERTIFICATE REQUEST-----\nMIIB\n-----END CERTIFICATE REQUEST-----\n";
    const json enroll = json::parse(enroll_body("yuzu_tok", facts, csr));
    EXPECT_EQ(enroll["csr"], csr);
    EXPECT_EQ(enroll["enrollment_token"], "yuzu_tok");
    EXPECT_EQ(enroll["hostname"], "web-01");
    EXPECT_EQ(enroll["os"], "linux");
    EXPECT_EQ(enroll["arch"], "x86_64");
    EXPECT_EQ(enroll["os_version"], "Debian GNU/Linux 12 (bookworm)");
    EXPECT_TRUE(enroll["agent_version"].is_string());

    PerfSample perf;
    perf.mem_used_pct = 41.0;
    perf.load1 = 0.12;
    const json hb = json::parse(heartbeat_body(facts, 12345, perf));
    EXPECT_EQ(hb["uptime_s"], 12345);
    EXPECT_EQ(hb["perf"], json({{"mem_used_pct", 41.0}, {"load1", 0.12}}));
    EXPECT_FALSE(hb.contains("enrollment_token"));
    const json bare = json::parse(heartbeat_body(facts, std::nullopt, PerfSample{}));
    EXPECT_FALSE(bare.contains("perf"));  // only what could be measured
    EXPECT_FALSE(bare.contains("uptime_s"));
}

TEST(ProtocolBodies, EnrollAnswer) {
    auto ok = parse_enroll_answer(
        R"({"agent_id":"ab","device_token":"yuzu_d","heartbeat_interval_s":10,
            "inventory_interval_s":300,"poll_wait_s":25,"extra":true})");
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(ok->agent_id, "ab");
    EXPECT_EQ(ok->settings.heartbeat_interval_s, 10);
    EXPECT_EQ(ok->settings.inventory_interval_s, 300);
    EXPECT_EQ(ok->settings.poll_wait_s, 25);
    EXPECT_FALSE(parse_enroll_answer(R"({"agent_id":"ab"})").ok());
    EXPECT_FALSE(parse_enroll_answer("garbage").ok());
    const auto settings = parse_settings(R"({"heartbeat_interval_s":0,"quarantined":true})");
    EXPECT_FALSE(settings.heartbeat_interval_s);  // 0 is not an interval
    EXPECT_EQ(settings.quarantined, true);
}

constexpr const char* kLeafPem =
    "-----BEGIN CERTIFICATE-----\nMIIBleaf\n-----END CERTIFICATE-----\n";
constexpr const char* kChainPem =
    "-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n"
    "-----BEGIN CERTIFICATE-----\nMIIBroot\n-----END CERTIFICATE-----\n";

json enroll_answer_with(json fields) {
    json j = {{"agent_id", "ab"}, {"device_token", "yuzu_d"}};
    j.update(fields);
    return j;
}

TEST(ProtocolBodies, EnrollBodyLeavesOutAnEmptyCsr) {
    const json enroll = json::parse(enroll_body("yuzu_tok", HostFacts{}, ""));
    EXPECT_FALSE(enroll.contains("csr"));
}

TEST(ProtocolBodies, EnrollAnswerWithAndWithoutCertificate) {
    auto without = parse_enroll_answer(enroll_answer_with(json::object()).dump());
    ASSERT_TRUE(without.ok());
    EXPECT_FALSE(without->certificate);
    // null and "" are a server without a CA too.
    auto null_cert = parse_enroll_answer(enroll_answer_with({{"certificate", nullptr}}).dump());
    ASSERT_TRUE(null_cert.ok());
    EXPECT_FALSE(null_cert->certificate);

    auto with = parse_enroll_answer(
        enroll_answer_with({{"certificate", kLeafPem}, {"certificate_chain", kChainPem}}).dump());
    ASSERT_TRUE(with.ok()) << with.status().to_string();
    ASSERT_TRUE(with->certificate);
    EXPECT_EQ(with->certificate->certificate, kLeafPem);
    EXPECT_EQ(with->certificate->chain, kChainPem);

    auto leaf_only = parse_enroll_answer(enroll_answer_with({{"certificate", kLeafPem}}).dump());
    ASSERT_TRUE(leaf_only.ok());
    ASSERT_TRUE(leaf_only->certificate);
    EXPECT_EQ(leaf_only->certificate->chain, "");
}

TEST(ProtocolBodies, EnrollAnswerWithANonPemCertificateIsMalformed) {
    for (const json& bad :
         {json({{"certificate", "MIIBleaf"}}),
          json({{"certificate", "-----BEGIN PRIVATE KEY-----\nx\n"}}), json({{"certificate", 42}}),
          json({{"certificate", kLeafPem}, {"certificate_chain", "garbage"}}),
          json({{"certificate", std::string(kLeafPem) + std::string(64 * 1024, 'A')}})}) {
        const auto answer = parse_enroll_answer(enroll_answer_with(bad).dump());
        ASSERT_FALSE(answer.ok()) << bad.dump().substr(0, 200);
        EXPECT_EQ(answer.status().code(), StatusCode::kInvalidArgument);
        EXPECT_NE(answer.status().message().find("malformed"), std::string::npos);
    }
}

TEST(ProtocolBodies, HeartbeatAnswerRenewalFlag) {
    EXPECT_EQ(parse_settings(R"({"certificate_renewal":true})").certificate_renewal, true);
    EXPECT_EQ(parse_settings(R"({"certificate_renewal":false})").certificate_renewal, false);
    EXPECT_FALSE(parse_settings(R"({"certificate_renewal":"yes"})").certificate_renewal);
    EXPECT_FALSE(parse_settings(R"({"heartbeat_interval_s":10})").certificate_renewal);
}

TEST(ProtocolBodies, CertificateRequestAndAnswer) {
    EXPECT_EQ(json::parse(certificate_request_body("PEM")), json({{"csr", "PEM"}}));
    auto ok = parse_certificate_answer(
        json({{"certificate", kLeafPem}, {"certificate_chain", kChainPem}}).dump());
    ASSERT_TRUE(ok.ok()) << ok.status().to_string();
    EXPECT_EQ(ok->certificate, kLeafPem);
    EXPECT_EQ(ok->chain, kChainPem);
    EXPECT_FALSE(parse_certificate_answer("{}").ok());
    EXPECT_FALSE(parse_certificate_answer("garbage").ok());
    EXPECT_FALSE(parse_certificate_answer(json({{"certificate", "MIIB"}}).dump()).ok());
    EXPECT_FALSE(
        parse_certificate_answer(json({{"certificate", kLeafPem}, {"certificate_chain", 1}}).dump())
            .ok());
}

TEST(ProtocolBodies, InventorySplicesTheSourcesAndTheirDigest) {
    const std::string sources = R"({"kernel":{"status":"ok"}})";
    const InventoryReport report = inventory_report(1764460800000, sources);
    // sha256 of the sources text exactly as spliced (printf '%s' ... | sha256sum).
    EXPECT_EQ(report.sources_sha256,
              "91cdf71e97099667aaa334912145c85ea79fd30146db08e13768b195b7423606");
    const json full = json::parse(report.full);
    EXPECT_EQ(full["collected_at"], 1764460800000);
    EXPECT_EQ(full["sources"]["kernel"]["status"], "ok");
    EXPECT_EQ(full["sources_sha256"], report.sources_sha256);
    const json digest_only = json::parse(report.digest_only);
    EXPECT_FALSE(digest_only.contains("sources"));
    EXPECT_EQ(digest_only["sources_sha256"], report.sources_sha256);
    EXPECT_TRUE(asks_for_sources(R"({"send_sources":true})"));
    EXPECT_FALSE(asks_for_sources(R"({"send_sources":false})"));
    EXPECT_FALSE(asks_for_sources("garbage"));
}

TEST(ProtocolBodies, CommandsAnswer) {
    auto answer = parse_commands_answer(R"({"commands":[
        {"command_id":"c1","execution_id":"e1","plugin":"os","action":"info",
         "params":{"a":[1,2]},"timeout_s":5},
        {"command_id":"c2","plugin":"os","action":"info","timeout_s":999999},
        {"plugin":"no id"}, 42],
        "quarantined":false})");
    ASSERT_TRUE(answer.ok()) << answer.status().to_string();
    ASSERT_EQ(answer->commands.size(), 2u);
    EXPECT_EQ(answer->skipped, 2);
    EXPECT_EQ(answer->quarantined, false);
    EXPECT_EQ(json::parse(answer->commands[0].params_json), json({{"a", {1, 2}}}));
    EXPECT_EQ(answer->commands[0].timeout_s, 5);
    EXPECT_EQ(answer->commands[0].execution_id, "e1");
    EXPECT_EQ(answer->commands[1].params_json, "{}");
    EXPECT_EQ(answer->commands[1].timeout_s, 86400);
    EXPECT_FALSE(parse_commands_answer(R"({"quarantined":true})").ok());
    EXPECT_FALSE(parse_commands_answer("[]").ok());
}

TEST(ProtocolBodies, ResultCarriesErrorOnlyWhenNotSuccess) {
    const json ok = json::parse(result_body("c1", "success", R"({"v":1})", "", 12));
    EXPECT_EQ(ok, json({{"command_id", "c1"},
                        {"status", "success"},
                        {"output", {{"v", 1}}},
                        {"duration_ms", 12}}));
    const json failed = json::parse(result_body("c2", "timeout", "null", "took too long", 60000));
    EXPECT_EQ(failed["error"], "took too long");
    EXPECT_TRUE(failed["output"].is_null());
}

PluginRegistry echo_registry(int* runs) {
    PluginRegistry registry;
    registry.add(PluginInfo{"t", "echo", "echo", false},
                 [runs](const std::string& params, const PluginLimits&) {
                     ++*runs;
                     PluginOutcome out;
                     out.status = "success";
                     out.output_json = params;
                     return out;
                 });
    return registry;
}

TEST(CommandExecutor, RunsRefusesAndReportsUnknownActions) {
    int runs = 0;
    const PluginRegistry registry = echo_registry(&runs);
    AgentCommand cmd;
    cmd.command_id = "c1";
    cmd.plugin = "t";
    cmd.action = "echo";
    cmd.params_json = R"({"k":"v"})";
    const json ran = json::parse(execute_command(cmd, false, registry));
    EXPECT_EQ(ran["status"], "success");
    EXPECT_EQ(ran["output"], json({{"k", "v"}}));
    EXPECT_EQ(runs, 1);

    const json refused = json::parse(execute_command(cmd, true, registry));
    EXPECT_EQ(refused["status"], "refused");
    EXPECT_EQ(refused["error"], "agent is quarantined");
    EXPECT_EQ(runs, 1);

    cmd.action = "missing";
    EXPECT_EQ(json::parse(execute_command(cmd, false, registry))["status"], "failure");
    cmd.plugin.clear();
    EXPECT_EQ(json::parse(execute_command(cmd, false, registry))["error"],
              "command names no plugin or action");
}

TEST(RecentCommands, ForgetsTheOldestBeyondCapacity) {
    RecentCommands recent(2);
    EXPECT_EQ(recent.find("a"), nullptr);
    recent.remember("a", "ra");
    recent.remember("b", "rb");
    ASSERT_NE(recent.find("a"), nullptr);
    EXPECT_EQ(*recent.find("a"), "ra");
    recent.remember("c", "rc");
    EXPECT_EQ(recent.find("a"), nullptr);
    EXPECT_EQ(*recent.find("b"), "rb");
    EXPECT_EQ(*recent.find("c"), "rc");
    EXPECT_EQ(recent.size(), 2u);
    recent.remember("c", "rc2");  // remembering again updates, does not evict
    EXPECT_EQ(*recent.find("b"), "rb");
    EXPECT_EQ(*recent.find("c"), "rc2");
}

TEST(Backoff, DoublesToTheCapWithJitterAndResets) {
    using std::chrono::milliseconds;
    Backoff backoff(milliseconds(1000), milliseconds(60'000));
    const int64_t steps[] = {1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000};
    for (int64_t step : steps) {
        const auto d = backoff.next().count();
        EXPECT_GE(d, step * 3 / 4) << step;
        EXPECT_LE(d, step) << step;
    }
    backoff.reset();
    EXPECT_LE(backoff.next().count(), 1000);
}

}  // namespace
}  // namespace yuzu::agent
