// Private to the kernel library: the device-node registry and the module entry points.
#pragma once
#include <memory>
#include <string>

#include "minicuda/kernel.h"

namespace minicuda::kernel {

struct DeviceNode {
  std::string path;
  unsigned major = 0, minor = 0;
  const FileOperations* fops = nullptr;
};

// The node registered at path; false if none.
bool lookup_chrdev(const std::string& path, DeviceNode* out);

// Called once by boot(): the module_init of nvidia.ko and nvidia-uvm.ko (driver/kernel/nvidia_ko).
void nvidia_module_init();
void nvidia_uvm_module_init();

// Drops a file reference; calls the driver's release when it was the last one.
void release_file(std::shared_ptr<File>& file);

}  // namespace minicuda::kernel
