#include "yuzu/fleet/enrollment.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "fleet_fixture.hpp"
#include "yuzu/auth/token_codec.hpp"

namespace yuzu::fleet {
namespace {

constexpr std::string_view kRefusal = "enrollment token is invalid, expired or used up";

void expect_refused(const Result<EnrolledAgent>& r) {
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnauthenticated);
    EXPECT_EQ(r.status().message(), kRefusal);
}

using EnrollmentTest = FleetTest;

TEST_F(EnrollmentTest, CreateTokenShowsSecretOnceAndListsMetadata) {
    auto issued = make_token(5, 3600);
    EXPECT_TRUE(std::regex_match(issued.info.id, std::regex("[0-9a-f]{24}")));
    EXPECT_TRUE(auth::looks_like_api_token(issued.token));
    EXPECT_EQ(issued.info.created_by, "admin");
    EXPECT_EQ(issued.info.created_at_ms, clock_.now_ms());
    EXPECT_EQ(issued.info.expires_at_ms, clock_.now_ms() + 3600 * 1000);
    EXPECT_EQ(issued.info.max_uses, 5);

    auto listed = fleet_->enrollment().list_tokens();
    ASSERT_TRUE(listed.ok());
    ASSERT_EQ(listed->size(), 1u);
    EXPECT_EQ(listed->front().id, issued.info.id);
    EXPECT_EQ(listed->front().note, "test batch");
    EXPECT_EQ(listed->front().uses, 0);
    EXPECT_FALSE(listed->front().revoked);
}

TEST_F(EnrollmentTest, OnlyTheHashOfASecretIsStored) {
    auto issued = make_token();
    auto agent = fleet_->enrollment().enroll(request(issued.token, "web-01"));
    ASSERT_TRUE(agent.ok());
    fleet_.reset();  // close the file so every page is on disk
    std::string bytes;
    for (const char* suffix : {"", "-wal"}) {
        std::FILE* f = std::fopen((options().data_dir + "/fleet.db" + suffix).c_str(), "rb");
        if (f == nullptr) continue;
        char buf[4096];
        size_t n = 0;
        while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
        std::fclose(f);
    }
    ASSERT_FALSE(bytes.empty());
    EXPECT_EQ(bytes.find(issued.token), std::string::npos);
    EXPECT_EQ(bytes.find(agent->device_token), std::string::npos);
    EXPECT_NE(bytes.find(auth::sha256_hex(agent->device_token)), std::string::npos);
}

TEST_F(EnrollmentTest, CreateTokenRejectsBadSpecs) {
    NewEnrollmentToken spec;
    spec.created_by = "admin";
    spec.ttl_s = 0;
    EXPECT_EQ(fleet_->enrollment().create_token(spec).status().code(),
              StatusCode::kInvalidArgument);
    spec.ttl_s = kMaxEnrollmentTtlS + 1;
    EXPECT_EQ(fleet_->enrollment().create_token(spec).status().code(),
              StatusCode::kInvalidArgument);
    spec.ttl_s = 60;
    spec.max_uses = -1;
    EXPECT_EQ(fleet_->enrollment().create_token(spec).status().code(),
              StatusCode::kInvalidArgument);
    spec.max_uses = 100'001;
    EXPECT_EQ(fleet_->enrollment().create_token(spec).status().code(),
              StatusCode::kInvalidArgument);
    spec.max_uses = 0;
    spec.note = std::string(257, 'n');
    EXPECT_EQ(fleet_->enrollment().create_token(spec).status().code(),
              StatusCode::kInvalidArgument);
    spec.note = "ok";
    spec.created_by = "";
    EXPECT_EQ(fleet_->enrollment().create_token(spec).status().code(),
              StatusCode::kInvalidArgument);
    EXPECT_TRUE(fleet_->enrollment().list_tokens()->empty());
}

TEST_F(EnrollmentTest, EnrollRegistersAnOnlineAgentWithADeviceToken) {
    auto token = make_token(2);
    auto enrolled = fleet_->enrollment().enroll(request(token.token, "web-01"));
    ASSERT_TRUE(enrolled.ok()) << enrolled.status().to_string();
    EXPECT_TRUE(std::regex_match(enrolled->agent_id, std::regex("[0-9a-f]{32}")));
    EXPECT_TRUE(auth::looks_like_api_token(enrolled->device_token));
    EXPECT_NE(enrolled->device_token, token.token);

    auto record = fleet_->registry().get(enrolled->agent_id);
    ASSERT_TRUE(record.ok()) << record.status().to_string();
    EXPECT_EQ(record->hostname, "web-01");
    EXPECT_EQ(record->os, "linux");
    EXPECT_EQ(record->os_version, "Debian GNU/Linux 12 (bookworm)");
    EXPECT_EQ(record->arch, "x86_64");
    EXPECT_EQ(record->version, "0.1.0");
    EXPECT_EQ(record->enrolled_at_ms, clock_.now_ms());
    EXPECT_EQ(record->first_seen_ms, clock_.now_ms());
    EXPECT_EQ(record->last_seen_ms, clock_.now_ms());
    EXPECT_TRUE(record->online);
    EXPECT_FALSE(record->device_revoked);
    EXPECT_FALSE(record->perf.has_value());
    EXPECT_EQ(record->uptime_s, -1);

    auto who = fleet_->enrollment().authenticate_device(enrolled->device_token);
    ASSERT_TRUE(who.ok()) << who.status().to_string();
    EXPECT_EQ(*who, enrolled->agent_id);
    EXPECT_EQ(fleet_->enrollment().list_tokens()->front().uses, 1);
}

TEST_F(EnrollmentTest, UnknownTokenIsRefused) {
    make_token();
    auto fake = auth::generate_api_token();
    ASSERT_TRUE(fake.ok());
    expect_refused(fleet_->enrollment().enroll(request(*fake, "web-01")));
    expect_refused(fleet_->enrollment().enroll(request("not-a-token", "web-01")));
    EXPECT_EQ(fleet_->registry().total_count(), 0u);
}

TEST_F(EnrollmentTest, ExpiredTokenIsRefused) {
    auto token = make_token(0, 60);
    clock_.advance_ms(59'999);
    ASSERT_TRUE(fleet_->enrollment().enroll(request(token.token, "web-01")).ok());
    clock_.advance_ms(1);
    expect_refused(fleet_->enrollment().enroll(request(token.token, "web-02")));
    EXPECT_EQ(fleet_->registry().total_count(), 1u);
}

TEST_F(EnrollmentTest, RevokedTokenIsRefused) {
    auto token = make_token();
    ASSERT_TRUE(fleet_->enrollment().revoke_token(token.info.id).ok());
    expect_refused(fleet_->enrollment().enroll(request(token.token, "web-01")));
    EXPECT_TRUE(fleet_->enrollment().list_tokens()->front().revoked);
    // Revoking twice is harmless; an unknown id is NotFound.
    EXPECT_TRUE(fleet_->enrollment().revoke_token(token.info.id).ok());
    EXPECT_EQ(fleet_->enrollment().revoke_token("0123456789abcdef01234567").code(),
              StatusCode::kNotFound);
}

TEST_F(EnrollmentTest, UsedUpTokenIsRefused) {
    auto token = make_token(2);
    ASSERT_TRUE(fleet_->enrollment().enroll(request(token.token, "web-01")).ok());
    ASSERT_TRUE(fleet_->enrollment().enroll(request(token.token, "web-02")).ok());
    expect_refused(fleet_->enrollment().enroll(request(token.token, "web-03")));
    EXPECT_EQ(fleet_->enrollment().list_tokens()->front().uses, 2);
    EXPECT_EQ(fleet_->registry().total_count(), 2u);
}

TEST_F(EnrollmentTest, ConcurrentEnrollmentsNeverExceedMaxUses) {
    auto token = make_token(3);
    std::atomic<int> enrolled{0};
    std::atomic<int> refused{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; ++i) {
        threads.emplace_back([&, i] {
            auto r = fleet_->enrollment().enroll(request(token.token, "vm-" + std::to_string(i)));
            if (r.ok()) {
                ++enrolled;
            } else if (r.status().code() == StatusCode::kUnauthenticated) {
                ++refused;
            }
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(enrolled.load(), 3);
    EXPECT_EQ(refused.load(), 5);
    EXPECT_EQ(fleet_->registry().total_count(), 3u);
    EXPECT_EQ(fleet_->enrollment().list_tokens()->front().uses, 3);
}

TEST_F(EnrollmentTest, UnlimitedTokenEnrollsUntilExpiry) {
    auto token = make_token(0, 3600);
    for (int i = 0; i < 5; ++i) {
        ASSERT_TRUE(
            fleet_->enrollment().enroll(request(token.token, "vm-" + std::to_string(i))).ok());
    }
    EXPECT_EQ(fleet_->enrollment().list_tokens()->front().uses, 5);
}

TEST_F(EnrollmentTest, BadFieldsNameTheFieldAndUseNothing) {
    auto token = make_token(1);
    struct Case {
        const char* field;
        void (*spoil)(EnrollRequest&);
    };
    const Case cases[] = {
        {"hostname", [](EnrollRequest& r) { r.hostname = ""; }},
        {"hostname", [](EnrollRequest& r) { r.hostname = std::string(254, 'h'); }},
        {"hostname", [](EnrollRequest& r) { r.hostname = "web\n01"; }},
        {"hostname", [](EnrollRequest& r) { r.hostname = "web 01"; }},
        {"hostname", [](EnrollRequest& r) { r.hostname = "web\xff"; }},
        {"os", [](EnrollRequest& r) { r.os = ""; }},
        {"os", [](EnrollRequest& r) { r.os = std::string(65, 'o'); }},
        {"os_version", [](EnrollRequest& r) { r.os_version = "12\x1b[31m"; }},
        {"arch", [](EnrollRequest& r) { r.arch = ""; }},
        {"agent_version", [](EnrollRequest& r) { r.agent_version = "0.1\x7f"; }},
        {"agent_version", [](EnrollRequest& r) { r.agent_version = ""; }},
    };
    for (const Case& c : cases) {
        EnrollRequest r = request(token.token, "web-01");
        c.spoil(r);
        auto result = fleet_->enrollment().enroll(r);
        ASSERT_FALSE(result.ok()) << c.field;
        EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << c.field;
        EXPECT_EQ(result.status().message().rfind(c.field, 0), 0u)
            << c.field << ": " << result.status().message();
    }
    // None of the refused attempts used up the single-use token.
    EXPECT_EQ(fleet_->enrollment().list_tokens()->front().uses, 0);
    EXPECT_TRUE(fleet_->enrollment().enroll(request(token.token, "web-01")).ok());
}

TEST_F(EnrollmentTest, RevokedDeviceIsRefusedOnTheVeryNextCall) {
    auto a = enroll("web-01");
    auto b = enroll("web-02");
    // Fill the cache first.
    ASSERT_TRUE(fleet_->enrollment().authenticate_device(a.device_token).ok());
    ASSERT_TRUE(fleet_->enrollment().authenticate_device(b.device_token).ok());

    ASSERT_TRUE(fleet_->enrollment().revoke_device(a.agent_id).ok());
    auto refused = fleet_->enrollment().authenticate_device(a.device_token);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kUnauthenticated);
    // Other agents are untouched, and the registry shows the revocation.
    EXPECT_TRUE(fleet_->enrollment().authenticate_device(b.device_token).ok());
    EXPECT_TRUE(fleet_->registry().get(a.agent_id)->device_revoked);
    EXPECT_FALSE(fleet_->registry().get(b.agent_id)->device_revoked);
    // Still refused after the cache lifetime and after a restart.
    clock_.advance_ms(120'000);
    EXPECT_FALSE(fleet_->enrollment().authenticate_device(a.device_token).ok());
    reopen();
    EXPECT_FALSE(fleet_->enrollment().authenticate_device(a.device_token).ok());
    EXPECT_TRUE(fleet_->enrollment().revoke_device(a.agent_id).ok());
}

TEST_F(EnrollmentTest, DeviceAuthRefusesUnknownAndMalformedTokens) {
    enroll("web-01");
    auto fake = auth::generate_api_token();
    ASSERT_TRUE(fake.ok());
    for (const std::string& t :
         {*fake, std::string(), std::string("yuzu_short"), std::string(4096, 'x')}) {
        auto r = fleet_->enrollment().authenticate_device(t);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.status().code(), StatusCode::kUnauthenticated);
    }
    EXPECT_EQ(fleet_->enrollment().revoke_device("0123456789abcdef0123456789abcdef").code(),
              StatusCode::kNotFound);
}

TEST_F(EnrollmentTest, DeviceTokensSurviveARestart) {
    auto a = enroll("web-01");
    reopen();
    auto who = fleet_->enrollment().authenticate_device(a.device_token);
    ASSERT_TRUE(who.ok()) << who.status().to_string();
    EXPECT_EQ(*who, a.agent_id);
}

}  // namespace
}  // namespace yuzu::fleet
