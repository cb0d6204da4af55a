// Source "memory": /proc/meminfo.
#include "inventory/parsers.hpp"
#include "inventory/text_files.hpp"
#include "yuzu/agent/inventory.hpp"

namespace yuzu::agent {

nlohmann::json parse_meminfo(std::string_view text) {
    static const std::pair<std::string_view, const char*> kFields[] = {
        {"MemTotal", "total_bytes"},
        {"MemAvailable", "available_bytes"},
        {"SwapTotal", "swap_total_bytes"},
        {"SwapFree", "swap_free_bytes"},
    };
    nlohmann::json data = nlohmann::json::object();
    for (std::string_view line : split_lines(text)) {
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        const std::string_view key = line.substr(0, colon);
        for (const auto& [name, out] : kFields) {
            if (key != name) continue;
            // "MemTotal:       16318256 kB": the kernel always counts in KiB here.
            const auto fields = split_fields(line.substr(colon + 1));
            if (fields.empty()) break;
            auto kib = parse_u64(fields[0]);
            const bool kb_unit = fields.size() == 1 || fields[1] == "kB";
            if (kib && kb_unit) data[out] = *kib * 1024;
            break;
        }
    }
    return data;
}

SourceReading collect_memory(const InventoryEnv& env) {
    const std::string path = env.paths.proc_root + "/meminfo";
    auto text = read_text_file(path);
    if (!text.ok()) return SourceReading::unavailable(text.status().message());
    nlohmann::json data = parse_meminfo(*text);
    if (!data.contains("total_bytes")) return SourceReading::unavailable(path + " has no MemTotal");
    return SourceReading::ok(dump_json(data));
}

}  // namespace yuzu::agent
