// Rows 7, 10, 14 and 15 of the hardening table: password guessing. Five
// wrong passwords lock an account (tokens keep working; the CLI unlocks); a
// flood from one address is throttled with 429 and Retry-After without
// slowing the API; a foreign Origin cannot log in; and a locked account, an
// unknown name and a wrong password answer alike, in bytes and in time.
//
// Each attempt whose answer is under test comes from a loopback address of
// its own (peer()), so the per-address login throttle (10 attempts, then one
// per 3 s) never answers in place of the rule being tested.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "hostile/hostile_fixture.hpp"
#include "hostile/hostile_support.hpp"

namespace yuzu::testing::hostile {
namespace {

using nlohmann::json;

TEST_F(Hostile, Row07FiveWrongLoginsLockTheAdminUntilTheCliUnlocks) {
    ASSERT_TRUE(start());
    for (int i = 1; i <= 5; ++i) {
        const Exchange ex =
            roundtrip(port(), login_request("admin", "wrong-password-" + std::to_string(i)),
                      milliseconds(10000), peer(7, i));
        ASSERT_TRUE(ex.response) << "attempt " << i << ": " << ex.error;
        EXPECT_NE(ex.response->status, 200) << "attempt " << i;
        EXPECT_NE(ex.response->status, 429) << "attempt " << i << " was throttled, not judged";
        EXPECT_FALSE(sets_session_cookie(*ex.response)) << "attempt " << i;
    }
    // The sixth, with the right password, is refused: the account is locked.
    const Exchange sixth = roundtrip(port(), login_request("admin", identity::kAdminPassword),
                                     milliseconds(10000), peer(7, 6));
    ASSERT_TRUE(sixth.response) << sixth.error;
    EXPECT_NE(sixth.response->status, 200) << describe(sixth.response);
    EXPECT_NE(sixth.response->status, 429) << describe(sixth.response);
    EXPECT_FALSE(sets_session_cookie(*sixth.response));

    // The admin's API token keeps working while the account is locked.
    const Exchange me =
        roundtrip(port(), http_request("GET", "/api/v1/me", port(), json_headers(admin_token_)));
    ASSERT_TRUE(me.response) << me.error;
    EXPECT_EQ(me.response->status, 200) << describe(me.response);
    const json who = json::parse(me.response->body, nullptr, false);
    EXPECT_EQ(who.is_object() ? who.value("username", "") : "", "admin") << describe(me.response);

    // `yuzu-server user unlock admin` beside the running server.
    std::string out;
    EXPECT_EQ(run_command({bin_path("yuzu-server"), "user", "unlock", "admin", "--data-dir",
                           server().data_dir()},
                          &out),
              0)
        << out;
    const Exchange after = roundtrip(port(), login_request("admin", identity::kAdminPassword),
                                     milliseconds(10000), peer(7, 7));
    ASSERT_TRUE(after.response) << after.error;
    EXPECT_EQ(after.response->status, 200) << describe(after.response);
    EXPECT_TRUE(sets_session_cookie(*after.response));
}

TEST_F(Hostile, Row10ALoginFloodIsThrottledAndUnknownNamesLockLikeRealOnes) {
    constexpr int kFlooders = 32;
    ASSERT_TRUE(start());
    ASSERT_NO_FATAL_FAILURE(identity::create_user(*client_, admin_token_, "dave",
                                                  "dave-long-password-1", {"Operator"}));
    LivenessProbe probe(port());

    // 32 flooders from one address, each at least 4 attempts and on until
    // the latency sample below is taken (20 s at most, for a server that
    // does not throttle and so answers slowly).
    const int p = port();
    const auto flood_deadline = Clock::now() + std::chrono::seconds(20);
    const std::string flooder = peer(10, 1);
    std::atomic<bool> stop{false};
    std::atomic<int> attempts{0};
    std::atomic<int> throttled{0};
    std::vector<std::thread> flood;
    for (int i = 0; i < kFlooders; ++i) {
        flood.emplace_back([&, i] {
            const std::string user = "flood-" + std::to_string(i);
            for (int n = 0; n < 100 && (n < 4 || !stop.load()) && Clock::now() < flood_deadline;
                 ++n) {
                const HeaderList h = json_headers();
                const std::string body =
                    json{{"username", user}, {"password", "guess-" + std::to_string(n)}}.dump();
                const Exchange ex = roundtrip(p, http_request("POST", "/login", p, h, body),
                                              milliseconds(10000), flooder);
                ++attempts;
                if (ex.response && ex.response->status == 429) ++throttled;
            }
        });
    }
    EXPECT_TRUE(eventually([&] { return attempts.load() >= kFlooders; }, milliseconds(15000)));
    // 20 calls, within 10 s at most so a starved server fails fast.
    std::vector<double> list_ms;
    const auto measure_until = Clock::now() + std::chrono::seconds(10);
    for (int i = 0; i < 20 && Clock::now() < measure_until; ++i) {
        const Exchange ex =
            roundtrip(p, mcp_request(kToolsList, readonly_token_), milliseconds(2000));
        EXPECT_TRUE(ex.response && ex.response->status == 200) << describe(ex.response) << ex.error;
        list_ms.push_back(ms(ex.elapsed));
    }
    EXPECT_EQ(list_ms.size(), 20u) << "tools/list too slow to call 20 times in 10 s";
    stop = true;
    for (auto& t : flood) t.join();
    report("flood_attempts", attempts.load(), "");
    report("flood_throttled", throttled.load(), "");
    report("tools_list_p50_ms", median(list_ms), "ms");
    report("tools_list_max_ms", *std::max_element(list_ms.begin(), list_ms.end()), "ms");
    EXPECT_LT(median(list_ms), 50.0 * kSanitizerTimeFactor)
        << "tools/list during a 32-way login flood";
    EXPECT_GT(throttled.load(), 0);

    // After the burst the flooding address is told to wait.
    const Exchange after =
        roundtrip(p, login_request("flood-check", "guess"), milliseconds(10000), flooder);
    ASSERT_TRUE(after.response) << after.error;
    EXPECT_EQ(after.response->status, 429) << describe(after.response);
    EXPECT_FALSE(after.response->header("Retry-After").empty());
    expect_stayed_up(probe, "a 32-way login flood");

    // An unknown name answers, attempt by attempt, exactly as a real user
    // does while five failures lock it.
    for (int n = 1; n <= 6; ++n) {
        const std::string password = "wrong-" + std::to_string(n);
        const Exchange real =
            roundtrip(p, login_request("dave", password), milliseconds(10000), peer(11, n));
        const Exchange unknown = roundtrip(p, login_request("nobody-like-dave", password),
                                           milliseconds(10000), peer(12, n));
        ASSERT_TRUE(real.response && unknown.response) << real.error << " / " << unknown.error;
        EXPECT_NE(real.response->status, 429) << "attempt " << n << " was throttled, not judged";
        EXPECT_EQ(real.response->status, unknown.response->status) << "attempt " << n;
        EXPECT_EQ(comparable_body(*real.response), comparable_body(*unknown.response))
            << "attempt " << n;
    }
    // dave is locked by now: even the right password is refused.
    const Exchange locked = roundtrip(p, login_request("dave", "dave-long-password-1"),
                                      milliseconds(10000), peer(11, 7));
    ASSERT_TRUE(locked.response) << locked.error;
    EXPECT_NE(locked.response->status, 200) << describe(locked.response);
}

TEST_F(Hostile, Row14ALoginFromAForeignOriginIs403WithoutACookie) {
    ASSERT_TRUE(start());
    const Exchange evil = roundtrip(
        port(),
        login_request("admin", identity::kAdminPassword, {{"Origin", "http://evil.example"}}),
        milliseconds(10000), peer(14, 1));
    ASSERT_TRUE(evil.response) << evil.error;
    EXPECT_EQ(evil.response->status, 403) << describe(evil.response);
    EXPECT_TRUE(evil.response->header_values("Set-Cookie").empty()) << describe(evil.response);

    // The server's own origin may.
    const Exchange own =
        roundtrip(port(),
                  login_request("admin", identity::kAdminPassword,
                                {{"Origin", "http://127.0.0.1:" + std::to_string(port())}}),
                  milliseconds(10000), peer(14, 2));
    ASSERT_TRUE(own.response) << own.error;
    EXPECT_EQ(own.response->status, 200) << describe(own.response);
    EXPECT_TRUE(sets_session_cookie(*own.response));
}

TEST_F(Hostile, Row15LockedUnknownAndWrongPasswordAnswerAlikeInBytesAndTime) {
    constexpr int kSamples = 5;
    ASSERT_TRUE(start());
    ASSERT_NO_FATAL_FAILURE(identity::create_user(*client_, admin_token_, "erin",
                                                  "erin-long-password-1", {"Operator"}));
    for (int i = 1; i <= kSamples; ++i) {
        // One wrong password each, so no sample is a locking attempt.
        ASSERT_NO_FATAL_FAILURE(identity::create_user(*client_, admin_token_,
                                                      "frank" + std::to_string(i),
                                                      "frank-long-password-1", {"Operator"}));
    }
    for (int i = 1; i <= 5; ++i) {
        const Exchange ex = roundtrip(port(), login_request("erin", "lock-it-" + std::to_string(i)),
                                      milliseconds(10000), peer(15, i));
        ASSERT_TRUE(ex.response) << ex.error;
    }

    struct Sample {
        std::string kind;
        int status;
        std::string body;
        double elapsed_ms;
    };
    std::vector<Sample> samples;
    std::vector<double> locked_ms;
    std::vector<double> unknown_ms;
    std::vector<double> wrong_ms;
    const auto take = [&](const std::string& kind, const std::string& user, const std::string& from,
                          std::vector<double>& times) {
        const Exchange ex =
            roundtrip(port(), login_request(user, "not-the-password"), milliseconds(10000), from);
        ASSERT_TRUE(ex.response) << kind << ": " << ex.error;
        EXPECT_NE(ex.response->status, 429) << kind << " was throttled, not judged";
        samples.push_back(
            {kind, ex.response->status, comparable_body(*ex.response), ms(ex.elapsed)});
        times.push_back(ms(ex.elapsed));
    };
    // Interleaved, so a slow moment of the machine hits every kind alike.
    for (int i = 1; i <= kSamples; ++i) {
        ASSERT_NO_FATAL_FAILURE(take("locked account", "erin", peer(16, i), locked_ms));
        ASSERT_NO_FATAL_FAILURE(
            take("unknown user", "nobody-" + std::to_string(i), peer(17, i), unknown_ms));
        ASSERT_NO_FATAL_FAILURE(
            take("wrong password", "frank" + std::to_string(i), peer(18, i), wrong_ms));
    }
    for (const Sample& s : samples) {
        EXPECT_NE(s.status, 200) << s.kind;
        EXPECT_EQ(s.status, samples.front().status) << s.kind << " vs " << samples.front().kind;
        EXPECT_EQ(s.body, samples.front().body) << s.kind << " vs " << samples.front().kind;
    }
    const double locked = median(locked_ms);
    const double unknown = median(unknown_ms);
    const double wrong = median(wrong_ms);
    report("locked_median_ms", locked, "ms");
    report("unknown_median_ms", unknown, "ms");
    report("wrong_password_median_ms", wrong, "ms");
    const double fastest = std::min({locked, unknown, wrong});
    const double slowest = std::max({locked, unknown, wrong});
    ASSERT_GT(fastest, 0);
    report("timing_ratio", slowest / fastest, "x");
    EXPECT_LT(slowest / fastest, 3.0) << "medians: locked " << locked << " ms, unknown " << unknown
                                      << " ms, wrong password " << wrong << " ms";
}

}  // namespace
}  // namespace yuzu::testing::hostile
