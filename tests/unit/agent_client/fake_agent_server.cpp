#include "fake_agent_server.hpp"

#include <httplib.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <cstdio>
#include <stdexcept>

#include "client/client_certificate.hpp"
#include "client/openssl_ptr.hpp"

namespace yuzu::agent::testing {
namespace {

void reply_json(httplib::Response& res, int status, const nlohmann::json& body) {
    res.status = status;
    res.set_content(body.dump(), "application/json");
}

void reply_error(httplib::Response& res, int status, const std::string& message) {
    reply_json(res, status,
               {{"error", {{"code", status}, {"message", message}, {"correlation_id", "test"}}}});
    res.set_header("X-Correlation-Id", "test");
}

std::string bearer_of(const httplib::Request& req) {
    const std::string auth = req.get_header_value("Authorization");
    constexpr std::string_view kPrefix = "Bearer ";
    return auth.rfind(kPrefix, 0) == 0 ? auth.substr(kPrefix.size()) : std::string();
}

// The serial of the client certificate the connection came with, "" if none.
std::string peer_serial(const httplib::Request& req) {
    if (req.ssl == nullptr) return "";
    X509Ptr peer(SSL_get1_peer_certificate(req.ssl));
    return peer ? describe_certificate(peer.get()).serial_hex : std::string();
}

X509Ptr read_certificate(const std::string& pem) {
    BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    return X509Ptr(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
}

// Verifies a client certificate when one is sent, against client_ca_pem,
// and lets a connection without one through (enrollment has none yet).
std::unique_ptr<httplib::Server> make_server(const FakeTls* tls) {
    if (tls == nullptr) return std::make_unique<httplib::Server>();
    const FakeTls config = *tls;
    auto server = std::make_unique<httplib::SSLServer>([config](SSL_CTX& ctx) {
        X509Ptr cert = read_certificate(config.cert_pem);
        X509Ptr ca = read_certificate(config.client_ca_pem);
        BioPtr key_bio(
            BIO_new_mem_buf(config.key_pem.data(), static_cast<int>(config.key_pem.size())));
        PkeyPtr key(key_bio ? PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr)
                            : nullptr);
        if (!cert || !ca || !key || SSL_CTX_use_certificate(&ctx, cert.get()) != 1 ||
            SSL_CTX_use_PrivateKey(&ctx, key.get()) != 1 ||
            X509_STORE_add_cert(SSL_CTX_get_cert_store(&ctx), ca.get()) != 1) {
            return false;
        }
        SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, nullptr);
        return true;
    });
    if (!server->is_valid()) throw std::runtime_error("fake agent server: bad TLS material");
    return server;
}

}  // namespace

FakeAgentServer::FakeAgentServer() : FakeAgentServer(static_cast<const FakeTls*>(nullptr)) {}

FakeAgentServer::FakeAgentServer(const FakeTls& tls) : FakeAgentServer(&tls) {}

FakeAgentServer::FakeAgentServer(const FakeTls* tls)
    : server_(make_server(tls)), tls_(tls != nullptr) {
    install_routes();
    port_ = server_->bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("fake agent server could not bind");
    // Connections made before listen_after_bind() runs wait in the backlog.
    thread_ = std::thread([this] { server_->listen_after_bind(); });
    // stop() before the listen loop runs would be lost and the join would hang.
    while (!server_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

FakeAgentServer::~FakeAgentServer() {
    {
        std::lock_guard lock(mu_);
        shutting_down_ = true;
    }
    cv_.notify_all();
    server_->stop();
    thread_.join();
}

std::string FakeAgentServer::url() const {
    return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
}

void FakeAgentServer::install_routes() {
    // Records the request and answers an injected failure, if one is due.
    // Returns false when the request has been answered already.
    auto admit = [this](const httplib::Request& req, httplib::Response& res, bool authenticated) {
        std::lock_guard lock(mu_);
        Request r;
        r.body = nlohmann::json::parse(req.body, nullptr, false);
        r.bearer = bearer_of(req);
        r.at = std::chrono::steady_clock::now();
        r.remote_addr = req.remote_addr;
        r.wait_s = req.get_param_value("wait_s");
        r.peer_serial = peer_serial(req);
        requests_[req.path].push_back(r);
        if (auto it = failures_.find(req.path); it != failures_.end() && it->second.remaining > 0) {
            --it->second.remaining;
            if (!it->second.retry_after.empty()) {
                res.set_header("Retry-After", it->second.retry_after);
            }
            reply_error(res, it->second.status, "injected failure");
            return false;
        }
        if (authenticated && (revoked_ || tokens_.count(r.bearer) == 0)) {
            reply_error(res, 401, "device token refused");
            return false;
        }
        return true;
    };

    server_->Post(
        "/agent/v1/enroll", [this, admit](const httplib::Request& req, httplib::Response& res) {
            if (!admit(req, res, false)) return;
            const auto body = nlohmann::json::parse(req.body, nullptr, false);
            if (!body.is_object() || body.value("enrollment_token", "") != kEnrollmentToken) {
                reply_error(res, 401, "bad enrollment token");
                return;
            }
            nlohmann::json answer;
            std::string id;
            {
                std::lock_guard lock(mu_);
                char text[33];
                std::snprintf(text, sizeof text, "%032x",
                              static_cast<unsigned>(agent_ids_.size() + 0xa0));
                id = text;
                const std::string token = "yuzu_device_" + std::to_string(agent_ids_.size());
                agent_ids_.push_back(id);
                tokens_[token] = id;
                answer = {{"agent_id", id},
                          {"device_token", token},
                          {"heartbeat_interval_s", heartbeat_s_},
                          {"inventory_interval_s", inventory_s_},
                          {"poll_wait_s", poll_wait_s_}};
            }
            if (body.contains("csr") && body["csr"].is_string()) {
                answer.update(issue(body["csr"].get<std::string>(), id));
            }
            reply_json(res, 201, answer);
        });

    server_->Post("/agent/v1/heartbeat",
                  [this, admit](const httplib::Request& req, httplib::Response& res) {
                      if (!admit(req, res, true)) return;
                      std::lock_guard lock(mu_);
                      nlohmann::json answer = {{"heartbeat_interval_s", heartbeat_s_},
                                               {"quarantined", quarantined_}};
                      if (ask_renewal_) answer["certificate_renewal"] = true;
                      reply_json(res, 200, answer);
                  });

    server_->Post("/agent/v1/certificate",
                  [this, admit](const httplib::Request& req, httplib::Response& res) {
                      if (!admit(req, res, true)) return;
                      const auto body = nlohmann::json::parse(req.body, nullptr, false);
                      if (!body.is_object() || !body.contains("csr") || !body["csr"].is_string()) {
                          reply_error(res, 400, "csr: required");
                          return;
                      }
                      std::string agent_id;
                      {
                          std::lock_guard lock(mu_);
                          agent_id = tokens_[bearer_of(req)];
                      }
                      const nlohmann::json answer = issue(body["csr"].get<std::string>(), agent_id);
                      if (answer.empty()) {
                          reply_error(res, 400, "csr: cannot be signed");
                          return;
                      }
                      reply_json(res, 200, answer);
                  });

    // Like the real server: a digest-only report is confirmed when it names
    // the last full report's digest, else the sources are asked for.
    server_->Post(
        "/agent/v1/inventory", [this, admit](const httplib::Request& req, httplib::Response& res) {
            if (!admit(req, res, true)) return;
            const auto body = nlohmann::json::parse(req.body, nullptr, false);
            const std::string digest = body.is_object() && body.contains("sources_sha256") &&
                                               body["sources_sha256"].is_string()
                                           ? body["sources_sha256"].get<std::string>()
                                           : "";
            std::lock_guard lock(mu_);
            if (body.is_object() && body.contains("sources")) {
                inventory_digest_ = digest;
                res.status = 204;
            } else if (!digest.empty() && digest == inventory_digest_) {
                res.status = 204;
            } else {
                reply_json(res, 200, {{"send_sources", true}});
            }
        });

    server_->Post("/agent/v1/results",
                  [this, admit](const httplib::Request& req, httplib::Response& res) {
                      if (!admit(req, res, true)) return;
                      std::unique_lock lock(mu_);
                      if (!results_carry_polls_ || !req.has_param("wait_s")) {
                          res.status = 204;
                          return;
                      }
                      const int wait_s = std::atoi(req.get_param_value("wait_s").c_str());
                      reply_json(res, 200, next_poll_answer(lock, wait_s));
                  });

    server_->Post("/agent/v1/goodbye",
                  [admit](const httplib::Request& req, httplib::Response& res) {
                      if (!admit(req, res, true)) return;
                      res.status = 204;
                  });

    server_->Get("/agent/v1/commands",
                 [this, admit](const httplib::Request& req, httplib::Response& res) {
                     if (!admit(req, res, true)) return;
                     const int wait_s = std::atoi(req.get_param_value("wait_s").c_str());
                     std::unique_lock lock(mu_);
                     reply_json(res, 200, next_poll_answer(lock, wait_s));
                 });
}

nlohmann::json FakeAgentServer::issue(const std::string& csr, const std::string& agent_id) const {
    CertificateIssuer issuer;
    std::string chain;
    {
        std::lock_guard lock(mu_);
        issuer = issuer_;
        chain = chain_pem_;
    }
    const std::string leaf = issuer ? issuer(csr, agent_id) : std::string();
    if (leaf.empty()) return nlohmann::json::object();
    return {{"certificate", leaf}, {"certificate_chain", chain}};
}

void FakeAgentServer::set_certificate_issuer(CertificateIssuer issuer, std::string chain_pem) {
    std::lock_guard lock(mu_);
    issuer_ = std::move(issuer);
    chain_pem_ = std::move(chain_pem);
}

void FakeAgentServer::set_certificate_renewal(bool ask) {
    std::lock_guard lock(mu_);
    ask_renewal_ = ask;
}

std::vector<std::string> FakeAgentServer::peer_serials(const std::string& path) const {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    if (auto it = requests_.find(path); it != requests_.end()) {
        for (const auto& r : it->second) out.push_back(r.peer_serial);
    }
    return out;
}

nlohmann::json FakeAgentServer::next_poll_answer(std::unique_lock<std::mutex>& lock, int wait_s) {
    const auto hold = std::min<std::chrono::milliseconds>(hold_, std::chrono::seconds(wait_s));
    cv_.wait_for(lock, hold, [this] { return shutting_down_ || !answers_.empty(); });
    nlohmann::json commands = nlohmann::json::array();
    if (!answers_.empty()) {
        commands = std::move(answers_.front());
        answers_.pop_front();
    }
    return {{"commands", commands}, {"quarantined", quarantined_}};
}

void FakeAgentServer::set_results_carry_polls(bool carry) {
    std::lock_guard lock(mu_);
    results_carry_polls_ = carry;
}

void FakeAgentServer::push_commands(nlohmann::json commands) {
    {
        std::lock_guard lock(mu_);
        answers_.push_back(std::move(commands));
    }
    cv_.notify_all();
}

void FakeAgentServer::set_poll_hold(std::chrono::milliseconds hold) {
    std::lock_guard lock(mu_);
    hold_ = hold;
}

void FakeAgentServer::set_quarantined(bool quarantined) {
    std::lock_guard lock(mu_);
    quarantined_ = quarantined;
}

void FakeAgentServer::revoke_all_devices() {
    std::lock_guard lock(mu_);
    revoked_ = true;
}

void FakeAgentServer::fail_next(const std::string& path, int status, int count,
                                std::string retry_after) {
    std::lock_guard lock(mu_);
    failures_[path] = Failure{status, count, std::move(retry_after)};
}

void FakeAgentServer::set_intervals(int heartbeat_s, int inventory_s, int poll_wait_s) {
    std::lock_guard lock(mu_);
    heartbeat_s_ = heartbeat_s;
    inventory_s_ = inventory_s;
    poll_wait_s_ = poll_wait_s;
}

int FakeAgentServer::enroll_count() const {
    std::lock_guard lock(mu_);
    return static_cast<int>(agent_ids_.size());
}

std::vector<std::string> FakeAgentServer::agent_ids() const {
    std::lock_guard lock(mu_);
    return agent_ids_;
}

std::vector<nlohmann::json> FakeAgentServer::bodies(const std::string& path) const {
    std::lock_guard lock(mu_);
    std::vector<nlohmann::json> out;
    if (auto it = requests_.find(path); it != requests_.end()) {
        for (const auto& r : it->second) out.push_back(r.body);
    }
    return out;
}

std::vector<std::string> FakeAgentServer::bearers(const std::string& path) const {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    if (auto it = requests_.find(path); it != requests_.end()) {
        for (const auto& r : it->second) out.push_back(r.bearer);
    }
    return out;
}

std::vector<std::chrono::steady_clock::time_point> FakeAgentServer::arrivals(
    const std::string& path) const {
    std::lock_guard lock(mu_);
    std::vector<std::chrono::steady_clock::time_point> out;
    if (auto it = requests_.find(path); it != requests_.end()) {
        for (const auto& r : it->second) out.push_back(r.at);
    }
    return out;
}

std::vector<std::string> FakeAgentServer::remote_addrs(const std::string& path) const {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    if (auto it = requests_.find(path); it != requests_.end()) {
        for (const auto& r : it->second) out.push_back(r.remote_addr);
    }
    return out;
}

std::vector<std::string> FakeAgentServer::wait_params(const std::string& path) const {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    if (auto it = requests_.find(path); it != requests_.end()) {
        for (const auto& r : it->second) out.push_back(r.wait_s);
    }
    return out;
}

size_t FakeAgentServer::count(const std::string& path) const {
    std::lock_guard lock(mu_);
    const auto it = requests_.find(path);
    return it == requests_.end() ? 0 : it->second.size();
}

bool FakeAgentServer::wait_until(const std::function<bool()>& pred,
                                 std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        if (pred()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
}

}  // namespace yuzu::agent::testing
