// Helpers for the MCP session and GET-stream integration tests: a raw-socket
// SSE client (so a test can hold many streams, read with deadlines and see
// exactly what the server wrote), and session set-up over httplib.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "identity_test_helpers.hpp"

namespace yuzu::testing::mcp_stream {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct SseEvent {
    std::optional<uint64_t> id;
    std::string event;  // "" = message
    std::string data;
};

// One GET /mcp/v1/ over a raw socket.
class SseClient {
  public:
    SseClient() = default;
    SseClient(const SseClient&) = delete;
    SseClient& operator=(const SseClient&) = delete;
    SseClient(SseClient&& o) noexcept { *this = std::move(o); }
    SseClient& operator=(SseClient&& o) noexcept {
        std::swap(fd_, o.fd_);
        status = o.status;
        headers = std::move(o.headers);
        body = std::move(o.body);
        raw_ = std::move(o.raw_);
        decoded_ = std::move(o.decoded_);
        chunked_ = o.chunked_;
        eof_ = o.eof_;
        return *this;
    }
    ~SseClient() { close(); }

    // Connects, sends the GET and reads the status line and headers. False
    // when the connection or the head failed.
    bool open(int port, const std::vector<std::pair<std::string, std::string>>& extra,
              std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
        return request("GET", port, extra, "", timeout);
    }
    // The same for a POST of `body` (application/json): a streamed response
    // reads like a GET stream.
    bool post(int port, const std::vector<std::pair<std::string, std::string>>& extra,
              const std::string& payload,
              std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
        auto fields = extra;
        fields.emplace_back("Content-Type", "application/json");
        fields.emplace_back("Content-Length", std::to_string(payload.size()));
        return request("POST", port, fields, payload, timeout);
    }

    bool request(const std::string& method, int port,
                 const std::vector<std::pair<std::string, std::string>>& extra,
                 const std::string& payload, std::chrono::milliseconds timeout) {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        if (fd_ < 0) return false;
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<uint16_t>(port));
        ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
        if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return false;
        std::string req = method + " /mcp/v1/ HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        for (const auto& [k, v] : extra) req += k + ": " + v + "\r\n";
        req += "\r\n" + payload;
        if (::send(fd_, req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size()))
            return false;
        const auto deadline = Clock::now() + timeout;
        size_t head_end = std::string::npos;
        while ((head_end = raw_.find("\r\n\r\n")) == std::string::npos) {
            if (!fill(deadline)) return false;
        }
        status = std::stoi(raw_.substr(9, 3));
        size_t line = raw_.find("\r\n") + 2;
        while (line < head_end) {
            const size_t eol = raw_.find("\r\n", line);
            const std::string field = raw_.substr(line, eol - line);
            const size_t colon = field.find(':');
            if (colon != std::string::npos) {
                std::string name = field.substr(0, colon);
                for (auto& c : name)
                    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                size_t v = colon + 1;
                while (v < field.size() && field[v] == ' ') ++v;
                headers[name] = field.substr(v);
            }
            line = eol + 2;
        }
        raw_.erase(0, head_end + 4);
        chunked_ = headers["transfer-encoding"] == "chunked";
        if (!chunked_) {
            const size_t length =
                headers.count("content-length") ? std::stoul(headers["content-length"]) : 0;
            while (raw_.size() < length && fill(deadline)) {
            }
            body = raw_.substr(0, length);
        }
        return true;
    }

    // The next event (comments skipped), or nullopt at the deadline or end.
    std::optional<SseEvent> next_event(std::chrono::milliseconds timeout) {
        const auto deadline = Clock::now() + timeout;
        while (true) {
            decode();
            const size_t end = decoded_.find("\n\n");
            if (end != std::string::npos) {
                const std::string block = decoded_.substr(0, end);
                decoded_.erase(0, end + 2);
                SseEvent e;
                bool any = false;
                size_t pos = 0;
                while (pos <= block.size()) {
                    size_t eol = block.find('\n', pos);
                    if (eol == std::string::npos) eol = block.size();
                    const std::string line = block.substr(pos, eol - pos);
                    pos = eol + 1;
                    if (line.empty() || line[0] == ':') continue;
                    any = true;
                    const size_t colon = line.find(':');
                    const std::string field = line.substr(0, colon);
                    std::string value = colon == std::string::npos ? "" : line.substr(colon + 1);
                    if (!value.empty() && value[0] == ' ') value.erase(0, 1);
                    if (field == "id") e.id = std::stoull(value);
                    if (field == "event") e.event = value;
                    if (field == "data") e.data += (e.data.empty() ? "" : "\n") + value;
                }
                if (any) return e;
                continue;
            }
            if (eof_ || !fill(deadline)) return std::nullopt;
        }
    }

    // Reads events until one named `stream-closed`; its reason, or "" at the
    // deadline. Data frames before it go to *frames when given.
    std::string read_until_closed(std::chrono::milliseconds timeout,
                                  std::vector<SseEvent>* frames = nullptr) {
        const auto deadline = Clock::now() + timeout;
        while (Clock::now() < deadline) {
            auto e = next_event(
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
            if (!e) return "";
            if (e->event == "stream-closed") return json::parse(e->data)["reason"];
            if (frames && !e->data.empty()) frames->push_back(*e);
        }
        return "";
    }

    // True when the server has ended the body (the last chunk, or the
    // connection closed) by the deadline.
    bool wait_eof(std::chrono::milliseconds timeout) {
        const auto deadline = Clock::now() + timeout;
        decode();
        while (!eof_ && fill(deadline)) decode();
        return eof_;
    }

    void close() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

    int status = 0;
    std::map<std::string, std::string> headers;  // lower-case names
    std::string body;                            // non-chunked answers

  private:
    bool fill(Clock::time_point deadline) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0 || fd_ < 0) return false;
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
        char buf[8192];
        const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
        if (n <= 0) {
            eof_ = true;
            return false;
        }
        raw_.append(buf, static_cast<size_t>(n));
        return true;
    }

    void decode() {
        if (!chunked_) {
            decoded_ += raw_;
            raw_.clear();
            return;
        }
        while (true) {
            const size_t eol = raw_.find("\r\n");
            if (eol == std::string::npos) return;
            const size_t size = std::stoul(raw_.substr(0, eol), nullptr, 16);
            if (raw_.size() < eol + 2 + size + 2) return;
            decoded_ += raw_.substr(eol + 2, size);
            raw_.erase(0, eol + 2 + size + 2);
            if (size == 0) eof_ = true;
        }
    }

    int fd_ = -1;
    std::string raw_;
    std::string decoded_;
    bool chunked_ = false;
    bool eof_ = false;
};

inline const std::string kInitialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",)"
    R"("capabilities":{},"clientInfo":{"name":"stream-test","version":"1"}}})";

inline httplib::Headers mcp_headers(const std::string& token, const std::string& session = "") {
    httplib::Headers h{{"Authorization", "Bearer " + token},
                       {"Accept", "application/json, text/event-stream"}};
    if (!session.empty()) h.emplace("Mcp-Session-Id", session);
    return h;
}

// initialize; the session id ("" on failure).
inline std::string open_session(httplib::Client& c, const std::string& token) {
    auto res = c.Post("/mcp/v1/", mcp_headers(token), kInitialize, "application/json");
    if (!res || res->status != 200) return "";
    return res->get_header_value("Mcp-Session-Id");
}

// A tools/call of a tool that does not exist: one warning frame on the
// session's stream. Answers the HTTP status.
inline int failing_call(httplib::Client& c, const std::string& token, const std::string& session,
                        int id) {
    const json body = {{"jsonrpc", "2.0"},
                       {"id", id},
                       {"method", "tools/call"},
                       {"params", {{"name", "no_such_tool_" + std::to_string(id)}}}};
    auto res = c.Post("/mcp/v1/", mcp_headers(token, session), body.dump(), "application/json");
    return res ? res->status : 0;
}

inline std::vector<std::pair<std::string, std::string>> get_headers(
    const std::string& token, const std::string& session, const std::string& last_event_id = "") {
    std::vector<std::pair<std::string, std::string>> h{{"Authorization", "Bearer " + token},
                                                       {"Accept", "text/event-stream"},
                                                       {"Mcp-Session-Id", session}};
    if (!last_event_id.empty()) h.emplace_back("Last-Event-ID", last_event_id);
    return h;
}

// The value of one series in the server's /metrics (-1 when absent).
inline double metric_value(httplib::Client& c, const std::string& series) {
    auto res = c.Get("/metrics");
    if (!res) return -1;
    size_t pos = 0;
    while ((pos = res->body.find(series + " ", pos)) != std::string::npos) {
        if (pos == 0 || res->body[pos - 1] == '\n') {
            return std::stod(res->body.substr(pos + series.size() + 1));
        }
        ++pos;
    }
    return -1;
}

// A server with a known admin password and `args`, and an operator token.
struct StreamFixture {
    explicit StreamFixture(std::vector<std::string> args = {}) {
        auto o = identity::server_options();
        o.args = std::move(args);
        server = std::make_unique<ServerProcess>(o);
        client = std::make_unique<httplib::Client>(server->base_url());
        admin = identity::login(*client, "admin", identity::kAdminPassword);
        token =
            identity::create_token(*client, admin, "stream", "operator", identity::now_s() + 86400);
    }
    double metric(const std::string& series) const { return metric_value(*client, series); }

    // Polls until the metric reads `want` (streams are counted as their
    // connection ends, just after the last frame goes out); its last value.
    double wait_metric(const std::string& series, double want,
                       std::chrono::milliseconds timeout = std::chrono::seconds(5)) const {
        const auto deadline = Clock::now() + timeout;
        double value = metric(series);
        while (value != want && Clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            value = metric(series);
        }
        return value;
    }

    std::unique_ptr<ServerProcess> server;
    std::unique_ptr<httplib::Client> client;
    identity::Session admin;
    std::string token;
};

}  // namespace yuzu::testing::mcp_stream
