#include "yuzu/store/busy_stats.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace yuzu::store {
namespace {

struct Counters {
    std::atomic<uint64_t> retries{0};
    std::atomic<uint64_t> timeouts{0};
};

// Counters are never freed, so a context may point at them for as long as
// the process lives.
struct Table {
    std::mutex mu;
    std::map<std::string, std::unique_ptr<Counters>> by_name;  // guarded by mu
};

Table& table() {
    static Table* t = new Table;  // leaked on purpose: used until exit
    return *t;
}

// The delays SQLite's own busy timeout uses, in milliseconds; the last one
// repeats.
constexpr std::array<int, 12> kDelaysMs = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};

int64_t delay_for(int call) {
    return kDelaysMs[std::min<size_t>(static_cast<size_t>(call), kDelaysMs.size() - 1)];
}

int64_t waited_before(int calls) {
    int64_t total = 0;
    for (int i = 0; i < calls; ++i) total += delay_for(i);
    return total;
}

}  // namespace

std::vector<BusyCounts> busy_counts() {
    Table& t = table();
    std::lock_guard lock(t.mu);
    std::vector<BusyCounts> out;
    out.reserve(t.by_name.size());
    for (const auto& [name, c] : t.by_name) {
        out.push_back({name, c->retries.load(), c->timeouts.load()});
    }
    return out;
}

namespace internal {

void bind_busy_context(BusyContext& ctx, const std::string& path, int timeout_ms) {
    std::string name = std::filesystem::path(path).filename().string();
    if (name.empty()) name = path;
    Table& t = table();
    std::lock_guard lock(t.mu);
    auto& slot = t.by_name[name];
    if (!slot) slot = std::make_unique<Counters>();
    ctx.timeout_ms = timeout_ms;
    ctx.counter = slot.get();
}

int busy_handler(void* raw, int prior_calls) {
    auto* ctx = static_cast<BusyContext*>(raw);
    auto* counters = static_cast<Counters*>(ctx->counter);
    const int64_t waited = waited_before(prior_calls);
    int64_t delay = delay_for(prior_calls);
    if (waited + delay > ctx->timeout_ms) delay = ctx->timeout_ms - waited;
    if (delay <= 0) {
        counters->timeouts.fetch_add(1, std::memory_order_relaxed);
        return 0;
    }
    counters->retries.fetch_add(1, std::memory_order_relaxed);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay));
    return 1;
}

}  // namespace internal
}  // namespace yuzu::store
