// Processes: the pid, the file-descriptor table and the address space of a simulated process,
// and which process each host thread runs as. A plain host program is one simulated process
// (pid 1000), created at its first system call; tests spawn more to check isolation.
#include <atomic>

#include "internal.h"

namespace minicuda::kernel {

namespace {
std::atomic<int> g_next_pid{1000};
thread_local Process* t_current = nullptr;

Process& initial_process() {
  // Intentionally never destroyed: drivers may still release files during static destruction.
  static Process* process = new Process(g_next_pid.fetch_add(1));
  return *process;
}
}  // namespace

Process::Process(int pid) : pid_(pid), fds_(3) {}

Process::~Process() { close_all(); }

std::shared_ptr<File> Process::file(int fd) const {
  std::lock_guard lock(mutex_);
  if (fd < 0 || static_cast<size_t>(fd) >= fds_.size()) return nullptr;
  return fds_[fd];
}

size_t Process::open_files() const {
  std::lock_guard lock(mutex_);
  size_t n = 0;
  for (const auto& f : fds_) n += f != nullptr;
  return n;
}

int Process::install(std::shared_ptr<File> file) {
  std::lock_guard lock(mutex_);
  constexpr size_t kMaxFds = 1024;  // RLIMIT_NOFILE's usual soft limit
  for (size_t fd = 3; fd < fds_.size(); ++fd) {
    if (!fds_[fd]) {
      fds_[fd] = std::move(file);
      return static_cast<int>(fd);
    }
  }
  if (fds_.size() >= kMaxFds) return static_cast<int>(-kEMFILE);
  fds_.push_back(std::move(file));
  return static_cast<int>(fds_.size() - 1);
}

std::shared_ptr<File> Process::remove(int fd) {
  std::lock_guard lock(mutex_);
  if (fd < 3 || static_cast<size_t>(fd) >= fds_.size()) return nullptr;
  return std::move(fds_[fd]);
}

void Process::close_all() {
  std::vector<std::shared_ptr<File>> files;
  {
    std::lock_guard lock(mutex_);
    for (auto& f : fds_) {
      if (f) files.push_back(std::move(f));
    }
  }
  // Descriptors first, then the files only mappings still hold: each driver sees release() when
  // its file's last reference goes, as at a real process exit.
  for (auto& f : files) release_file(f);
  std::vector<std::shared_ptr<File>> mapped = mm_.take_mapped_files();
  for (auto& f : mapped) release_file(f);
}

void release_file(std::shared_ptr<File>& file) {
  // The driver sees release() when the last reference (descriptor or mapping) goes away.
  if (file.use_count() == 1 && file->fops && file->fops->release) file->fops->release(*file);
  file.reset();
}

Process& current() {
  if (t_current) return *t_current;
  return initial_process();
}

ProcessScope::ProcessScope(Process& process) : previous_(t_current) { t_current = &process; }

ProcessScope::~ProcessScope() { t_current = previous_; }

std::unique_ptr<Process> spawn_process() { return std::make_unique<Process>(g_next_pid.fetch_add(1)); }

}  // namespace minicuda::kernel
