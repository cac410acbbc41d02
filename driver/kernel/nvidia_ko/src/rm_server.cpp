// The resource manager's object tree (RM "resource server").
//
// Every RM object has a 32-bit handle, a class and a parent. A process first allocates a root
// client (class NV01_ROOT_CLIENT, 0x41): RM picks its handle from 0xC1D00000 on. Every other
// object lives inside a client, under a parent of a legal class (rm_class()->parents, after
// resource_list.h), with a handle the caller chooses (libcuda uses 0x5c000001, ...) or RM picks
// (0xcaf00000 on, RS_UNIQUE_HANDLE_BASE). Freeing an object frees its subtree, children first.
//
// A client belongs to the /dev/nvidiactl file it was allocated on: any other file - of another
// process, or another open of the node - gets NV_ERR_INVALID_CLIENT, so a process can never use
// or free another's objects.
#include <algorithm>

#include "minicuda/trace.h"
#include "nv_internal.h"

namespace minicuda::nvidia {

namespace {
constexpr NvHandle kClientHandleBase = 0xC1D00000;  // RS_CLIENT_HANDLE_BASE
constexpr NvHandle kUniqueHandleBase = 0xCAF00000;  // RS_UNIQUE_HANDLE_BASE

// guarded by nv_lock()
std::map<NvHandle, RmClient>& clients() {
  static auto* table = new std::map<NvHandle, RmClient>;  // never destroyed (see nv_lock)
  return *table;
}
NvU32 g_client_serial = 0;  // guarded by nv_lock()

std::string cls(NvU32 c) {
  const char* n = nv_class_name(c);
  return n ? std::string(n) : fmt::format("{:#x}", c);
}

void destroy_subtree(RmClient& client, NvHandle handle) {
  auto it = client.objects.find(handle);
  if (it == client.objects.end()) return;
  // Copy: destroying children edits this vector.
  std::vector<NvHandle> children = it->second.children;
  for (auto child = children.rbegin(); child != children.rend(); ++child) destroy_subtree(client, *child);
  RmObject& object = client.objects.at(handle);
  nv_memory_freed(object);
  nv_select_gpu(object.gpu);
  if (const RmClass* c = rm_class(object.hclass); c && c->destruct) c->destruct(object);
  trace::note(trace::Layer::Nvidia, "rm: free {} {}", cls(object.hclass), hstr(handle));
  NvHandle parent = object.parent;
  client.objects.erase(handle);
  if (auto p = client.objects.find(parent); p != client.objects.end() && parent != handle) {
    auto& siblings = p->second.children;
    siblings.erase(std::remove(siblings.begin(), siblings.end(), handle), siblings.end());
  }
}

// Frees the subtree at root (the whole client when root is the client handle). Its channels
// go first, wherever they sit in it: a channel's destruction stops the GPU's work on it (and
// waits out work in flight), so no engine can touch the memory freed after it. Then the rest,
// children first.
void destroy_channels_first(RmClient& client, NvHandle root) {
  std::vector<NvHandle> channels, pending{root};
  while (!pending.empty()) {
    NvHandle h = pending.back();
    pending.pop_back();
    auto it = client.objects.find(h);
    if (it == client.objects.end()) continue;
    if (it->second.hclass == HOPPER_CHANNEL_GPFIFO_A) channels.push_back(h);
    for (NvHandle child : it->second.children) {
      if (child != h) pending.push_back(child);
    }
  }
  for (NvHandle channel : channels) destroy_subtree(client, channel);
  destroy_subtree(client, root);
}

NV_STATUS alloc_client(kernel::File* file, NvHandle* hObject) {
  NvHandle handle = *hObject;
  if (handle == 0) {
    do {  // skip handles a caller took explicitly
      handle = kClientHandleBase + (++g_client_serial);
    } while (clients().count(handle));
  } else if ((handle & 0xFFF00000) != kClientHandleBase && (handle & 0xFFF00000) != kUniqueHandleBase) {
    return NV_ERR_INVALID_OBJECT_NEW;
  }
  if (clients().count(handle)) return NV_ERR_INVALID_OBJECT_NEW;
  RmClient client;
  client.handle = handle;
  client.owner = file;
  client.pid = file->process ? file->process->pid() : 0;
  RmObject root;
  root.handle = handle;
  root.hclass = NV01_ROOT_CLIENT;
  root.parent = handle;
  client.objects[handle] = root;
  clients()[handle] = std::move(client);
  *hObject = handle;
  trace::note(trace::Layer::Nvidia, "rm: new client {} for pid {}", hstr(handle), clients()[handle].pid);
  nv_smi_start();  // the program uses the GPU: its status file appears (nv_smi.cpp)
  return NV_OK;
}
}  // namespace

std::string hstr(NvHandle h) { return fmt::format("{:#010x}", h); }

const std::map<NvHandle, RmClient>& rm_clients() { return clients(); }

RmClient* rm_client(kernel::File* file, NvHandle hClient) {
  auto it = clients().find(hClient);
  if (it == clients().end() || it->second.owner != file) return nullptr;
  return &it->second;
}

const RmObject* rm_memory(kernel::File* file, NvHandle hClient, NvHandle hMemory) {
  return rm_object(file, hClient, hMemory, {NV01_MEMORY_LOCAL_USER, NV01_MEMORY_SYSTEM, NV01_MEMORY_SYSTEM_OS_DESCRIPTOR});
}

RmObject* rm_object(kernel::File* file, NvHandle hClient, NvHandle hObject, std::initializer_list<NvU32> classes) {
  RmClient* client = rm_client(file, hClient);
  if (!client) return nullptr;
  auto it = client->objects.find(hObject);
  if (it == client->objects.end()) return nullptr;
  if (std::find(classes.begin(), classes.end(), it->second.hclass) == classes.end()) return nullptr;
  return &it->second;
}

NV_STATUS rm_alloc(kernel::File* file, NvHandle hClient, NvHandle hParent, NvHandle* hObject, NvU32 hClass,
                   void* params, NvU32 params_size) {
  // Userspace may ask for NV01_ROOT or NV01_ROOT_NON_PRIV; RM rewrites both to NV01_ROOT_CLIENT.
  if (hClass == NV01_ROOT || hClass == NV01_ROOT_NON_PRIV) hClass = NV01_ROOT_CLIENT;
  if (hClass == NV01_ROOT_CLIENT) return alloc_client(file, hObject);

  RmClient* client = rm_client(file, hClient);
  if (!client) return NV_ERR_INVALID_CLIENT;
  const RmClass* c = rm_class(hClass);
  // OS descriptors are made by NV_ESC_RM_ALLOC_MEMORY only (rm_alloc_os_descriptor).
  if (!c || hClass == NV01_MEMORY_SYSTEM_OS_DESCRIPTOR) return NV_ERR_INVALID_CLASS;
  auto parent = client->objects.find(hParent);
  if (parent == client->objects.end()) return NV_ERR_INVALID_OBJECT_PARENT;
  if (std::find(c->parents.begin(), c->parents.end(), parent->second.hclass) == c->parents.end()) {
    trace::note(trace::Layer::Nvidia, "rm: {} may not be a child of {}", cls(hClass), cls(parent->second.hclass));
    return NV_ERR_INVALID_OBJECT_PARENT;
  }
  if (params_size != 0 && params_size != c->params_size) return NV_ERR_INVALID_PARAM_STRUCT;
  if (c->params_required && params == nullptr) return NV_ERR_INVALID_ARGUMENT;

  NvHandle handle = *hObject;
  if (handle == 0) {
    do {
      handle = kUniqueHandleBase + client->next_unique++;
    } while (client->objects.count(handle));
  }
  if (client->objects.count(handle) || (handle & 0xFFF00000) == kClientHandleBase) return NV_ERR_INVALID_OBJECT_NEW;

  RmObject object;
  object.handle = handle;
  object.hclass = hClass;
  object.parent = hParent;
  object.gpu = parent->second.gpu;
  if (hClass == NV01_DEVICE_0 && params != nullptr) {
    // The device instance names the GPU (GPU_GET_ID_INFO_V2's deviceInstance).
    const NvU32 instance = static_cast<NV0080_ALLOC_PARAMETERS*>(params)->deviceId;
    if (instance >= static_cast<NvU32>(nv_gpu_count())) return NV_ERR_INVALID_ARGUMENT;
    object.gpu = static_cast<int>(instance);
  }
  nv_select_gpu(object.gpu);
  NV_STATUS status = c->construct ? c->construct(*client, object, params) : NV_OK;
  if (status != NV_OK) return status;
  client->objects[handle] = object;
  client->objects[hParent].children.push_back(handle);
  *hObject = handle;
  return NV_OK;
}

NV_STATUS rm_insert_object(RmClient& client, const RmObject& object) {
  const RmClass* c = rm_class(object.hclass);
  auto parent = client.objects.find(object.parent);
  if (c == nullptr || parent == client.objects.end() ||
      std::find(c->parents.begin(), c->parents.end(), parent->second.hclass) == c->parents.end())
    return NV_ERR_INVALID_OBJECT_PARENT;
  if (object.handle == 0 || client.objects.count(object.handle) || (object.handle & 0xFFF00000) == kClientHandleBase)
    return NV_ERR_INVALID_OBJECT_NEW;
  client.objects[object.handle] = object;
  parent->second.children.push_back(object.handle);
  return NV_OK;
}

NV_STATUS rm_free(kernel::File* file, NvHandle hClient, NvHandle hParent, NvHandle hObject) {
  RmClient* client = rm_client(file, hClient);
  if (!client) return NV_ERR_INVALID_CLIENT;
  if (hObject == hClient) {
    // Freeing the client frees everything it holds.
    destroy_channels_first(*client, hClient);
    clients().erase(hClient);
    trace::note(trace::Layer::Nvidia, "rm: client {} freed", hstr(hClient));
    return NV_OK;
  }
  auto it = client->objects.find(hObject);
  if (it == client->objects.end()) return NV_ERR_INVALID_OBJECT_HANDLE;
  // NVOS00's hObjectParent must name the object's real parent (0 is tolerated, as RM does).
  if (hParent != 0 && it->second.parent != hParent) return NV_ERR_INVALID_OBJECT_PARENT;
  destroy_channels_first(*client, hObject);
  return NV_OK;
}

void rm_free_file_clients(kernel::File* file) {
  std::vector<NvHandle> owned;
  for (auto& [handle, client] : clients()) {
    if (client.owner == file) owned.push_back(handle);
  }
  for (NvHandle h : owned) {
    trace::note(trace::Layer::Nvidia, "rm: file closed: freeing client {}", hstr(h));
    destroy_channels_first(clients().at(h), h);
    clients().erase(h);
  }
}

}  // namespace minicuda::nvidia

// --- for gdb (tools/gdb/minicuda_gdb.py) --------------------------------------------------------
// Called by the debugger in a stopped program, never by minicuda itself: they read RM's tables
// without nv_lock() (the program is stopped; taking a lock another stopped thread holds would
// hang the debugger) and return text in a buffer that stays valid until the next call.

namespace minicuda::nvidia {
namespace {
std::string& gdb_buffer() {
  static auto* text = new std::string;  // never destroyed: gdb may call during exit
  return *text;
}
void describe_object(const RmClient& client, NvHandle handle, const std::string& indent, bool last,
                     std::string& out) {
  auto it = client.objects.find(handle);
  if (it == client.objects.end()) return;
  const RmObject& object = it->second;
  const bool root = handle == client.handle;
  out += root ? fmt::format("client {} ({})", hstr(handle), cls(object.hclass))
              : fmt::format("{}{} {} {}", indent, last ? "└─" : "├─", hstr(handle), cls(object.hclass));
  if (object.size != 0) out += fmt::format(", {} B", object.size);
  if (object.chid != 0) out += fmt::format(", channel {}", object.chid);
  out += "\n";
  const std::string below = root ? "" : indent + (last ? "   " : "│  ");
  for (size_t k = 0; k < object.children.size(); ++k)
    describe_object(client, object.children[k], below, k + 1 == object.children.size(), out);
}
}  // namespace

}  // namespace minicuda::nvidia

// Every client's object tree, one object per line ("├─ 0x5c000002 NV20_SUBDEVICE_0").
extern "C" [[gnu::used]] const char* minicuda_gdb_rm_tree() {
  using namespace minicuda::nvidia;
  std::string& out = gdb_buffer();
  out.clear();
  for (const auto& [handle, client] : clients()) describe_object(client, handle, "", true, out);
  if (out.empty()) out = "no RM client (cuInit has not run)\n";
  return out.c_str();
}

// One handle: its class, its parent and its client ("0x5c000002 NV20_SUBDEVICE_0, parent
// 0x5c000001, client 0xc1d00001"), or "" when no client holds it.
extern "C" [[gnu::used]] const char* minicuda_gdb_rm_handle(uint32_t handle) {
  using namespace minicuda::nvidia;
  std::string& out = gdb_buffer();
  out.clear();
  for (const auto& [h, client] : clients()) {
    auto it = client.objects.find(handle);
    if (it == client.objects.end()) continue;
    out = it->second.parent == handle || handle == client.handle
              ? fmt::format("{} {}", hstr(handle), cls(it->second.hclass))
              : fmt::format("{} {}, parent {}, client {}", hstr(handle), cls(it->second.hclass),
                            hstr(it->second.parent), hstr(client.handle));
    break;
  }
  return out.c_str();
}
