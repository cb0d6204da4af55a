// Source "disks": the mounted filesystems of /proc/self/mounts with their
// sizes from statvfs(3); pseudo filesystems are skipped.
#include <sys/statvfs.h>

#include <algorithm>
#include <array>

#include "inventory/parsers.hpp"
#include "inventory/text_files.hpp"
#include "yuzu/agent/inventory.hpp"

namespace yuzu::agent {
namespace {

// Mount fields escape space, tab, newline and backslash as \ooo octal.
std::string decode_mount_field(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 3 < s.size()) {
            const std::string_view digits = s.substr(i + 1, 3);
            auto v = parse_u64(digits, 8);
            if (v && *v < 256) {
                out.push_back(static_cast<char>(*v));
                i += 3;
                continue;
            }
        }
        out.push_back(s[i]);
    }
    return out;
}

}  // namespace

std::vector<MountEntry> parse_mounts(std::string_view text) {
    std::vector<MountEntry> mounts;
    for (std::string_view line : split_lines(text)) {
        const auto fields = split_fields(line);
        if (fields.size() < 3) continue;
        MountEntry entry{decode_mount_field(fields[0]), decode_mount_field(fields[1]),
                         std::string(fields[2])};
        // A later mount on the same point hides the earlier one.
        std::erase_if(mounts, [&](const MountEntry& m) { return m.mount == entry.mount; });
        mounts.push_back(std::move(entry));
    }
    return mounts;
}

bool is_pseudo_filesystem(std::string_view fstype) {
    static constexpr std::array<std::string_view, 28> kPseudo = {
        "proc",        "sysfs",      "devtmpfs",        "devpts",     "tmpfs",     "ramfs",
        "securityfs",  "cgroup",     "cgroup2",         "pstore",     "bpf",       "autofs",
        "mqueue",      "hugetlbfs",  "debugfs",         "tracefs",    "configfs",  "fusectl",
        "binfmt_misc", "efivarfs",   "rpc_pipefs",      "nsfs",       "selinuxfs", "rootfs",
        "nfsd",        "fuse.lxcfs", "fuse.gvfsd-fuse", "fuse.portal"};
    return std::find(kPseudo.begin(), kPseudo.end(), fstype) != kPseudo.end();
}

SourceReading collect_disks(const InventoryEnv& env) {
    const std::string path = env.paths.proc_root + "/self/mounts";
    auto text = read_text_file(path);
    if (!text.ok()) return SourceReading::unavailable(text.status().message());
    nlohmann::json disks = nlohmann::json::array();
    for (const MountEntry& m : parse_mounts(*text)) {
        if (is_pseudo_filesystem(m.fstype)) continue;
        struct statvfs st {};
        // A mount we cannot stat (permission, gone since the read) has no sizes to report.
        if (::statvfs(m.mount.c_str(), &st) != 0 || st.f_blocks == 0) continue;
        const uint64_t frsize = st.f_frsize ? st.f_frsize : st.f_bsize;
        const uint64_t total = static_cast<uint64_t>(st.f_blocks) * frsize;
        const uint64_t avail = static_cast<uint64_t>(st.f_bavail) * frsize;
        const uint64_t used = static_cast<uint64_t>(st.f_blocks - st.f_bfree) * frsize;
        // As df(1): used / (used + available to unprivileged users).
        const double used_pct =
            used + avail == 0
                ? 0.0
                : round1(100.0 * static_cast<double>(used) / static_cast<double>(used + avail));
        disks.push_back({{"mount", m.mount},
                         {"device", m.device},
                         {"fstype", m.fstype},
                         {"total_bytes", total},
                         {"free_bytes", avail},
                         {"used_pct", used_pct}});
    }
    return SourceReading::ok(dump_json(disks));
}

}  // namespace yuzu::agent
