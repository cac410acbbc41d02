// Character-device registry: the /dev nodes and the driver behind each (the kernel's
// register_chrdev + the devtmpfs entries). Drivers register at module init; sys_open looks here.
#include <map>
#include <mutex>

#include "internal.h"

namespace minicuda::kernel {

namespace {
std::mutex& registry_mutex() {
  static auto* m = new std::mutex;  // never destroyed: drivers may release files during exit
  return *m;
}
// guarded by registry_mutex()
std::map<std::string, DeviceNode>& registry() {
  static auto* nodes = new std::map<std::string, DeviceNode>;
  return *nodes;
}
}  // namespace

long register_chrdev(const std::string& path, unsigned major, unsigned minor, const FileOperations* fops) {
  std::lock_guard lock(registry_mutex());
  auto [it, inserted] = registry().try_emplace(path, DeviceNode{path, major, minor, fops});
  return inserted ? 0 : -kEBUSY;
}

void unregister_chrdev(const std::string& path) {
  std::lock_guard lock(registry_mutex());
  registry().erase(path);
}

bool lookup_chrdev(const std::string& path, DeviceNode* out) {
  std::lock_guard lock(registry_mutex());
  auto it = registry().find(path);
  if (it == registry().end()) return false;
  *out = it->second;
  return true;
}

void boot() {
  static std::once_flag once;
  std::call_once(once, [] {
    nvidia_module_init();
    nvidia_uvm_module_init();
  });
}

}  // namespace minicuda::kernel
