// disk.usage: capacity of real (block-device or network) filesystems, or of
// the one holding a given path.
#include <sys/statvfs.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "plugins/builtin_plugins.hpp"
#include "plugins/outcome.hpp"
#include "plugins/params.hpp"

namespace yuzu::agent::plugins {
namespace {

// Filesystems worth reporting that are not backed by a /dev node.
const std::set<std::string, std::less<>> kNetworkOrLayered = {
    "nfs", "nfs4", "cifs", "smb3", "smbfs", "overlay", "zfs", "btrfs", "fuseblk", "9p", "virtiofs"};
// Block-backed filesystems that are read-only images, not capacity.
const std::set<std::string, std::less<>> kImageFs = {"squashfs", "iso9660", "erofs"};

bool is_real_mount(const MountEntry& m) {
    if (kImageFs.count(m.fstype) != 0) return false;
    if (kNetworkOrLayered.count(m.fstype) != 0) return true;
    return m.device.rfind("/dev/", 0) == 0;
}

// df's arithmetic: total = blocks, free = available to unprivileged users,
// used% = used / (used + available).
nlohmann::json usage_row(const MountEntry& m) {
    nlohmann::json row = {{"mount", m.mount_point}, {"device", m.device}, {"fstype", m.fstype}};
    struct statvfs vfs {};
    if (::statvfs(m.mount_point.c_str(), &vfs) != 0) {
        row["total_bytes"] = nullptr;
        row["free_bytes"] = nullptr;
        row["used_pct"] = nullptr;
        row["error"] = std::string("statvfs failed: ") + std::strerror(errno);
        return row;
    }
    const uint64_t frsize = vfs.f_frsize != 0 ? vfs.f_frsize : vfs.f_bsize;
    const double used = static_cast<double>(vfs.f_blocks - vfs.f_bfree);
    const double usable = used + static_cast<double>(vfs.f_bavail);
    row["total_bytes"] = static_cast<uint64_t>(vfs.f_blocks) * frsize;
    row["free_bytes"] = static_cast<uint64_t>(vfs.f_bavail) * frsize;
    row["used_pct"] = round_pct(usable > 0 ? used / usable * 100 : 0);
    return row;
}

bool mount_contains(const std::string& mount_point, const std::string& path) {
    if (mount_point == "/") return true;
    return path.compare(0, mount_point.size(), mount_point) == 0 &&
           (path.size() == mount_point.size() || path[mount_point.size()] == '/');
}

struct FreeDeleter {
    void operator()(char* p) const { std::free(p); }
};

PluginOutcome disk_usage(const HostPaths& paths, const std::string& params_json,
                         const PluginLimits& limits) {
    auto params = Params::parse(params_json, {"path"});
    if (!params.ok()) return failure_from(params.status());
    auto path = params->text("path", kMaxPathChars);
    if (!path.ok()) return failure_from(path.status());
    if (path->has_value()) {
        if (auto s = check_absolute_path("path", **path); !s.ok()) return failure_from(s);
    }

    auto text = read_host_file(paths.proc + "/self/mounts");
    if (!text.ok()) return failure("cannot read the mount table: " + text.status().message());
    const auto mounts = parse_mounts(*text);
    const Deadline deadline(limits.timeout);

    if (path->has_value()) {
        // Resolve symlinks so the longest matching mount point is the right one.
        std::unique_ptr<char, FreeDeleter> real(::realpath((*path)->c_str(), nullptr));
        if (!real) {
            return failure("parameter 'path' cannot be resolved: " +
                           std::string(std::strerror(errno)));
        }
        const std::string resolved(real.get());
        const MountEntry* best = nullptr;
        for (const auto& m : mounts) {
            if (mount_contains(m.mount_point, resolved) &&
                (best == nullptr || m.mount_point.size() >= best->mount_point.size())) {
                best = &m;
            }
        }
        if (best == nullptr) return failure("no mounted filesystem holds " + resolved);
        return success({{"filesystems", nlohmann::json::array({usage_row(*best)})}});
    }

    // Later entries over-mount earlier ones at the same point; keep the last.
    std::vector<const MountEntry*> chosen;
    for (const auto& m : mounts) {
        if (!is_real_mount(m)) continue;
        std::erase_if(chosen, [&](const MountEntry* c) { return c->mount_point == m.mount_point; });
        chosen.push_back(&m);
    }
    nlohmann::json filesystems = nlohmann::json::array();
    for (const auto* m : chosen) {
        if (deadline.passed()) return timed_out("timed out reading filesystem usage");
        filesystems.push_back(usage_row(*m));
    }
    return success({{"filesystems", std::move(filesystems)}});
}

}  // namespace

void register_disk_plugins(PluginRegistry& registry, const HostPaths& paths) {
    registry.add(PluginInfo{"disk", "usage",
                            "Size, free space and use of real filesystems (or the one holding "
                            "a path)",
                            false},
                 [paths](const std::string& params_json, const PluginLimits& limits) {
                     return disk_usage(paths, params_json, limits);
                 });
}

}  // namespace yuzu::agent::plugins
