// Where the inventory readers find the host's files. Production uses the
// defaults; tests point the roots at fixture trees in a temporary directory.
//
// Thread-safety: a plain value; copy it freely.
#pragma once

#include <string>

namespace yuzu::agent {

struct HostPaths {
    std::string proc_root = "/proc";    // meminfo, stat, uptime, loadavg, net/tcp, [pid]/...
    std::string etc_root = "/etc";      // os-release, passwd, debian_version
    std::string run_root = "/var/run";  // reboot-required, reboot-required.pkgs
    std::string disk_path = "/";        // the filesystem heartbeats report disk_used_pct of
};

}  // namespace yuzu::agent
