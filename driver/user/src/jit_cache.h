// Private to libcuda: the JIT cache (jit_cache.cpp). As the real driver does, compiled PTX is
// kept on disk, in $CUDA_CACHE_PATH or ~/.nv/ComputeCache, keyed by a 64-bit hash of the PTX
// text, the target and the options that change code, so a second process that loads the same
// PTX skips the compiler. The layout is the recorded one (tests/data/h200/module/cache/README.md):
// the entry of key 0x0ad9b60aba70573e is the file 0/a/d9b60aba70573e, and `index` lists each
// key with its payload's size. The payload is minicuda's own (the JIT's result serialized, with
// a magic, a version and a checksum); an entry that does not read back is a miss.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "minicuda/ptx/ptx.h"

namespace minicuda::libcuda::jit_cache {

// The cache's settings, read from the environment at each use: CUDA_CACHE_PATH (the folder),
// CUDA_CACHE_DISABLE=1 (neither read nor written), CUDA_CACHE_MAXSIZE (bytes the payloads may
// take; the oldest entries are evicted beyond it; default 256 MiB), CUDA_FORCE_PTX_JIT=1 (every
// load compiles: hits are ignored, the entry is still written).
struct Settings {
  std::string path;
  bool disabled = false;
  bool force_jit = false;
  uint64_t max_bytes = 256ull << 20;
};
Settings settings();

// The key of (PTX text, options): FNV-1a 64 over the text, the target, the options that change
// code and the payload format's version.
uint64_t key_of(const std::string& ptx, const ptx::CompileOptions& options);
// The entry's file below the cache folder: "0/a/d9b60aba70573e" for 0x0ad9b60aba70573e.
std::string entry_path(uint64_t key);

// The JIT's result serialized (a successful compile only), and read back: nullopt when the
// bytes are not a whole, uncorrupted payload of this format.
std::string serialize(const ptx::CompileResult& result, uint64_t key);
std::optional<ptx::CompileResult> deserialize(const std::string& bytes, uint64_t key);

// The entry of key, or nullopt (a miss: no file, or one that does not read back).
std::optional<ptx::CompileResult> lookup(const Settings& s, uint64_t key);
// Writes the entry of key (atomically: a temporary file renamed), adds it to the index and
// evicts the oldest entries beyond s.max_bytes. Failures to write leave the cache as it was.
void store(const Settings& s, uint64_t key, const ptx::CompileResult& result);

}  // namespace minicuda::libcuda::jit_cache
