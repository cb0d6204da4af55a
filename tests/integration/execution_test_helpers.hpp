// Helpers for the execution integration tests: result polling that honours
// retry_after_ms, the registered agent ids, REST JSON answers and reading
// the SSE event stream.
#pragma once

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fleet_test_helpers.hpp"

namespace yuzu::testing::fleet {

// Calls a result-poll tool until it answers ready, sleeping retry_after_ms
// between calls as the server asks. The last answer.
inline json poll_until_ready(FleetFixture& f, const std::string& token, const std::string& tool,
                             const json& args,
                             std::chrono::seconds limit = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    json sc;
    while (std::chrono::steady_clock::now() < deadline) {
        sc = f.mcp_ok(token, tool, args);
        if (!sc.is_object() || sc.value("ready", false)) return sc;
        EXPECT_TRUE(sc.contains("retry_after_ms")) << sc.dump();
        std::this_thread::sleep_for(std::chrono::milliseconds(sc.value("retry_after_ms", 1000)));
    }
    ADD_FAILURE() << tool << " not ready after " << limit.count() << " s: " << sc.dump();
    return sc;
}

inline std::set<std::string> agent_ids(FleetFixture& f, const std::string& token) {
    std::set<std::string> ids;
    for (const auto& a : f.agents(token)) ids.insert(a["agent_id"].get<std::string>());
    return ids;
}

inline json rest_json(const httplib::Result& res, int expected_status) {
    EXPECT_TRUE(res);
    if (!res) return json();
    EXPECT_EQ(res->status, expected_status) << res->body;
    return json::parse(res->body, nullptr, false);
}

struct SseEvent {
    std::string id;
    std::string type;
    json data;
};

inline std::vector<SseEvent> parse_sse(const std::string& text) {
    std::vector<SseEvent> out;
    std::istringstream in(text);
    std::string line;
    SseEvent current;
    while (std::getline(in, line)) {
        if (line.empty()) {
            if (!current.type.empty()) out.push_back(current);
            current = SseEvent{};
        } else if (line.rfind("id: ", 0) == 0) {
            current.id = line.substr(4);
        } else if (line.rfind("event: ", 0) == 0) {
            current.type = line.substr(7);
        } else if (line.rfind("data: ", 0) == 0) {
            current.data = json::parse(line.substr(6), nullptr, false);
        }
    }
    return out;
}

struct StreamRead {
    bool completed = false;  // the server ended the response
    int status = 0;
    std::string content_type;
    std::string text;
};

// Reads GET /api/v1/events for an execution until the server ends it.
inline StreamRead read_event_stream(FleetFixture& f, const std::string& execution_id) {
    httplib::Client sse(f.server->base_url());
    sse.set_read_timeout(30, 0);
    StreamRead out;
    auto res = sse.Get("/api/v1/events?execution_id=" + execution_id,
                       identity::bearer(f.admin_token), [&](const char* data, size_t len) {
                           out.text.append(data, len);
                           return true;
                       });
    out.completed = static_cast<bool>(res);
    if (res) {
        out.status = res->status;
        out.content_type = res->get_header_value("Content-Type");
    }
    return out;
}

}  // namespace yuzu::testing::fleet
