// RM objects shared through file descriptors (the real RM's osunix export, ctrl0000unix.h).
//
// NV0000_CTRL_CMD_OS_UNIX_EXPORT_OBJECT_TO_FD binds a memory object to a file of /dev/nvidiactl
// that the caller opened for it; from then on the fd names the object's memory, even after the
// object itself is freed, until the fd is closed. NV0000_CTRL_CMD_OS_UNIX_IMPORT_OBJECT_FROM_FD
// makes a new object in the caller's client that shares that memory (a dup). libcuda uses the pair
// for cuMemExportToShareableHandle / cuMemImportFromShareableHandle
// (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR). Only video memory (NV01_MEMORY_LOCAL_USER) is
// exported here; its references are counted by vidmem_ref / vidmem_unref.
#include <cstring>

#include "minicuda/trace.h"
#include "nv_internal.h"

namespace minicuda::nvidia {

namespace {

// The NvFile of fd in the calling process if it is an open /dev/nvidiactl, else null.
NvFile* control_file_of(int fd) {
  std::shared_ptr<kernel::File> f = kernel::current().file(fd);
  if (!f || f->fops == nullptr || std::strcmp(f->fops->name, "nvidia") != 0 || f->private_data == nullptr)
    return nullptr;
  auto* nvf = static_cast<NvFile*>(f->private_data);
  return nvf->kind == NodeKind::Control ? nvf : nullptr;
}

}  // namespace

// Contract: binds object.data.rmObject.hObject (a video-memory object of `client`) to p->fd, an
// open /dev/nvidiactl of the calling process not bound yet; the fd holds a reference on the
// memory. Wrong params size: NV_ERR_INVALID_PARAM_STRUCT; a type other than RM, flags other than
// 0: NV_ERR_INVALID_ARGUMENT; an fd that is not such a file: NV_ERR_INVALID_ARGUMENT; an unknown
// object: NV_ERR_OBJECT_NOT_FOUND; an object that is not video memory: NV_ERR_NOT_SUPPORTED.
NV_STATUS rm_export_object_to_fd(kernel::File*, RmClient& client, void* params, NvU32 size) {
  if (size != sizeof(NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_PARAMS)) return NV_ERR_INVALID_PARAM_STRUCT;
  auto* p = static_cast<NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TO_FD_PARAMS*>(params);
  if (p->object.type != NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM || p->flags != 0) return NV_ERR_INVALID_ARGUMENT;
  NvFile* target = control_file_of(p->fd);
  if (target == nullptr || target->exported.valid) return NV_ERR_INVALID_ARGUMENT;
  auto it = client.objects.find(p->object.data.rmObject.hObject);
  if (it == client.objects.end()) return NV_ERR_OBJECT_NOT_FOUND;
  const RmObject& object = it->second;
  if (object.hclass != NV01_MEMORY_LOCAL_USER) return NV_ERR_NOT_SUPPORTED;
  vidmem_ref(object.gpu, object.phys);
  target->exported = NvFile::Exported{true, object.gpu, object.phys, object.size};
  trace::note(trace::Layer::Nvidia, "rm: fd {} now names {} ({} MiB of VRAM at +{:#x})", p->fd, hstr(object.handle),
              object.size >> 20, object.phys);
  return NV_OK;
}

// Contract: makes object.data.rmObject.hObject, a new NV01_MEMORY_LOCAL_USER object of `client`
// under hParent (a device), sharing the memory bound to p->fd. Wrong params size:
// NV_ERR_INVALID_PARAM_STRUCT; a type other than RM, an fd with nothing bound:
// NV_ERR_INVALID_ARGUMENT; a parent that cannot hold it or a handle in use:
// NV_ERR_INVALID_OBJECT_PARENT / NV_ERR_INVALID_OBJECT_NEW.
NV_STATUS rm_import_object_from_fd(kernel::File*, RmClient& client, void* params, NvU32 size) {
  if (size != sizeof(NV0000_CTRL_OS_UNIX_IMPORT_OBJECT_FROM_FD_PARAMS)) return NV_ERR_INVALID_PARAM_STRUCT;
  auto* p = static_cast<NV0000_CTRL_OS_UNIX_IMPORT_OBJECT_FROM_FD_PARAMS*>(params);
  if (p->object.type != NV0000_CTRL_OS_UNIX_EXPORT_OBJECT_TYPE_RM) return NV_ERR_INVALID_ARGUMENT;
  NvFile* source = control_file_of(p->fd);
  if (source == nullptr || !source->exported.valid) return NV_ERR_INVALID_ARGUMENT;
  RmObject object;
  object.handle = p->object.data.rmObject.hObject;
  object.hclass = NV01_MEMORY_LOCAL_USER;
  object.parent = p->object.data.rmObject.hParent;
  object.gpu = source->exported.gpu;
  object.size = source->exported.size;
  object.phys = source->exported.phys;
  auto parent = client.objects.find(object.parent);
  if (parent != client.objects.end() && parent->second.gpu != object.gpu) return NV_ERR_INVALID_DEVICE;
  if (NV_STATUS s = rm_insert_object(client, object); s != NV_OK) return s;
  vidmem_ref(object.gpu, object.phys);
  trace::note(trace::Layer::Nvidia, "rm: {} shares the {} MiB of VRAM at +{:#x} that fd {} names", hstr(object.handle),
              object.size >> 20, object.phys, p->fd);
  return NV_OK;
}

void rm_export_released(NvFile& file) {
  vidmem_unref(file.exported.gpu, file.exported.phys, file.exported.size);
  file.exported = NvFile::Exported{};
}

}  // namespace minicuda::nvidia
