// The baseline the pipeline benchmark compares yuzu-server with: a bare
// cpp-httplib server (the same system library yuzu links) that does the
// least a JSON-RPC endpoint can do. Each POST /mcp/v1/ body is parsed with
// nlohmann/json, its id is read, and the answer is a result captured from
// yuzu-server at the start of the run, spliced around that id. No token, no
// tier, no schema, no RBAC, no audit: what is left is HTTP and JSON.
//
//   yuzu-bench-baseline --port-file F --call-result C --list-result L [--threads N]
//
// C and L hold the `result` member of yuzu's tools/call and tools/list
// answers, so both servers send the same bytes. The bound port is written to
// F once the socket listens.
#include <httplib.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "yuzu-bench-baseline: cannot read %s\n", path.c_str());
        std::exit(2);
    }
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

struct Options {
    std::string port_file;
    std::string call_result;
    std::string list_result;
    int threads = 64;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const std::string value = argv[i + 1];
        if (flag == "--port-file") {
            o.port_file = value;
        } else if (flag == "--call-result") {
            o.call_result = read_file(value);
        } else if (flag == "--list-result") {
            o.list_result = read_file(value);
        } else if (flag == "--threads") {
            o.threads = std::atoi(value.c_str());
        } else {
            std::fprintf(stderr, "yuzu-bench-baseline: unknown flag %s\n", flag.c_str());
            std::exit(2);
        }
    }
    if (o.port_file.empty() || o.call_result.empty() || o.list_result.empty() || o.threads < 1) {
        std::fprintf(stderr,
                     "usage: yuzu-bench-baseline --port-file F --call-result C --list-result L "
                     "[--threads N]\n");
        std::exit(2);
    }
    return o;
}

}  // namespace

int main(int argc, char** argv) {
    const Options options = parse(argc, argv);
    httplib::Server server;
    // One worker per kept-alive connection is how cpp-httplib serves; the
    // pool is sized for the benchmark's largest point.
    const int threads = options.threads;
    server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    // yuzu-server sets TCP_NODELAY too; without it Nagle and delayed ACKs
    // put ~40 ms on every answer written in two sends.
    server.set_tcp_nodelay(true);
    server.Post("/mcp/v1/", [&options](const httplib::Request& req, httplib::Response& res) {
        const auto body = nlohmann::json::parse(req.body, nullptr, /*allow_exceptions=*/false);
        if (!body.is_object() || !body.contains("method") || !body["method"].is_string()) {
            res.status = 400;
            res.set_content(
                R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad"}})",
                "application/json");
            return;
        }
        const std::string& method = body["method"].get_ref<const std::string&>();
        const std::string* result = nullptr;
        if (method == "tools/call") result = &options.call_result;
        if (method == "tools/list") result = &options.list_result;
        if (result == nullptr) {
            res.status = 200;
            res.set_content(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"no"}})",
                            "application/json");
            return;
        }
        const std::string id = body.contains("id") ? body["id"].dump() : "null";
        std::string out;
        out.reserve(result->size() + id.size() + 40);
        out.append(R"({"jsonrpc":"2.0","id":)").append(id).append(R"(,"result":)");
        out.append(*result).append("}");
        res.set_content(std::move(out), "application/json");
    });
    const int port = server.bind_to_any_port("127.0.0.1");
    if (port <= 0) {
        std::fprintf(stderr, "yuzu-bench-baseline: cannot bind 127.0.0.1\n");
        return 2;
    }
    {
        std::ofstream f(options.port_file + ".tmp");
        f << port << "\n";
    }
    std::rename((options.port_file + ".tmp").c_str(), options.port_file.c_str());
    server.listen_after_bind();
    return 0;
}
