// The JIT cache on disk (jit_cache.h): the entry files, the index, and the payload format.
#include "jit_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "nv_sass.h"

namespace minicuda::libcuda::jit_cache {
namespace {

constexpr uint32_t kPayloadMagic = 0x544A434Du;  // "MCJT"
constexpr uint32_t kPayloadVersion = 5;           // bump when the payload's layout or the JIT's output changes
constexpr uint32_t kIndexVersion = 0x4D;          // minicuda's index: the real one's layout, its own version
constexpr uint32_t kMaxCount = 1u << 24;          // no list in a payload is longer

uint64_t fnv1a(const void* data, size_t n, uint64_t h = 0xcbf29ce484222325ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

class Writer {
 public:
  template <typename T>
  void put(const T& v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void str(const std::string& s) {
    put(static_cast<uint32_t>(s.size()));
    out += s;
  }
  void u32s(const std::vector<uint32_t>& v) {
    put(static_cast<uint32_t>(v.size()));
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(uint32_t));
  }
  std::string out;
};

class Reader {
 public:
  explicit Reader(const std::string& b, size_t at = 0) : bytes(b), at(at) {}
  template <typename T>
  T get() {
    T v{};
    if (bytes.size() - at < sizeof v) {
      ok = false;
      return v;
    }
    std::memcpy(&v, bytes.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  // n bytes, or false (and nothing read) when fewer are left.
  bool take(size_t n, const char** p) {
    if (!ok || bytes.size() - at < n) return ok = false;
    *p = bytes.data() + at;
    at += n;
    return true;
  }
  std::string str() {
    uint32_t n = get<uint32_t>();
    const char* p = nullptr;
    return ok && take(n, &p) ? std::string(p, n) : std::string();
  }
  std::vector<uint32_t> u32s() {
    uint32_t n = get<uint32_t>();
    const char* p = nullptr;
    std::vector<uint32_t> v;
    if (!ok || n > kMaxCount || !take(size_t{n} * sizeof(uint32_t), &p)) return ok = false, v;
    v.resize(n);
    if (n != 0) std::memcpy(v.data(), p, size_t{n} * sizeof(uint32_t));  // an empty vector's data() may be null
    return v;
  }
  uint32_t count() {
    uint32_t n = get<uint32_t>();
    if (n > kMaxCount) ok = false;
    return ok ? n : 0;
  }
  const std::string& bytes;
  size_t at;
  bool ok = true;
};

// A program read back from the cache, and the storage its pointers point into.
struct OwnedProgram {
  NvSassProgram program{};
  std::string name;
  std::vector<NvSassInstruction> instructions;
  std::vector<NvU64> symbols;
  std::vector<std::string> files;
  std::vector<const char*> file_names;
};

void write_program(Writer& w, const NvSassProgram& p) {
  w.put(p.instruction_count), w.put(p.register_count), w.put(p.predicate_count), w.put(p.param_bytes);
  w.put(p.shared_bytes), w.put(p.local_bytes), w.put(p.symbol_count), w.put(p.target_sm), w.put(p.max_call_depth);
  for (int i = 0; i < 3; ++i) w.put(p.reqntid[i]), w.put(p.maxntid[i]);
  w.str(nv_sass_name(p) ? nv_sass_name(p) : "");
  w.out.append(reinterpret_cast<const char*>(nv_sass_instructions(p)), size_t{p.instruction_count} * sizeof(NvSassInstruction));
  w.put(p.file_count);
  const auto* files = nv_p64_to_ptr<const char* const>(p.files);
  for (uint32_t i = 0; i < p.file_count; ++i) w.str(files[i] ? files[i] : "");
}

std::shared_ptr<const void> read_program(Reader& r) {
  auto o = std::make_shared<OwnedProgram>();
  NvSassProgram& p = o->program;
  p.magic = NV_SASS_PROGRAM_MAGIC;
  p.version = NV_SASS_VERSION;
  p.instruction_count = r.get<NvU32>(), p.register_count = r.get<NvU32>(), p.predicate_count = r.get<NvU32>();
  p.param_bytes = r.get<NvU32>(), p.shared_bytes = r.get<NvU32>(), p.local_bytes = r.get<NvU32>();
  p.symbol_count = r.get<NvU32>(), p.target_sm = r.get<NvU32>(), p.max_call_depth = r.get<NvU32>();
  for (int i = 0; i < 3; ++i) p.reqntid[i] = r.get<NvU32>(), p.maxntid[i] = r.get<NvU32>();
  o->name = r.str();
  const char* insts = nullptr;
  if (!r.ok || p.instruction_count > kMaxCount || p.symbol_count > kMaxCount ||
      !r.take(size_t{p.instruction_count} * sizeof(NvSassInstruction), &insts))
    return nullptr;
  o->instructions.resize(p.instruction_count);
  std::memcpy(o->instructions.data(), insts, size_t{p.instruction_count} * sizeof(NvSassInstruction));
  o->symbols.assign(p.symbol_count, 0);  // bound by the loader (ptx::bind_symbols)
  p.file_count = r.count();
  for (uint32_t i = 0; i < p.file_count && r.ok; ++i) o->files.push_back(r.str());
  if (!r.ok) return nullptr;
  for (const std::string& f : o->files) o->file_names.push_back(f.c_str());
  p.name = reinterpret_cast<NvU64>(o->name.c_str());
  p.instructions = reinterpret_cast<NvU64>(o->instructions.data());
  p.symbols = reinterpret_cast<NvU64>(o->symbols.data());
  p.files = reinterpret_cast<NvU64>(o->file_names.data());
  return std::shared_ptr<const void>(o, &o->program);
}

// The index: (key, payload bytes) per entry, oldest first.
struct IndexEntry {
  uint64_t key = 0, size = 0;
};
std::vector<IndexEntry> read_index(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string bytes = ss.str();
  Reader r(bytes);
  std::vector<IndexEntry> entries;
  if (r.get<uint32_t>() != kIndexVersion || !r.ok) return entries;
  uint32_t n = r.count();
  (void)r.get<uint64_t>();  // total, recomputed
  for (uint32_t i = 0; i < n && r.ok; ++i) {
    IndexEntry e;
    e.key = r.get<uint64_t>();
    e.size = r.get<uint64_t>();
    if (r.ok) entries.push_back(e);
  }
  return entries;
}

bool write_file(const std::string& path, const std::string& bytes) {
  std::string tmp = fmt::format("{}.tmp{}", path, static_cast<long>(::getpid()));
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return false;
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = std::fclose(f) == 0 && ok;
  if (ok) ok = std::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) std::remove(tmp.c_str());
  return ok;
}

bool make_dirs(const std::string& path) {
  for (size_t at = 1; at <= path.size(); ++at) {
    if (at != path.size() && path[at] != '/') continue;
    std::string part = path.substr(0, at);
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

}  // namespace

Settings settings() {
  Settings s;
  if (const char* p = std::getenv("CUDA_CACHE_PATH"); p != nullptr && *p != '\0') {
    s.path = p;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    s.path = std::string(home) + "/.nv/ComputeCache";
  } else {
    s.disabled = true;  // nowhere to keep it
  }
  if (const char* d = std::getenv("CUDA_CACHE_DISABLE"); d != nullptr && std::strcmp(d, "1") == 0) s.disabled = true;
  if (const char* f = std::getenv("CUDA_FORCE_PTX_JIT"); f != nullptr && std::strcmp(f, "1") == 0) s.force_jit = true;
  if (const char* m = std::getenv("CUDA_CACHE_MAXSIZE"); m != nullptr && *m != '\0') {
    char* end = nullptr;
    unsigned long long v = std::strtoull(m, &end, 10);
    if (end != nullptr && *end == '\0') s.max_bytes = v;
  }
  return s;
}

uint64_t key_of(const std::string& ptx, const ptx::CompileOptions& o) {
  uint64_t h = fnv1a(ptx.data(), ptx.size());
  const int32_t words[6] = {o.target_sm, o.opt_level, o.max_registers, o.generate_line_info ? 1 : 0,
                            static_cast<int32_t>(kPayloadVersion), o.threads_per_block};
  return fnv1a(words, sizeof words, h);
}

std::string entry_path(uint64_t key) {
  std::string hex = fmt::format("{:016x}", key);
  return fmt::format("{}/{}/{}", hex[0], hex[1], hex.substr(2));
}

std::string serialize(const ptx::CompileResult& r, uint64_t key) {
  Writer w;
  w.put(static_cast<int32_t>(r.ptx_version_major)), w.put(static_cast<int32_t>(r.ptx_version_minor));
  w.put(static_cast<int32_t>(r.target_sm)), w.put(r.ptx_hash);
  w.str(r.info_log);
  w.put(static_cast<uint32_t>(r.globals.size()));
  for (const ptx::CompiledGlobal& g : r.globals) {
    w.str(g.name), w.put(g.size), w.put(g.align), w.put(static_cast<uint8_t>((g.constant ? 1 : 0) | (g.managed ? 2 : 0)));  // bit 1: .managed
    w.str(std::string(g.initializer.begin(), g.initializer.end()));
  }
  w.put(static_cast<uint32_t>(r.kernels.size()));
  for (const ptx::CompiledKernel& k : r.kernels) {
    w.str(k.name);
    w.put(static_cast<uint32_t>(k.symbols.size()));
    for (const std::string& s : k.symbols) w.str(s);
    w.put(k.param_bytes), w.u32s(k.param_offsets), w.u32s(k.param_sizes), w.u32s(k.param_aligns);
    w.put(k.static_shared_bytes), w.put(k.local_bytes), w.put(k.num_regs), w.put(k.max_call_depth);
    w.put(k.max_ntid), w.put(k.req_ntid[0]), w.put(k.req_ntid[1]), w.put(k.req_ntid[2]), w.put(k.min_ctas_per_sm);
    const auto* program = static_cast<const NvSassProgram*>(k.sass.get());
    w.put(static_cast<uint8_t>(program != nullptr));
    if (program != nullptr) write_program(w, *program);
  }
  Writer file;
  file.put(kPayloadMagic), file.put(kPayloadVersion), file.put(key);
  file.put(static_cast<uint64_t>(w.out.size())), file.put(fnv1a(w.out.data(), w.out.size()));
  return file.out + w.out;
}

std::optional<ptx::CompileResult> deserialize(const std::string& bytes, uint64_t key) {
  Reader h(bytes);
  if (h.get<uint32_t>() != kPayloadMagic || h.get<uint32_t>() != kPayloadVersion || h.get<uint64_t>() != key)
    return std::nullopt;
  const uint64_t size = h.get<uint64_t>(), sum = h.get<uint64_t>();
  if (!h.ok || size != bytes.size() - h.at || fnv1a(bytes.data() + h.at, size) != sum) return std::nullopt;
  Reader r(bytes, h.at);
  ptx::CompileResult out;
  out.ptx_version_major = r.get<int32_t>(), out.ptx_version_minor = r.get<int32_t>();
  out.target_sm = r.get<int32_t>(), out.ptx_hash = r.get<uint64_t>();
  out.info_log = r.str();
  for (uint32_t i = 0, n = r.count(); i < n && r.ok; ++i) {
    ptx::CompiledGlobal g;
    g.name = r.str(), g.size = r.get<uint64_t>(), g.align = r.get<uint32_t>();
    const uint8_t kind = r.get<uint8_t>();
    g.constant = (kind & 1) != 0, g.managed = (kind & 2) != 0;
    std::string init = r.str();
    g.initializer.assign(init.begin(), init.end());
    out.globals.push_back(std::move(g));
  }
  for (uint32_t i = 0, n = r.count(); i < n && r.ok; ++i) {
    ptx::CompiledKernel k;
    k.name = r.str();
    for (uint32_t j = 0, m = r.count(); j < m && r.ok; ++j) k.symbols.push_back(r.str());
    k.param_bytes = r.get<uint32_t>(), k.param_offsets = r.u32s(), k.param_sizes = r.u32s(), k.param_aligns = r.u32s();
    k.static_shared_bytes = r.get<uint32_t>(), k.local_bytes = r.get<uint32_t>(), k.num_regs = r.get<uint32_t>();
    k.max_call_depth = r.get<uint32_t>(), k.max_ntid = r.get<uint32_t>();
    for (uint32_t& v : k.req_ntid) v = r.get<uint32_t>();
    k.min_ctas_per_sm = r.get<uint32_t>();
    if (r.get<uint8_t>() != 0) {
      k.sass = read_program(r);
      if (k.sass == nullptr) return std::nullopt;
    }
    if (k.param_sizes.size() != k.param_offsets.size()) return std::nullopt;
    out.kernels.push_back(std::move(k));
  }
  if (!r.ok || r.at != bytes.size()) return std::nullopt;
  return out;
}

std::optional<ptx::CompileResult> lookup(const Settings& s, uint64_t key) {
  std::ifstream in(s.path + "/" + entry_path(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return deserialize(ss.str(), key);
}

void store(const Settings& s, uint64_t key, const ptx::CompileResult& result) {
  const std::string rel = entry_path(key);
  const std::string path = s.path + "/" + rel;
  if (!make_dirs(path.substr(0, path.rfind('/')))) return;
  const std::string payload = serialize(result, key);
  // The index is read, changed and written under a lock, so that processes sharing the cache
  // do not lose each other's entries.
  int lock = ::open(s.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);  // the folder itself: no file of its own
  if (lock < 0) return;
  ::flock(lock, LOCK_EX);
  if (write_file(path, payload)) {
    std::vector<IndexEntry> entries = read_index(s.path + "/index");
    std::erase_if(entries, [key](const IndexEntry& e) { return e.key == key; });
    entries.push_back({key, payload.size()});
    uint64_t total = 0;
    for (const IndexEntry& e : entries) total += e.size;
    while (!entries.empty() && total > s.max_bytes) {  // the oldest go first
      std::remove((s.path + "/" + entry_path(entries.front().key)).c_str());
      total -= entries.front().size;
      entries.erase(entries.begin());
    }
    Writer w;
    w.put(kIndexVersion), w.put(static_cast<uint32_t>(entries.size())), w.put(total);
    for (const IndexEntry& e : entries) w.put(e.key), w.put(e.size);
    write_file(s.path + "/index", w.out);
  }
  ::flock(lock, LOCK_UN);
  ::close(lock);
}

}  // namespace minicuda::libcuda::jit_cache
