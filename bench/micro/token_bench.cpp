// Before a tools/call reaches the pipeline: TokenStore::validate() on the
// bearer token. A hit is answered by the in-memory cache (SHA-256, map lookup,
// TokenInfo copy); a miss reads auth.db. Both are measured.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

#include "bench_support.hpp"
#include "yuzu/auth/token_store.hpp"
#include "yuzu/common/clock.hpp"
#include "yuzu/store/database.hpp"

namespace yuzu::bench {
namespace {

constexpr int64_t kDayS = 24 * 3600;
// Well-formed ("yuzu_" + 32 base62) but issued to nobody.
constexpr char kUnknownToken[] = "yuzu_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

// A TokenStore over a fresh auth.db holding one MCP token. The clock stands
// still, so last_used_at is written once (during warm-up) and never again.
struct TokenFixture {
    TempDir dir;
    ManualClock clock;
    std::unique_ptr<store::Database> db;
    std::unique_ptr<auth::TokenStore> tokens;
    std::string secret;

    Status open(const auth::TokenStoreOptions& options) {
        if (!dir.ok()) return Status::Internal("cannot create a temp dir for auth.db");
        auto opened = open_auth_db(dir.str(), clock);
        if (!opened.ok()) return opened.status();
        db = std::move(opened).value();
        tokens = std::make_unique<auth::TokenStore>(*db, clock, options);
        auto created =
            tokens->create("bench-owner", "bench", "operator", clock.now_s() + 30 * kDayS);
        if (!created.ok()) return created.status();
        secret = created->secret;
        // Warm-up: fills the cache (when there is one) and writes last_used_at.
        auto first = tokens->validate(secret);
        if (!first.ok()) return first.status();
        return Status::Ok();
    }
};

void run_validate(benchmark::State& state, const TokenFixture& f, const std::string& raw) {
    for (auto _ : state) {
        auto info = f.tokens->validate(raw);
        benchmark::DoNotOptimize(info);
    }
}

// The common case: the token was seen within the cache TTL (60 s).
void BM_TokenValidate_CacheHit(benchmark::State& state) {
    TokenFixture f;
    if (Status s = f.open({}); !s.ok()) {
        state.SkipWithError(s.to_string().c_str());
        return;
    }
    if (f.tokens->cached_entries() != 1) {
        state.SkipWithError("warm-up validate did not fill the cache");
        return;
    }
    run_validate(state, f, f.secret);
}
BENCHMARK(BM_TokenValidate_CacheHit);

// Every lookup goes to auth.db: a TTL of 0 makes each cached entry stale by the
// next call (a token's first use, or one idle past the TTL).
void BM_TokenValidate_Uncached(benchmark::State& state) {
    TokenFixture f;
    auth::TokenStoreOptions options;
    options.cache_ttl_ms = 0;
    if (Status s = f.open(options); !s.ok()) {
        state.SkipWithError(s.to_string().c_str());
        return;
    }
    run_validate(state, f, f.secret);
}
BENCHMARK(BM_TokenValidate_Uncached);

// A well-formed token nobody holds: refusals are never cached, so each one is
// a hash and an auth.db query (what a token-guessing client costs).
void BM_TokenValidate_Unknown(benchmark::State& state) {
    TokenFixture f;
    if (Status s = f.open({}); !s.ok()) {
        state.SkipWithError(s.to_string().c_str());
        return;
    }
    auth::TokenRejection why = auth::TokenRejection::kNone;
    auto refused = f.tokens->validate(kUnknownToken, &why);
    if (refused.ok() || why != auth::TokenRejection::kUnknown) {
        state.SkipWithError("the unknown token was not refused as unknown");
        return;
    }
    run_validate(state, f, kUnknownToken);
}
BENCHMARK(BM_TokenValidate_Unknown);

}  // namespace
}  // namespace yuzu::bench
