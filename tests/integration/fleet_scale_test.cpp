// The fleet at a size CI can afford: hundreds of real agent identities (one
// yuzu-agent --virtual N process) against one real yuzu-server with default
// agent-plane flags. Every answer must be recorded, none lost, the server's
// thread count must not follow the fleet, and a server killed under load
// must come back without running anything twice. bench/fleet_scale.py runs
// the same paths at 10,000 agents.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "fleet_test_helpers.hpp"

namespace yuzu::testing::fleet {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Threads of a process, from /proc/<pid>/status.
int thread_count(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
    }
    return -1;
}

// A process's threads by nice value (field 19 of /proc/<pid>/task/<tid>/stat).
std::map<int, int> threads_by_nice(pid_t pid) {
    std::map<int, int> out;
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
    std::error_code ec;
    for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
        std::ifstream stat(task.path() / "stat");
        std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
        const size_t close = text.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream fields(text.substr(close + 2));  // from field 3, the state
        std::string field;
        for (int i = 3; i < 19 && fields >> field; ++i) {
        }
        int nice = 0;
        if (fields >> nice) ++out[nice];
    }
    return out;
}

// The sum of a metric's samples whose line starts with `prefix` (name and
// the start of its labels), or -1 when there is none.
double metric(FleetFixture& f, const std::string& prefix) {
    auto res = f.client->Get("/metrics");
    if (!res || res->status != 200) return -1;
    std::istringstream lines(res->body);
    std::string line;
    double total = -1;
    while (std::getline(lines, line)) {
        if (line.rfind(prefix, 0) != 0) continue;
        total = (total < 0 ? 0 : total) + std::stod(line.substr(line.rfind(' ') + 1));
    }
    return total;
}

double online(FleetFixture& f) {
    return metric(f, "yuzu_agents{state=\"online\"}");
}

// Agents holding a long-poll now: what a dispatch reaches at once. (Right
// after a restart "online" still counts agents seen before the crash.)
double connected(FleetFixture& f) {
    return metric(f, "yuzu_agents_connected");
}

// The counts of an execution status, without its per-agent list.
std::string counts_of(const json& status) {
    if (!status.is_object()) return status.dump();
    json out = status;
    out.erase("agents");
    return out.dump();
}

// Dispatches os.info to every agent and waits until none is outstanding.
json run_os_info_everywhere(FleetFixture& f, seconds limit) {
    const std::string& op = f.mcp_tokens["operator"];
    json started = f.mcp_ok(op, "execute_instruction", {{"plugin", "os"}, {"action", "info"}});
    if (!started.is_object()) return json();
    const std::string id = started["execution_id"];
    json status;
    wait_for(
        [&] {
            status = f.mcp_ok(op, "get_execution_status", {{"execution_id", id}});
            return status.is_object() && status["agents_outstanding"] == 0;
        },
        limit);
    status["agents_reached"] = started["agents_reached"];
    return status;
}

// How often each command id was run, from the agent's log ("command <id>
// os.info"); a redelivery answered from memory logs differently.
std::map<std::string, int> runs_by_command(const std::string& log) {
    static const std::regex kRun(R"(command ([0-9a-f]{32}) os\.info)");
    std::map<std::string, int> runs;
    for (std::sregex_iterator it(log.begin(), log.end(), kRun), end; it != end; ++it) {
        ++runs[(*it)[1].str()];
    }
    return runs;
}

// The regression behind the answers lost at 200 agents: the agent plane held
// one long-poll per worker, refused the rest with 429, and agents refused
// kept losing the race to agents re-polling at once. With a pool of 4 the
// old plane had one poll slot. Now polls wait without a worker.
TEST(FleetScale, MoreAgentsThanWorkersAllGetTheirCommand) {
    FleetFixture f({"--agent-worker-threads", "4"});
    constexpr int kAgents = 60;
    auto agents = f.start_agents(kAgents, f.enrollment_token());
    ASSERT_TRUE(wait_for([&] { return connected(f) == kAgents; }, seconds(60)))
        << agents->log().substr(0, 4000);
    const json status = run_os_info_everywhere(f, seconds(30));
    ASSERT_TRUE(status.is_object());
    EXPECT_EQ(status["agents_reached"], kAgents);
    EXPECT_EQ(status["agents_responded"], kAgents) << counts_of(status);
    EXPECT_EQ(status["status"], "succeeded");
    EXPECT_EQ(metric(f, "yuzu_agent_polls_refused_total"), 0);
}

TEST(FleetScale, FiveHundredAgentsAnswerEveryCommandWithBoundedServerThreads) {
    FleetFixture f;  // default agent-plane flags
    constexpr int kAgents = 500;
    const int threads_before = thread_count(f.server->pid());
    auto agents = f.start_agents(kAgents, f.enrollment_token());
    ASSERT_TRUE(wait_for([&] { return connected(f) == kAgents; }, seconds(120)))
        << "connected: " << connected(f) << "\n"
        << agents->log().substr(0, 4000);
    EXPECT_EQ(online(f), kAgents);

    for (int round = 0; round < 2; ++round) {
        const json status = run_os_info_everywhere(f, seconds(60));
        ASSERT_TRUE(status.is_object());
        EXPECT_EQ(status["agents_reached"], kAgents);
        EXPECT_EQ(status["agents_responded"], kAgents) << counts_of(status);
        EXPECT_EQ(status["agents_success"], kAgents);
        EXPECT_EQ(status["status"], "succeeded");
        // The stored rows: one response per agent.
        json rows = f.mcp_ok(f.mcp_tokens["readonly"], "query_responses",
                             {{"execution_id", status["execution_id"]}, {"limit", 1000}});
        ASSERT_TRUE(rows.is_object());
        EXPECT_EQ(rows["rows"].size(), static_cast<size_t>(kAgents));
    }
    // Threads do not follow the fleet: the same pool serves 500 agents.
    const int threads_now = thread_count(f.server->pid());
    // The management pool (sized for --max-sse-streams) is there before any
    // agent; what agents add is bounded.
    EXPECT_LE(threads_now, threads_before + 8) << "before agents: " << threads_before;
    // The agent plane yields the CPU to the management API: its 16 workers,
    // its poller, the poll parking and the result ingest run 3 nice steps
    // lower, the inventory writer 10.
    auto by_nice = threads_by_nice(f.server->pid());
    int base = 0;
    {
        std::ifstream main_stat("/proc/" + std::to_string(f.server->pid()) + "/stat");
        std::string text((std::istreambuf_iterator<char>(main_stat)),
                         std::istreambuf_iterator<char>());
        std::istringstream fields(text.substr(text.rfind(')') + 2));
        std::string field;
        for (int i = 3; i < 19 && fields >> field; ++i) {
        }
        fields >> base;
    }
    if (base + 10 <= 19) {
        EXPECT_EQ(by_nice[base + 3], 16 + 3) << "threads by nice, base " << base;
        EXPECT_EQ(by_nice[base + 10], 1);
        EXPECT_GE(by_nice[base], 8) << "the management listener and the rest";
    }
    EXPECT_LE(metric(f, "yuzu_agent_answers_dropped_total"), 0);
    EXPECT_GE(metric(f, "yuzu_agent_command_delivery_seconds_count"), 2.0 * kAgents);
    auto live = f.client->Get("/livez");
    ASSERT_TRUE(live);
    EXPECT_EQ(live->status, 200);
}

TEST(FleetScale, AServerKilledUnderLoadComesBackAndNothingRunsTwice) {
    FleetFixture f({"--execution-timeout", "5"});
    constexpr int kAgents = 200;
    auto agents = f.start_agents(kAgents, f.enrollment_token());
    ASSERT_TRUE(wait_for([&] { return connected(f) == kAgents; }, seconds(60)))
        << agents->log().substr(0, 4000);
    const std::string& op = f.mcp_tokens["operator"];

    // Killed the moment the commands are out: some answers are recorded,
    // some are on their way, some agents have not even been handed theirs.
    json started = f.mcp_ok(op, "execute_instruction", {{"plugin", "os"}, {"action", "info"}});
    ASSERT_TRUE(started.is_object());
    const std::string in_flight = started["execution_id"];
    const std::string agent_url = f.server->agent_url();
    const std::string data_dir = f.server->data_dir();
    ASSERT_EQ(f.server->signal_and_wait(SIGKILL), 128 + SIGKILL);

    // The same data dir and agent address, as after a crash and a restart.
    ServerProcess::Options o = identity::server_options();
    o.data_dir = data_dir;
    o.args = {"--agent-heartbeat-interval",
              "1",
              "--agent-offline-timeout",
              std::to_string(kOfflineTimeoutS),
              "--execution-timeout",
              "5",
              "--agent-listen",
              agent_url.substr(std::string("http://").size())};
    f.server = std::make_unique<ServerProcess>(o);
    ASSERT_TRUE(f.server->running()) << f.server->log();
    f.client = std::make_unique<httplib::Client>(f.server->base_url());
    f.client->set_read_timeout(30, 0);
    const auto restarted = std::chrono::steady_clock::now();
    ASSERT_TRUE(wait_for([&] { return connected(f) == kAgents; }, seconds(60)))
        << "connected after restart: " << connected(f);
    const auto back_after = std::chrono::steady_clock::now() - restarted;
    EXPECT_LT(back_after, seconds(60));

    // The execution caught by the crash settles: answered or timed out,
    // never left running.
    json settled;
    ASSERT_TRUE(wait_for(
        [&] {
            settled = f.mcp_ok(op, "get_execution_status", {{"execution_id", in_flight}});
            return settled.is_object() && settled["agents_outstanding"] == 0 &&
                   settled["status"] != "running";
        },
        seconds(30)))
        << counts_of(settled);
    EXPECT_EQ(settled["agents_targeted"], kAgents);

    // The fleet answers a new instruction in full.
    const json after = run_os_info_everywhere(f, seconds(60));
    ASSERT_TRUE(after.is_object());
    EXPECT_EQ(after["agents_responded"], kAgents) << counts_of(after);

    // Reconnection is spread out: no storm of server errors on the agent
    // plane. Polls are GETs, or results that carry the next poll. (Labels
    // print sorted; the 200 series, the polls that just carried the new
    // instruction, proves the prefixes match.)
    const std::string polls =
        "yuzu_http_requests_total{listener=\"agent\",method=\"GET\",route=\"/agent/v1/"
        "commands\",status=";
    const std::string results =
        "yuzu_http_requests_total{listener=\"agent\",method=\"POST\",route=\"/agent/v1/"
        "results\",status=";
    EXPECT_GT(std::max(metric(f, polls + "\"200\""), metric(f, results + "\"200\"")), 0);
    EXPECT_LE(metric(f, polls + "\"5"), 0) << "-1: no 5xx series at all";
    EXPECT_LE(metric(f, results + "\"5"), 0) << "-1: no 5xx series at all";

    // Nothing ran twice: every command id appears once in the agent's log.
    ASSERT_EQ(agents->signal_and_wait(SIGTERM), 0);
    const auto runs = runs_by_command(agents->log());
    EXPECT_GE(runs.size(), static_cast<size_t>(kAgents));
    for (const auto& [command_id, n] : runs) EXPECT_EQ(n, 1) << command_id;
}

}  // namespace
}  // namespace yuzu::testing::fleet
