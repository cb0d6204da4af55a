// An in-process agent-plane server on 127.0.0.1 (port 0) that speaks just
// enough of docs/agent-protocol.md for the client tests: it enrolls, takes
// heartbeats, inventory, results and goodbyes, records every body, and
// hands out the command answers a test queues. Given a certificate issuer
// it answers CSRs at enrollment and on POST /agent/v1/certificate; given
// FakeTls it serves https and asks for (but does not require) a client
// certificate, recording the serial of the one each request came with.
//
// Thread-safety: every member may be called from the test thread while
// the server's worker threads serve the agent.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace httplib {
class Server;
}

namespace yuzu::agent::testing {

inline constexpr const char* kEnrollmentToken = "yuzu_enroll_test_token";

// https: the server's certificate and key, and the CA a client certificate
// must chain to (PEM text).
struct FakeTls {
    std::string cert_pem;
    std::string key_pem;
    std::string client_ca_pem;
};

// The leaf PEM for a CSR ("" refuses it); called on the server's threads.
using CertificateIssuer =
    std::function<std::string(const std::string& csr_pem, const std::string& agent_id)>;

class FakeAgentServer {
  public:
    FakeAgentServer();
    explicit FakeAgentServer(const FakeTls& tls);
    ~FakeAgentServer();
    FakeAgentServer(const FakeAgentServer&) = delete;
    FakeAgentServer& operator=(const FakeAgentServer&) = delete;

    std::string url() const;

    // --- behaviour ---
    // The next poll answers {"commands": commands}; polls with nothing queued
    // are held up to hold_ms (or wait_s, if shorter) and answer an empty list.
    void push_commands(nlohmann::json commands);
    void set_poll_hold(std::chrono::milliseconds hold);
    // Whether a result posted with ?wait_s= is answered like a poll (200 with
    // the next command answer), as yuzu-server does, or 204 (an older server).
    void set_results_carry_polls(bool carry);
    void set_quarantined(bool quarantined);
    // Every request with a device token gets 401 from now on.
    void revoke_all_devices();
    // The next `count` requests to `path` (e.g. "/agent/v1/heartbeat") get
    // `status` with an optional Retry-After header.
    void fail_next(const std::string& path, int status, int count, std::string retry_after = "");
    // What enrollment answers carry.
    void set_intervals(int heartbeat_s, int inventory_s, int poll_wait_s);
    // Enrollments with a csr, and POST /agent/v1/certificate, get a
    // certificate from issuer and chain_pem as certificate_chain.
    void set_certificate_issuer(CertificateIssuer issuer, std::string chain_pem);
    // Heartbeat answers carry "certificate_renewal": ask.
    void set_certificate_renewal(bool ask);

    // --- records ---
    int enroll_count() const;
    std::vector<std::string> agent_ids() const;  // in issue order
    std::vector<nlohmann::json> bodies(const std::string& path) const;
    std::vector<std::string> bearers(const std::string& path) const;
    std::vector<std::chrono::steady_clock::time_point> arrivals(const std::string& path) const;
    std::vector<std::string> remote_addrs(const std::string& path) const;  // peer addresses
    std::vector<std::string> wait_params(const std::string& path) const;   // ?wait_s=, "" if none
    // The serial (lowercase hex) of each request's client certificate, "" if none.
    std::vector<std::string> peer_serials(const std::string& path) const;
    size_t count(const std::string& path) const;

    // Polls pred every 10 ms until it holds or timeout passes.
    static bool wait_until(const std::function<bool()>& pred,
                           std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

  private:
    struct Request {
        nlohmann::json body;
        std::string bearer;
        std::chrono::steady_clock::time_point at;
        std::string remote_addr;
        std::string wait_s;  // the query parameter, "" when absent
        std::string peer_serial;
    };
    explicit FakeAgentServer(const FakeTls* tls);
    void install_routes();
    // {"certificate", "certificate_chain"} for csr, or an empty object.
    nlohmann::json issue(const std::string& csr, const std::string& agent_id) const;
    // A poll's answer: the next queued command answer, or after holding up
    // to wait_s (at most hold_) an empty list. Called with mu_ held.
    nlohmann::json next_poll_answer(std::unique_lock<std::mutex>& lock, int wait_s);

    std::unique_ptr<httplib::Server> server_;
    bool tls_ = false;
    int port_ = 0;
    std::thread thread_;

    mutable std::mutex mu_;
    std::condition_variable cv_;
    bool shutting_down_ = false;
    std::deque<nlohmann::json> answers_;
    std::chrono::milliseconds hold_{1000};
    bool quarantined_ = false;
    bool revoked_ = false;
    bool results_carry_polls_ = true;
    int heartbeat_s_ = 1;
    int inventory_s_ = 300;
    std::string inventory_digest_;  // of the last full inventory report
    int poll_wait_s_ = 1;
    std::map<std::string, std::string> tokens_;  // device token -> agent id
    std::vector<std::string> agent_ids_;
    std::map<std::string, std::vector<Request>> requests_;  // by path
    struct Failure {
        int status;
        int remaining;
        std::string retry_after;
    };
    std::map<std::string, Failure> failures_;
    CertificateIssuer issuer_;
    std::string chain_pem_;
    bool ask_renewal_ = false;
};

}  // namespace yuzu::agent::testing
