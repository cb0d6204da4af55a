// Registration hooks for the built-in plugin families. Each family lives in
// its own file and adds its actions to a registry, reading the host through
// `paths` so tests can substitute a fixture tree. PluginRegistry::builtin()
// calls register_builtin_plugins with the real host's paths.
// Private to yuzu_agent_plugins.
#pragma once

#include "plugins/host_read.hpp"
#include "yuzu/agent/plugin.hpp"

namespace yuzu::agent::plugins {

void register_os_plugins(PluginRegistry& registry,
                         const HostPaths& paths);  // os.info
void register_process_plugins(PluginRegistry& registry,
                              const HostPaths& paths);  // list, find
void register_service_plugins(PluginRegistry& registry,
                              const HostPaths& paths);  // status, restart
void register_disk_plugins(PluginRegistry& registry,
                           const HostPaths& paths);  // disk.usage
void register_file_plugins(PluginRegistry& registry,
                           const HostPaths& paths);  // exists, hash
void register_network_plugins(PluginRegistry& registry,
                              const HostPaths& paths);  // connections
void register_package_plugins(PluginRegistry& registry,
                              const HostPaths& paths);  // packages.list
void register_reboot_plugins(PluginRegistry& registry,
                             const HostPaths& paths);  // reboot.pending
void register_user_plugins(PluginRegistry& registry,
                           const HostPaths& paths);  // user.sessions
void register_perf_plugins(PluginRegistry& registry,
                           const HostPaths& paths);  // perf.snapshot

// Every family above.
void register_builtin_plugins(PluginRegistry& registry, const HostPaths& paths);

}  // namespace yuzu::agent::plugins
