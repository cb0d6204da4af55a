// The four agentic tools through the real pipeline on the whole catalogue:
// the posture cache and its audit detail, views that never mix, the
// classifier's and the playbook's limits, and summarize_working_set's
// "out of view reads as missing".
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "full_catalogue_fixture.hpp"
#include "yuzu/auth/management_group.hpp"
#include "yuzu/mcp/agentic/fleet_posture.hpp"
#include "yuzu/mcp/error_codes.hpp"

namespace yuzu::mcp::testing {
namespace {

class AgenticToolsTest : public FullCatalogue {
  protected:
    json full_ok(const auth::Principal& who, const std::string& tool, json args = json::object()) {
        auto out = call_full(who, tool, std::move(args));
        EXPECT_FALSE(out.error) << tool << ": " << (out.error ? out.error->message : "");
        if (!out.result) return json();
        EXPECT_EQ(json::parse((*out.result)["content"][0]["text"].get<std::string>()),
                  (*out.result)["structuredContent"]);
        return (*out.result)["structuredContent"];
    }

    // carol holds Viewer on a group with only `agent` in it.
    auth::Principal scoped_reader(const std::string& agent) {
        EXPECT_TRUE(identity->users().create_user("carol", kPassword, {}).ok());
        auth::NewManagementGroup spec;
        spec.name = "web";
        spec.created_by = "admin";
        auto group = identity->groups().create(spec);
        EXPECT_TRUE(group.ok()) << group.status().to_string();
        EXPECT_TRUE(identity->groups().add_member(group->id, agent).ok());
        EXPECT_TRUE(identity->groups().assign_role(group->id, "user", "carol", "Viewer").ok());
        return token_of("carol", "readonly");
    }

    std::string last_detail(const std::string& action) {
        auto rows = audit_rows(action);
        return rows.empty() ? "" : rows.back().detail;
    }

    const auth::Principal readonly = token_of("admin", "readonly");
};

TEST_F(AgenticToolsTest, PostureCountsTheFleetAndIsServedFromTheCacheWithinItsTtl) {
    enroll("web-01");
    enroll("web-02");
    json first = full_ok(readonly, "get_fleet_posture_fast", {{"ttl_seconds", 30}});
    EXPECT_EQ(first["agents"]["registered"], 2);
    EXPECT_EQ(first["agents"]["offline"],
              first["agents"]["registered"].get<int>() - first["agents"]["online"].get<int>());
    EXPECT_EQ(first["os_mix"]["linux"], 2);
    EXPECT_EQ(first["cache"], "miss");
    EXPECT_EQ(last_detail("mcp.get_fleet_posture_fast"), "cache_miss");
    // Nothing reported inventory yet: those facts are unavailable, with why.
    EXPECT_FALSE(first["reboot_pending"]["available"]);
    EXPECT_TRUE(first["partial"]);
    for (const auto& m : first["missing_sources"]) {
        EXPECT_TRUE(first["source_notes"].contains(m.get<std::string>())) << m;
    }

    clock.advance_ms(3'000);
    enroll("web-03");
    json hit = full_ok(readonly, "get_fleet_posture_fast", {{"ttl_seconds", 30}});
    EXPECT_EQ(hit["cache"], "hit");
    EXPECT_EQ(hit["generated_at"], first["generated_at"]);
    EXPECT_EQ(hit["data_age_seconds"], 3);
    EXPECT_EQ(hit["agents"]["registered"], 2);  // the cached reading
    EXPECT_EQ(last_detail("mcp.get_fleet_posture_fast"), "cache_hit age_seconds=3");

    // A caller that accepts nothing older than 5 s gets a fresh reading.
    clock.advance_ms(3'000);
    json fresh = full_ok(readonly, "get_fleet_posture_fast", {{"ttl_seconds", 5}});
    EXPECT_EQ(fresh["cache"], "miss");
    EXPECT_EQ(fresh["agents"]["registered"], 3);
    EXPECT_EQ(fresh["data_age_seconds"], 0);
}

TEST_F(AgenticToolsTest, PostureTtlOutsideItsRangeIsRefusedByTheSchema) {
    for (int ttl : {4, 301, -1}) {
        auto out = call_full(readonly, "get_fleet_posture_fast", {{"ttl_seconds", ttl}});
        ASSERT_TRUE(out.error) << ttl;
        EXPECT_EQ(out.error->code, kInvalidParams);
    }
}

TEST_F(AgenticToolsTest, AScopedCallerNeverSharesACachedPostureWithAFleetWideOne) {
    const std::string mine = enroll("web-01");
    enroll("db-01");
    const auth::Principal carol = scoped_reader(mine);
    json wide = full_ok(readonly, "get_fleet_posture_fast");
    EXPECT_EQ(wide["agents"]["registered"], 2);
    json narrow = full_ok(carol, "get_fleet_posture_fast");
    EXPECT_EQ(narrow["cache"], "miss");
    EXPECT_EQ(narrow["agents"]["registered"], 1);
    EXPECT_EQ(narrow["agents"]["devices_omitted"], 1);
    // Viewer holds Policy:Read on its group only: compliance over that view.
    EXPECT_TRUE(narrow["compliance"]["available"]);
}

TEST_F(AgenticToolsTest, PostureRecommendsOnlyToolsTheCallersTierReaches) {
    const std::string a = enroll("web-01");
    ASSERT_TRUE(fleet_->inventory()
                    .replace(a, {{a, "systemd_units", "ok", "",
                                  R"([{"unit":"orders.service","active":"failed","sub":"failed"}])",
                                  1'000, 0}})
                    .ok());
    json p = full_ok(readonly, "get_fleet_posture_fast");
    EXPECT_EQ(p["failed_services"]["affected"], 1);
    EXPECT_EQ(p["failed_services"]["first_affected"][0]["units"], json::array({"orders.service"}));
    bool points_at_agent = false;
    for (const auto& next : p["recommended_next_tools"]) {
        const ToolSpec* spec = full.tools.find(next["tool"]);
        ASSERT_NE(spec, nullptr) << next;
        EXPECT_TRUE(spec->annotations.read_only) << next;
        EXPECT_TRUE(tier_can_reach(*spec, "readonly")) << next;
        points_at_agent = points_at_agent || next["arguments"].value("agent_id", "") == a;
    }
    EXPECT_TRUE(points_at_agent) << p["recommended_next_tools"];
}

TEST(PostureCache, EqualViewsShareAKeyAndDifferentViewsNever) {
    using agentic::PostureCache;
    using agentic::PostureViews;
    PostureViews wide;
    PostureViews narrow;
    narrow.agents = std::set<std::string>{"a"};
    // Policy:Read held fleet-wide differs from not held at all.
    PostureViews policy;
    policy.policy = agentic::AgentView{};
    EXPECT_EQ(PostureCache::view_key(wide), PostureCache::view_key(PostureViews{}));
    EXPECT_NE(PostureCache::view_key(wide), PostureCache::view_key(narrow));
    EXPECT_NE(PostureCache::view_key(wide), PostureCache::view_key(policy));
    PostureViews ab;
    ab.agents = std::set<std::string>{"a", "b"};
    PostureViews a_b;
    a_b.agents = std::set<std::string>{"a,b"};
    EXPECT_NE(PostureCache::view_key(ab), PostureCache::view_key(a_b));
    EXPECT_EQ(PostureCache::view_key(wide).size(), 64u);
}

TEST_F(AgenticToolsTest, PostureCacheHoldsAtMostItsCapOfViewsAndDropsExpiredOnes) {
    agentic::PostureCache cache({fleet_.get(), compliance_.get()}, clock);
    for (size_t i = 0; i < agentic::kMaxPostureViews + 10; ++i) {
        agentic::PostureViews v;
        v.agents = std::set<std::string>{std::to_string(i)};
        EXPECT_FALSE(cache.read(v, 300).cache_hit);
        clock.advance_ms(1);
    }
    EXPECT_EQ(cache.size(), agentic::kMaxPostureViews);
    // The newest views survived; the oldest were dropped.
    agentic::PostureViews newest;
    newest.agents = std::set<std::string>{std::to_string(agentic::kMaxPostureViews + 9)};
    EXPECT_TRUE(cache.read(newest, 300).cache_hit);
    agentic::PostureViews oldest;
    oldest.agents = std::set<std::string>{"0"};
    EXPECT_FALSE(cache.read(oldest, 300).cache_hit);
    // Past the longest TTL every entry is dropped at the next miss.
    clock.advance_ms(int64_t{agentic::kMaxPostureTtlSeconds} * 1000);
    EXPECT_FALSE(cache.read(agentic::PostureViews{}, 300).cache_hit);
    EXPECT_EQ(cache.size(), 1u);
}

TEST_F(AgenticToolsTest, PostureCacheServesConcurrentReadersOfManyViews) {
    enroll("web-01");
    agentic::PostureCache cache({fleet_.get(), compliance_.get()}, clock);
    std::atomic<int> hits{0};
    std::atomic<int> wrong{0};
    std::vector<std::thread> readers;
    for (int t = 0; t < 4; ++t) {
        readers.emplace_back([&cache, &hits, &wrong, t] {
            for (int i = 0; i < 50; ++i) {
                agentic::PostureViews v;
                // Two threads share each view; every view keeps its own count.
                v.agents = std::set<std::string>{std::to_string((t / 2) * 100 + i % 5)};
                auto read = cache.read(v, 300);
                if (read.cache_hit) hits.fetch_add(1);
                // None of these views holds a real agent.
                if (read.posture->at("agents").at("registered") != 0) wrong.fetch_add(1);
            }
        });
    }
    for (auto& r : readers) r.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_LE(cache.size(), 10u);
    EXPECT_GT(hits.load(), 0);
}

TEST_F(AgenticToolsTest, ClassifierLimitCountsCharactersNotBytes) {
    std::string euros;
    for (int i = 0; i < 2048; ++i) euros += "\xE2\x82\xAC";
    json ok = full_ok(readonly, "classify_operational_question", {{"question", euros}});
    EXPECT_EQ(ok["classification"], "answerable_now");
    auto over = call_full(readonly, "classify_operational_question",
                          {{"question", std::string(2049, 'a')}});
    ASSERT_TRUE(over.error);
    EXPECT_EQ(over.error->code, kInvalidParams);
    auto empty = call_full(readonly, "classify_operational_question", {{"question", ""}});
    ASSERT_TRUE(empty.error);
    EXPECT_EQ(empty.error->code, kInvalidParams);
}

TEST_F(AgenticToolsTest, ClassifierRecommendsReadOnlyToolsAndSaysWhatADispatchDoesAtTheTier) {
    json buildx = full_ok(token_of("admin", "operator"), "classify_operational_question",
                          {{"question", "docker buildx fails on the runners"}});
    EXPECT_EQ(buildx["classification"], "answerable_with_live_dispatch");
    EXPECT_EQ(buildx["dispatch_at_your_tier"], "runs_at_once");
    for (const auto& next : buildx["recommended_next_tools"]) {
        EXPECT_NE(next["tool"], "execute_bundle");
        EXPECT_NE(next["tool"], "execute_instruction");
        EXPECT_TRUE(full.tools.find(next["tool"])->annotations.read_only);
    }
    // The playbook the question names is recommended.
    bool playbook = false;
    for (const auto& next : buildx["recommended_next_tools"]) {
        playbook = playbook || (next["tool"] == "get_incident_playbook" &&
                                next["arguments"]["scenario"] == "container_build_failure");
    }
    EXPECT_TRUE(playbook) << buildx["recommended_next_tools"];
    // A category is a plain word: "endpoint" names no playbook on its own.
    json plain = full_ok(readonly, "classify_operational_question",
                         {{"question", "how many endpoint agents are there"}});
    for (const auto& next : plain["recommended_next_tools"]) {
        EXPECT_NE(next["tool"], "get_incident_playbook") << plain["recommended_next_tools"];
    }
    json reboot = full_ok(token_of("admin", "supervised"), "classify_operational_question",
                          {{"question", "patch and reboot the web servers"}});
    EXPECT_EQ(reboot["classification"], "unsafe_without_approval");
    EXPECT_TRUE(reboot["approval_required_before_execution"]);
    EXPECT_EQ(reboot["dispatch_at_your_tier"], "needs_approval");
    EXPECT_EQ(full_ok(readonly, "classify_operational_question",
                      {{"question", "patch"}})["dispatch_at_your_tier"],
              "denied");
    // Advisory only: the schema has no knob that changes behaviour.
    EXPECT_FALSE(full.tools.find("classify_operational_question")
                     ->input_schema["properties"]
                     .contains("mode"));
}

TEST_F(AgenticToolsTest, PlaybookByAliasAndAnUnknownScenarioIsInvalidParamsAudited) {
    json pg = full_ok(readonly, "get_incident_playbook", {{"scenario", "postgres"}});
    EXPECT_EQ(pg["scenario"], "database_client_or_host_bottleneck");
    EXPECT_EQ(pg["category"], "database");
    EXPECT_TRUE(pg["requires_connector"]);
    EXPECT_EQ(pg["matched_by"], "alias");
    for (const auto& step : pg["steps"]) {
        ASSERT_NE(full.tools.find(step["tool"]), nullptr) << step;
    }
    auto unknown = call_full(readonly, "get_incident_playbook",
                             {{"scenario", "a\nb" + std::string(500, 'z')}});
    ASSERT_TRUE(unknown.error);
    EXPECT_EQ(unknown.error->code, kInvalidParams);
    EXPECT_EQ(unknown.error->message, "unknown playbook scenario");
    const auto rows = audit_rows("mcp.get_incident_playbook");
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(rows.back().result, audit::AuditResult::kFailure);
    // Caller text in the audit detail is bounded and has no raw line break.
    EXPECT_EQ(rows.back().detail.find('\n'), std::string::npos);
    EXPECT_LT(rows.back().detail.size(), 200u);
}

TEST_F(AgenticToolsTest, PlaybookStepsSayWhichOnesTheCallersTierCanCall) {
    json p = full_ok(readonly, "get_incident_playbook", {{"scenario", "java"}});
    bool saw_denied_dispatch = false;
    for (const auto& step : p["steps"]) {
        if (step["tool"] == "execute_instruction") {
            EXPECT_FALSE(step["available_at_your_tier"]);
            saw_denied_dispatch = true;
        }
    }
    EXPECT_TRUE(saw_denied_dispatch);
}

TEST_F(AgenticToolsTest, AnAgentOutsideTheViewReadsExactlyLikeAMissingOne) {
    const std::string mine = enroll("web-01");
    const std::string theirs = enroll("db-secret-host");
    const auth::Principal carol = scoped_reader(mine);
    json seen = full_ok(carol, "summarize_working_set", {{"kind", "agent"}, {"id", mine}});
    EXPECT_TRUE(seen["found"]);
    EXPECT_NE(seen["narrative"].get<std::string>().find("web-01"), std::string::npos);

    json hidden = full_ok(carol, "summarize_working_set", {{"kind", "agent"}, {"id", theirs}});
    json missing = full_ok(carol, "summarize_working_set",
                           {{"kind", "agent"}, {"id", "0123456789abcdef0123456789abcdef"}});
    EXPECT_FALSE(hidden["found"]);
    EXPECT_EQ(hidden.dump().find("db-secret-host"), std::string::npos);
    EXPECT_EQ(hidden.dump().find("linux"), std::string::npos);
    // The same answer but for the id echoed back.
    std::string h = hidden.dump();
    const std::string m = missing.dump();
    for (size_t at = h.find(theirs); at != std::string::npos; at = h.find(theirs)) {
        h.replace(at, theirs.size(), "0123456789abcdef0123456789abcdef");
    }
    EXPECT_EQ(h, m);
}

TEST_F(AgenticToolsTest, ExecutionSummaryNeedsExecutionReadBeforeTheTrackerIsRead) {
    enroll("web-01");
    // vic holds Viewer on a group with no agent: Execution:Read on nothing.
    ASSERT_TRUE(identity->users().create_user("vic", kPassword, {}).ok());
    auth::NewManagementGroup spec;
    spec.name = "empty";
    spec.created_by = "admin";
    auto group = identity->groups().create(spec);
    ASSERT_TRUE(group.ok()) << group.status().to_string();
    ASSERT_TRUE(identity->groups().assign_role(group->id, "user", "vic", "Viewer").ok());
    const auth::Principal vic = token_of("vic", "readonly");
    // Like the posture, a caller that sees no agent is refused outright,
    // whatever the kind: not told how many agents it cannot see.
    for (const json& args : {json::object(), json{{"kind", "execution"},
                                                  {"id", "00000000000000000000000000000000"}}}) {
        auto denied = call_full(vic, "summarize_working_set", args);
        ASSERT_TRUE(denied.error) << args;
        EXPECT_EQ(denied.error->code, kPermissionDenied);
    }
    auto no_id = call_full(readonly, "summarize_working_set", {{"kind", "agent"}});
    ASSERT_TRUE(no_id.error);
    EXPECT_EQ(no_id.error->code, kInvalidParams);
}

TEST_F(AgenticToolsTest, AnExecutionOutsideTheViewReadsExactlyLikeAMissingOne) {
    const std::string mine = enroll("web-01");
    const std::string theirs = enroll("db-01");
    json elsewhere = ok(operator_token, "execute_instruction",
                        {{"plugin", "os"}, {"action", "info"}, {"agent_ids", {theirs}}});
    const std::string id = elsewhere["execution_id"];
    const auth::Principal carol = scoped_reader(mine);
    json hidden = full_ok(carol, "summarize_working_set", {{"kind", "execution"}, {"id", id}});
    json missing = full_ok(carol, "summarize_working_set",
                           {{"kind", "execution"}, {"id", "0123456789abcdef0123456789abcdef"}});
    EXPECT_FALSE(hidden["found"]);
    std::string h = hidden.dump();
    for (size_t at = h.find(id); at != std::string::npos; at = h.find(id)) {
        h.replace(at, id.size(), "0123456789abcdef0123456789abcdef");
    }
    EXPECT_EQ(h, missing.dump());
    // The admin sees it.
    EXPECT_TRUE(
        full_ok(readonly, "summarize_working_set", {{"kind", "execution"}, {"id", id}})["found"]);
}

TEST_F(AgenticToolsTest, PostureAgesAreSteadyTimeSoAWallClockStepChangesNothing) {
    enroll("web-01");
    json first = full_ok(readonly, "get_fleet_posture_fast", {{"ttl_seconds", 60}});
    EXPECT_EQ(first["cache"], "miss");
    clock.advance_ms(2'000);
    clock.set_ms(clock.now_ms() - 3'600'000);  // the wall clock steps back an hour
    json hit = full_ok(readonly, "get_fleet_posture_fast", {{"ttl_seconds", 60}});
    EXPECT_EQ(hit["cache"], "hit");
    EXPECT_EQ(hit["data_age_seconds"], 2);
    clock.set_ms(clock.now_ms() + 7'200'000);  // and forward two
    EXPECT_EQ(full_ok(readonly, "get_fleet_posture_fast", {{"ttl_seconds", 60}})["cache"], "hit");
}

TEST_F(AgenticToolsTest, HostileArgumentTypesAreInvalidParamsNeverAnInternalError) {
    for (const auto& [tool, args] : std::vector<std::pair<std::string, json>>{
             {"get_incident_playbook", {{"scenario", 5}}},
             {"get_incident_playbook", {{"scenario", json::array({"postgres"})}}},
             {"classify_operational_question", {{"question", json::object()}}},
             {"summarize_working_set", {{"kind", 1}}},
             {"summarize_working_set", {{"kind", "agent"}, {"id", 7}}},
             {"get_fleet_posture_fast", {{"ttl_seconds", "30"}}}}) {
        SCOPED_TRACE(tool + " " + args.dump());
        auto out = call_full(readonly, tool, args);
        ASSERT_TRUE(out.error);
        EXPECT_EQ(out.error->code, kInvalidParams);
        EXPECT_NE(audit_log.events().back().result, audit::AuditResult::kError);
    }
}

TEST_F(AgenticToolsTest, ExecutionSummaryNarratesTheTallies) {
    const std::string a = enroll("web-01");
    json dispatched =
        ok(operator_token, "execute_instruction", {{"plugin", "os"}, {"action", "info"}});
    answer_all(a, "success", R"({"rows":[]})");
    json s = full_ok(readonly, "summarize_working_set",
                     {{"kind", "execution"}, {"id", dispatched["execution_id"]}});
    EXPECT_TRUE(s["found"]);
    EXPECT_EQ(s["facts"]["agents_responded"], 1);
    EXPECT_NE(s["narrative"].get<std::string>().find("os.info"), std::string::npos);
    for (const auto& l : s["resource_links"]) {
        EXPECT_NE(full.resources.find(l["uri"]), nullptr) << l;
    }
}

}  // namespace
}  // namespace yuzu::mcp::testing
