// Source "os_release": /etc/os-release.
#include <cctype>

#include "inventory/parsers.hpp"
#include "inventory/text_files.hpp"
#include "yuzu/agent/inventory.hpp"

namespace yuzu::agent {
namespace {

// A shell-style value as os-release(5) allows it: "double" quotes with
// backslash escapes, 'single' quotes taken literally, or a bare word.
std::string unquote(std::string_view raw) {
    raw = trim(raw);
    if (raw.empty()) return {};
    const char quote = raw.front();
    if (quote != '"' && quote != '\'') return std::string(raw);
    std::string out;
    for (size_t i = 1; i < raw.size(); ++i) {
        const char c = raw[i];
        if (c == quote) break;
        if (quote == '"' && c == '\\' && i + 1 < raw.size()) {
            const char next = raw[i + 1];
            if (next == '"' || next == '\\' || next == '$' || next == '`') {
                out.push_back(next);
                ++i;
                continue;
            }
        }
        out.push_back(c);
    }
    return out;
}

}  // namespace

nlohmann::json parse_os_release(std::string_view text) {
    nlohmann::json data = nlohmann::json::object();
    for (std::string_view line : split_lines(text)) {
        line = trim(line);
        if (line.empty() || line.front() == '#') continue;
        const size_t eq = line.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;
        std::string key(trim(line.substr(0, eq)));
        for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        data[key] = unquote(line.substr(eq + 1));
    }
    return data;
}

SourceReading collect_os_release(const InventoryEnv& env) {
    const std::string path = env.paths.etc_root + "/os-release";
    auto text = read_text_file(path);
    if (!text.ok()) return SourceReading::unavailable(text.status().message());
    nlohmann::json data = parse_os_release(*text);
    if (data.empty()) return SourceReading::unavailable(path + " has no KEY=value lines");
    return SourceReading::ok(dump_json(data));
}

}  // namespace yuzu::agent
