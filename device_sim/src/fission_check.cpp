// fission_check: saving, rewinding and comparing what a grid wrote (see fission_check.h).
#include "fission_check.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

namespace minicuda::gpu {

namespace {

// Whether all `length` bytes at `at` are 0: a grid's memory is mostly untouched zeros (the
// context's own local memory alone is 414 MiB on the H200), which need no copy.
bool all_zero(const uint8_t* at, uint64_t length) {
  return length == 0 || (at[0] == 0 && std::memcmp(at, at + 1, length - 1) == 0);
}

}  // namespace

FissionCheck::FissionCheck(const Mmu& mmu, uint8_t* printf_buffer, uint32_t printf_bytes) {
  auto save = [this](uint8_t* at, uint64_t length) {
    for (uint64_t off = 0; off < length; off += kChunkBytes) {
      Range r;
      r.at = at + off;
      r.length = std::min(kChunkBytes, length - off);
      r.saved_zero = all_zero(r.at, r.length);
      if (!r.saved_zero) r.saved.assign(r.at, r.at + r.length);
      ranges_.push_back(std::move(r));
    }
    bytes_ += length;
  };
  for (const auto& [va, length] : mmu.writable_vidmem()) save(reinterpret_cast<uint8_t*>(va), length);
  if (printf_buffer != nullptr && printf_bytes != 0) save(printf_buffer, printf_bytes);
}

void FissionCheck::rewind() {
  for (Range& r : ranges_) {
    r.fibers_zero = all_zero(r.at, r.length);
    if (!r.fibers_zero) r.fibers.assign(r.at, r.at + r.length);
    if (r.saved_zero) {
      if (!r.fibers_zero) std::memset(r.at, 0, r.length);
    } else {
      std::memcpy(r.at, r.saved.data(), r.length);
    }
  }
}

std::optional<std::string> FissionCheck::first_difference() const {
  for (const Range& r : ranges_) {
    if (r.fibers_zero ? all_zero(r.at, r.length) : std::memcmp(r.at, r.fibers.data(), r.length) == 0) continue;
    auto fibers = [&](uint64_t i) -> uint8_t { return r.fibers_zero ? 0 : r.fibers[i]; };
    auto saved = [&](uint64_t i) -> uint8_t { return r.saved_zero ? 0 : r.saved[i]; };
    uint64_t i = 0;
    while (r.at[i] == fibers(i)) ++i;
    return fmt::format("the byte at {:#x} is {:#04x} after the regions and {:#04x} after the fibers (it was {:#04x})",
                       reinterpret_cast<uint64_t>(r.at + i), r.at[i], fibers(i), saved(i));
  }
  return std::nullopt;
}

namespace {

struct Totals {
  std::mutex mutex;
  uint64_t launches = 0;  // guarded by mutex
  uint64_t different = 0;
  bool reported = false;
};

Totals& totals() {
  static Totals* t = new Totals;  // never destroyed: the summary is printed at exit
  return *t;
}

void print_summary() {
  Totals& t = totals();
  std::lock_guard lock(t.mutex);
  std::fprintf(stderr, "minicuda: fission check: %llu launches of split kernels compared, %llu differed\n",
               static_cast<unsigned long long>(t.launches), static_cast<unsigned long long>(t.different));
}

}  // namespace

void record_fission_check(const std::string& kernel, bool same) {
  Totals& t = totals();
  std::lock_guard lock(t.mutex);
  ++t.launches;
  if (!same) ++t.different;
  if (!t.reported) {
    t.reported = true;
    std::atexit(print_summary);
  }
  if (const char* path = std::getenv("MINICUDA_FISSION_CHECK_LOG"); path != nullptr && *path != '\0') {
    if (std::FILE* log = std::fopen(path, "a")) {
      std::fprintf(log, "%s %s\n", kernel.c_str(), same ? "same" : "different");
      std::fclose(log);
    }
  }
}

}  // namespace minicuda::gpu
