// The evaluation scheduler: a pass at start, then one per interval; stop()
// returns promptly, also while the thread waits out a long interval.
#include "yuzu/compliance/scheduler.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "compliance_fixture.hpp"

namespace yuzu::compliance::testing {
namespace {

using namespace std::chrono_literals;

// Polls `done` for up to 10 s.
template <typename Fn>
bool eventually(Fn done) {
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
        if (done()) return true;
        std::this_thread::sleep_for(5ms);
    }
    return done();
}

TEST_F(ComplianceTest, SchedulerEvaluatesAtStartAndStopsPromptly) {
    const std::string a = enroll("web-01");
    report(a, "reboot_pending", kNoReboot);
    EvaluationScheduler& s = compliance_->scheduler();
    ASSERT_TRUE(s.start(1h).ok());
    EXPECT_TRUE(s.running());
    ASSERT_TRUE(eventually([&] { return s.passes() >= 1; }));
    EXPECT_EQ(s.last_pass_at_ms(), clock_.now_ms());
    EXPECT_EQ(results_of(seeded(kNoRebootPolicy).id)[a].status, CheckStatus::kCompliant);

    const auto before = std::chrono::steady_clock::now();
    s.stop();
    EXPECT_LT(std::chrono::steady_clock::now() - before, 2s) << "stop waits out no interval";
    EXPECT_FALSE(s.running());
    s.stop();  // idempotent
}

TEST_F(ComplianceTest, SchedulerRepeatsEveryInterval) {
    enroll("web-01");
    EvaluationScheduler& s = compliance_->scheduler();
    ASSERT_TRUE(s.start(10ms).ok());
    EXPECT_EQ(s.start(10ms).code(), StatusCode::kFailedPrecondition);
    ASSERT_TRUE(eventually([&] { return s.passes() >= 3; }));
    s.stop();
    const uint64_t after_stop = s.passes();
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(s.passes(), after_stop);
    EXPECT_EQ(s.failed_passes(), 0u);

    ASSERT_TRUE(s.start(1h).ok()) << "restartable after stop";
    ASSERT_TRUE(eventually([&] { return s.passes() > after_stop; }));
    s.stop();
}

TEST_F(ComplianceTest, SchedulerRefusesANonPositiveInterval) {
    EXPECT_EQ(compliance_->scheduler().start(0ms).code(), StatusCode::kInvalidArgument);
    EXPECT_FALSE(compliance_->scheduler().running());
}

TEST_F(ComplianceTest, ClosingTheServiceStopsTheScheduler) {
    ASSERT_TRUE(compliance_->scheduler().start(1h).ok());
    const auto before = std::chrono::steady_clock::now();
    compliance_.reset();
    EXPECT_LT(std::chrono::steady_clock::now() - before, 2s);
}

}  // namespace
}  // namespace yuzu::compliance::testing
