#include "client/http_channel.hpp"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <mutex>

#include "client/client_credential.hpp"

namespace yuzu::agent {
namespace {

#ifndef YUZU_VERSION
#define YUZU_VERSION "0.0.0"
#endif

constexpr int kMaxRetryAfterS = 3600;

void set_timeout(httplib::Client& client, void (httplib::Client::*setter)(time_t, time_t),
                 std::chrono::milliseconds d) {
    const auto ms = std::max<int64_t>(d.count(), 1);
    (client.*setter)(static_cast<time_t>(ms / 1000), static_cast<time_t>((ms % 1000) * 1000));
}

// Once per process: every identity would fail the same way.
void warn_source_address(const std::string& address, const char* why) {
    static std::atomic<bool> warned{false};
    if (warned.exchange(true)) return;
    spdlog::warn(
        "cannot bind to source address {} ({}); connecting from the default address, which a "
        "server capping connections per address may refuse (--no-virtual-source-addresses "
        "turns the binding off)",
        address, why);
}

// Binds each socket the client opens to `address` before connect(). The
// client's own socket options are none (httplib applies
// default_socket_options to servers only), so this replaces nothing.
void bind_source_address(httplib::Client& client, const std::string& address) {
    sockaddr_in source{};
    source.sin_family = AF_INET;
    source.sin_port = 0;
    if (::inet_pton(AF_INET, address.c_str(), &source.sin_addr) != 1) {
        warn_source_address(address, "not an IPv4 address");
        return;
    }
    client.set_address_family(AF_INET);  // "localhost" must not resolve to ::1
    client.set_socket_options([source, address](socket_t sock) {
        // The port is then chosen by connect() for the whole 4-tuple, instead
        // of bind() reserving an ephemeral port of the address per socket.
        const int one = 1;
        (void)::setsockopt(sock, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
        if (::bind(sock, reinterpret_cast<const sockaddr*>(&source), sizeof source) != 0) {
            warn_source_address(address, std::strerror(errno));
        }
    });
}

HttpReply to_reply(const httplib::Result& result, const httplib::Client& client, bool tls) {
    HttpReply reply;
    if (!result) {
        reply.transport_error = httplib::to_string(result.error());
        if (tls && result.error() == httplib::Error::SSLServerVerification) {
            const long verify = client.get_openssl_verify_result();
            reply.transport_error +=
                std::string(" (") + X509_verify_cert_error_string(verify) + "; check --ca-file)";
        }
        return reply;
    }
    reply.status = result->status;
    reply.body = result->body;
    reply.correlation_id = result->get_header_value("X-Correlation-Id");
    if (result->has_header("Retry-After")) {
        reply.retry_after_s = parse_retry_after(result->get_header_value("Retry-After"));
    }
    return reply;
}

}  // namespace

std::optional<int> parse_retry_after(const std::string& value) {
    int seconds = 0;
    const char* end = value.data() + value.size();
    const auto r = std::from_chars(value.data(), end, seconds);
    if (value.empty() || r.ec != std::errc() || r.ptr != end || seconds < 0) return std::nullopt;
    return std::min(seconds, kMaxRetryAfterS);
}

struct HttpChannel::Impl {
    Impl(const ServerEndpoint& endpoint, const std::string& ca, const std::string& source,
         HttpTimeouts t, bool keep, const ClientCredential* cred)
        : origin(endpoint.origin()),
          base_path(endpoint.base_path),
          tls(endpoint.tls()),
          ca_file(ca),
          source_address(source),
          timeouts(t),
          keep_alive(keep),
          credential(endpoint.tls() ? cred : nullptr) {  // over http it is ignored
        rebuild();
    }

    // The owner, before each request: a new client once the credential changed.
    void refresh() {
        if (credential != nullptr && credential->generation() != built_generation) rebuild();
    }

    void rebuild() {
        std::unique_ptr<httplib::Client> fresh;
        if (credential != nullptr) {
            const auto files_lock = credential->lock_files();  // no swap while loading
            built_generation = credential->generation();
            fresh = client_with_certificate(built_generation);
        }
        const bool with_certificate = fresh != nullptr;
        if (!fresh) fresh = std::make_unique<httplib::Client>(origin);
        configure(*fresh);
        std::lock_guard lock(client_mu);
        client.swap(fresh);
        presents_certificate = with_certificate;
    }  // the old client, now in fresh, closes its connection outside client_mu

    // nullptr when there is no usable credential (warned about once per change).
    std::unique_ptr<httplib::Client> client_with_certificate(uint64_t generation) const {
        std::string problem;
        const std::optional<CredentialFiles> files = credential->usable_files(&problem);
        if (!files) {
            if (!problem.empty() && credential->claim_warning(generation)) {
                spdlog::warn("client certificate not presented: {}", problem);
            }
            return nullptr;
        }
        auto c = std::make_unique<httplib::Client>(origin, files->cert_path, files->key_path);
        SSL_CTX* ctx = c->is_valid() ? c->ssl_context() : nullptr;
        // httplib loads the leaf alone; the whole file also sends the issuing CA.
        if (ctx == nullptr ||
            SSL_CTX_use_certificate_chain_file(ctx, files->cert_path.c_str()) != 1 ||
            SSL_CTX_check_private_key(ctx) != 1) {
            ERR_clear_error();
            if (credential->claim_warning(generation)) {
                spdlog::warn(
                    "client certificate {} cannot be used with {} (not a matching pair); "
                    "connecting without it",
                    files->cert_path, files->key_path);
            }
            return nullptr;
        }
        return c;
    }

    void configure(httplib::Client& c) const {
        if (!source_address.empty()) bind_source_address(c, source_address);
        if (tls) {
            c.enable_server_certificate_verification(true);
            if (!ca_file.empty()) c.set_ca_cert_path(ca_file);
        }
        c.set_keep_alive(keep_alive);
        c.set_default_headers({{"User-Agent", std::string("yuzu-agent/") + YUZU_VERSION},
                               {"Accept", "application/json"}});
        set_timeout(c, &httplib::Client::set_connection_timeout, timeouts.connect);
        set_timeout(c, &httplib::Client::set_write_timeout, timeouts.write);
    }

    httplib::Headers headers(const std::string& bearer) const {
        httplib::Headers h;
        if (!bearer.empty()) h.emplace("Authorization", "Bearer " + bearer);
        return h;
    }

    const std::string origin;
    const std::string base_path;
    const bool tls;
    const std::string ca_file;
    const std::string source_address;
    const HttpTimeouts timeouts;
    const bool keep_alive;
    const ClientCredential* const credential;  // nullptr over http
    uint64_t built_generation = 0;             // the owner's

    // Replaced by the owner under client_mu; the owner reads it without the
    // lock (it is the only writer), cancel() with it.
    std::mutex client_mu;
    std::unique_ptr<httplib::Client> client;
    std::atomic<bool> presents_certificate{false};
};

HttpChannel::HttpChannel(const ServerEndpoint& endpoint, const std::string& ca_file,
                         HttpTimeouts timeouts, const std::string& source_address, bool keep_alive,
                         const ClientCredential* credential)
    : impl_(std::make_unique<Impl>(endpoint, ca_file, source_address, timeouts, keep_alive,
                                   credential)) {}

HttpChannel::~HttpChannel() = default;

HttpReply HttpChannel::get(const std::string& path, const std::string& bearer,
                           std::chrono::milliseconds read_timeout) {
    impl_->refresh();
    httplib::Client& client = *impl_->client;
    set_timeout(client, &httplib::Client::set_read_timeout, read_timeout);
    auto result = client.Get(impl_->base_path + path, impl_->headers(bearer));
    return to_reply(result, client, impl_->tls);
}

HttpReply HttpChannel::post(const std::string& path, const std::string& bearer,
                            const std::string& json) {
    return post(path, bearer, json, impl_->timeouts.read);
}

HttpReply HttpChannel::post(const std::string& path, const std::string& bearer,
                            const std::string& json, std::chrono::milliseconds read_timeout) {
    impl_->refresh();
    httplib::Client& client = *impl_->client;
    set_timeout(client, &httplib::Client::set_read_timeout, read_timeout);
    auto result =
        client.Post(impl_->base_path + path, impl_->headers(bearer), json, "application/json");
    return to_reply(result, client, impl_->tls);
}

void HttpChannel::cancel() {
    std::lock_guard lock(impl_->client_mu);
    impl_->client->stop();
}

bool HttpChannel::presents_client_certificate() const {
    return impl_->presents_certificate.load();
}

}  // namespace yuzu::agent
