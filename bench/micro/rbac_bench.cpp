// Step 6 of a tools/call: Rbac::check() for a fleet-wide permission. Roles
// are re-read from auth.db on every call (so a revoked role bites at once),
// so this is one SQLite read per call; allowed, denied and unknown users.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "bench_support.hpp"
#include "yuzu/auth/management_group.hpp"
#include "yuzu/auth/rbac.hpp"
#include "yuzu/auth/roles.hpp"
#include "yuzu/auth/user_store.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::bench {
namespace {

using auth::Operation;
using auth::Securable;

// auth.db with an Operator ("olga") and a Viewer ("victor").
struct RbacFixture {
    TempDir dir;
    ManualClock clock;
    std::unique_ptr<store::Database> db;
    std::unique_ptr<auth::UserStore> users;
    std::unique_ptr<auth::ManagementGroupStore> groups;
    std::unique_ptr<auth::Rbac> rbac;

    Status open() {
        if (!dir.ok()) return Status::Internal("cannot create a temp dir for auth.db");
        auto opened = open_auth_db(dir.str(), clock);
        if (!opened.ok()) return opened.status();
        db = std::move(opened).value();
        auth::UserStoreOptions options;
        options.password_log_n = 10;  // set-up speed only; check() never hashes
        users = std::make_unique<auth::UserStore>(*db, clock, options);
        groups = std::make_unique<auth::ManagementGroupStore>(*db, clock);
        rbac = std::make_unique<auth::Rbac>(*db, *groups, clock);
        YUZU_RETURN_IF_ERROR(
            users->create_user("olga", "olga's long password", {std::string(auth::kRoleOperator)}));
        return users->create_user("victor", "victor's long password",
                                  {std::string(auth::kRoleViewer)});
    }
};

// `user` asking for `p`; the answer must be `expected` before timing starts.
void run_check(benchmark::State& state, const std::string& user, auth::Permission p,
               bool expected) {
    RbacFixture f;
    if (Status s = f.open(); !s.ok()) {
        state.SkipWithError(s.to_string().c_str());
        return;
    }
    auto first = f.rbac->check(user, p);
    if (!first.ok()) {
        state.SkipWithError(first.status().to_string().c_str());
        return;
    }
    if (*first != expected) {
        state.SkipWithError("Rbac::check gave the wrong answer during set-up");
        return;
    }
    for (auto _ : state) {
        auto allowed = f.rbac->check(user, p);
        benchmark::DoNotOptimize(allowed);
    }
}

void BM_RbacCheck_Allowed(benchmark::State& state) {
    run_check(state, "olga", {Securable::kExecution, Operation::kExecute}, true);
}
BENCHMARK(BM_RbacCheck_Allowed);

// The same read; no role the user holds grants the permission.
void BM_RbacCheck_Denied(benchmark::State& state) {
    run_check(state, "victor", {Securable::kExecution, Operation::kExecute}, false);
}
BENCHMARK(BM_RbacCheck_Denied);

// A token whose owner has since been deleted: no roles, no error.
void BM_RbacCheck_UnknownUser(benchmark::State& state) {
    run_check(state, "nobody", {Securable::kInfrastructure, Operation::kRead}, false);
}
BENCHMARK(BM_RbacCheck_UnknownUser);

}  // namespace
}  // namespace yuzu::bench
