// 50 simultaneous recalls of one approved ticket, repeated 20 times, against
// the real server: the gated tool runs exactly once per ticket — one
// management group, one consumed row, one success row — and every other
// recall is refused with -32003.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "approval_test_helpers.hpp"

namespace yuzu::testing::approvals {
namespace {

constexpr int kRounds = 20;
constexpr int kRecalls = 50;

TEST(ApprovalConcurrency, FiftySimultaneousRecallsRunTheToolExactlyOnce) {
    ApprovalFixture f;
    ASSERT_FALSE(enrol_and_verify(*f.client, f.reviewer).empty());

    // Mint and approve every ticket first, well inside the reviewer's
    // five-minute proof.
    std::vector<std::string> ids;
    for (int round = 0; round < kRounds; ++round) {
        const std::string id =
            f.mint("create_management_group", {{"name", "race-" + std::to_string(round)}});
        ASSERT_EQ(id.size(), 32u);
        auto approved = f.decide(f.reviewer.headers(), id);
        ASSERT_TRUE(approved);
        ASSERT_EQ(approved->status, 200) << approved->body;
        ids.push_back(id);
    }

    for (int round = 0; round < kRounds; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        const std::string name = "race-" + std::to_string(round);
        const std::string body =
            rpc_call("create_management_group", {{"name", name}, {"approval_id", ids[round]}})
                .dump();
        std::atomic<int> successes{0};
        std::atomic<int> refusals{0};
        std::atomic<int> other{0};
        std::atomic<int> ready{0};
        std::atomic<bool> go{false};
        std::vector<std::thread> threads;
        for (int i = 0; i < kRecalls; ++i) {
            threads.emplace_back([&] {
                httplib::Client c(f.server->base_url());
                c.set_read_timeout(120, 0);
                c.set_connection_timeout(30, 0);
                ready.fetch_add(1);
                while (!go.load()) std::this_thread::yield();
                auto res = c.Post("/mcp/v1/", mcp_headers(f.supervised), body, "application/json");
                if (!res || res->status != 200) {
                    other.fetch_add(1);
                    return;
                }
                const json r = json::parse(res->body, nullptr, false);
                if (r.contains("result")) {
                    successes.fetch_add(1);
                } else if (r["error"]["code"] == -32003) {
                    refusals.fetch_add(1);
                } else {
                    other.fetch_add(1);
                }
            });
        }
        while (ready.load() < kRecalls) std::this_thread::yield();
        go.store(true);
        for (auto& t : threads) t.join();

        EXPECT_EQ(successes.load(), 1);
        EXPECT_EQ(refusals.load(), kRecalls - 1);
        EXPECT_EQ(other.load(), 0);
        EXPECT_EQ(f.groups_named(name), 1u);
    }
    const auto rows = [&](const std::string& q) {
        return identity::audit_events(*f.client, f.admin_api, q + "&limit=500").size();
    };
    EXPECT_EQ(rows("action=mcp.create_management_group&result=success"),
              static_cast<size_t>(kRounds));
    EXPECT_EQ(rows("action=mcp.create_management_group&result=consumed"),
              static_cast<size_t>(kRounds));
}

}  // namespace
}  // namespace yuzu::testing::approvals
