// bus: the routes from host addresses to device registers (see minicuda/bus.h).
#include "minicuda/bus.h"

#include <iterator>
#include <map>
#include <mutex>
#include <shared_mutex>

namespace minicuda::bus {
namespace {

struct Route {
  uint64_t end;  // one past the last byte
  WriteHandler handler;
  void* device;
  const void* owner;
};

struct Routes {
  std::shared_mutex mutex;
  std::map<uint64_t, Route> by_base;  // guarded by mutex
};

Routes& routes_table() {
  // Never destroyed: a process's last stores may come while static objects are destroyed at exit.
  static auto* table = new Routes;
  return *table;
}

}  // namespace

void map(void* base, uint64_t length, WriteHandler handler, void* device, const void* owner) {
  Routes& t = routes_table();
  const uint64_t start = reinterpret_cast<uint64_t>(base), end = start + length;
  std::unique_lock lock(t.mutex);
  auto it = t.by_base.lower_bound(start);
  if (it != t.by_base.begin() && std::prev(it)->second.end > start) --it;
  while (it != t.by_base.end() && it->first < end) it = t.by_base.erase(it);  // overlapping: replaced
  t.by_base[start] = Route{end, handler, device, owner};
}

void unmap_owner(const void* owner) {
  Routes& t = routes_table();
  std::unique_lock lock(t.mutex);
  for (auto it = t.by_base.begin(); it != t.by_base.end();) {
    if (it->second.owner == owner) it = t.by_base.erase(it);
    else ++it;
  }
}

uint64_t routes() {
  Routes& t = routes_table();
  std::shared_lock lock(t.mutex);
  return t.by_base.size();
}

void write32(volatile uint32_t* address, uint32_t value) {
  *address = value;  // the store itself: the page holds the last value written
  Routes& t = routes_table();
  const uint64_t a = reinterpret_cast<uint64_t>(address);
  std::shared_lock lock(t.mutex);
  auto it = t.by_base.upper_bound(a);
  if (it == t.by_base.begin()) return;
  --it;
  if (a + sizeof(uint32_t) > it->second.end) return;  // no route: plain memory
  it->second.handler(it->second.device, a - it->first, value);
}

}  // namespace minicuda::bus
