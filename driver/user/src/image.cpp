// Module images: which kind an image is and which of a fatbinary's entries the driver uses.
//
// A real fatbinary (fatbinary.h) holds entries of SASS (ELF, per sm_XY) and PTX (per compute_XY),
// their payloads often compressed: a zstd frame (kFatbinFlagCompressedZstd, nvcc's default) or an
// LZ4 block (kFatbinFlagCompressedLz4, -compress-mode=speed). The real driver runs the SASS
// for its GPU when there is one and JIT-compiles PTX otherwise. NVIDIA's SASS is machine code for
// a real SM, which the simulator cannot run, so minicuda always takes the PTX: the newest entry
// not above the device's compute capability. An image with SASS alone gets
// CUDA_ERROR_NO_BINARY_FOR_GPU, which is what the H200 answers for an image without code for it.
#include "image.h"

#include <elf.h>
#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <fmt/format.h>

namespace minicuda::libcuda::image {
namespace {

constexpr uint64_t kMaxPayload = 256ull << 20;  // a decompressed entry larger than this is refused

// Does the NUL-free prefix of data start with the n bytes of magic? Stops at the first
// difference, so a one-byte string is never read past its end.
bool starts_with(const uint8_t* data, const uint8_t* magic, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (data[i] != magic[i]) return false;
  return true;
}

Code refuse(CUresult error, std::string why) {
  Code c;
  c.error = error;
  c.why = std::move(why);
  return c;
}

// The text of a PTX payload: up to its first NUL (payloads are NUL-padded).
std::string text_of(const uint8_t* p, size_t n) {
  const void* nul = std::memchr(p, 0, n);
  return std::string(reinterpret_cast<const char*>(p), nul ? static_cast<const uint8_t*>(nul) - p : n);
}

// Is s made of printable characters and the whitespace PTX allows?
bool is_text(const std::string& s) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 && std::strchr("\t\n\v\f\r", c) == nullptr) return false;
  }
  return true;
}

// The compression of an entry's payload: "zstd", "lz4", or nullptr when it is stored as it is.
const char* compression_of(const fatbin::FatbinEntry& e) {
  if (e.flags & fatbin::kFatbinFlagCompressedZstd) return "zstd";
  if (e.flags & fatbin::kFatbinFlagCompressedLz4) return "lz4";
  return nullptr;
}

// Decompresses payload into text (sized to the entry's uncompressed size): the number of bytes
// written, or the decoder's complaint in *why. Neither decoder writes or reads past its buffers.
bool decompress(const char* kind, const uint8_t* payload, size_t size, std::string& text, std::string* why) {
  size_t n = 0;
  if (std::strcmp(kind, "zstd") == 0) {
    n = ZSTD_decompress(text.data(), text.size(), payload, size);
    if (ZSTD_isError(n)) return *why = ZSTD_getErrorName(n), false;
  } else {
    const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(payload), text.data(), static_cast<int>(size),
                                        static_cast<int>(text.size()));
    if (got < 0) return *why = "a malformed LZ4 block", false;
    n = static_cast<size_t>(got);
  }
  if (n != text.size()) return *why = "wrong size", false;
  return true;
}

// The PTX text of one entry: its payload, decompressed when it is compressed.
bool entry_ptx(const fatbin::FatbinEntry& e, const uint8_t* payload, uint64_t extent, std::string* out,
               std::string* why) {
  const char* kind = compression_of(e);
  if (kind == nullptr) {
    *out = text_of(payload, extent);
    return true;
  }
  if (e.payload_size == 0 || e.payload_size > extent || e.uncompressed_size == 0 || e.uncompressed_size > kMaxPayload) {
    *why = "a compressed PTX entry's sizes do not fit its container";
    return false;
  }
  std::string text(e.uncompressed_size, '\0');
  std::string complaint;
  if (!decompress(kind, payload, e.payload_size, text, &complaint)) {
    *why = fmt::format("a compressed PTX entry does not decompress ({}: {})", kind, complaint);
    return false;
  }
  *out = text_of(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  return true;
}

// minicuda's ELF (make_elf): the PTX its kPtxSection holds, or false.
bool minicuda_elf_ptx(const uint8_t* data, std::string* ptx) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, data, sizeof eh);
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_ABIVERSION] != kMinicudaElfAbi) return false;
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shnum > 16 || eh.e_shstrndx >= eh.e_shnum ||
      eh.e_shoff > (1ull << 30))
    return false;
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(data + eh.e_shoff);
  const Elf64_Shdr& names = sh[eh.e_shstrndx];
  for (unsigned i = 0; i < eh.e_shnum; ++i) {
    if (sh[i].sh_name >= names.sh_size || sh[i].sh_offset > (1ull << 30) || sh[i].sh_size > kMaxPayload) continue;
    const char* name = reinterpret_cast<const char*>(data + names.sh_offset + sh[i].sh_name);
    if (std::strcmp(name, kPtxSection) == 0) {
      *ptx = text_of(data + sh[i].sh_offset, sh[i].sh_size);
      return true;
    }
  }
  return false;
}

}  // namespace

Code select_fatbin(const uint8_t* data, size_t size, int sm) {
  fatbin::FatbinHeader h;
  if (size < sizeof h) return refuse(CUDA_ERROR_INVALID_IMAGE, "a fatbinary header cut short");
  std::memcpy(&h, data, sizeof h);
  if (h.magic != fatbin::kFatbinMagic || h.header_size < sizeof h || h.header_size > size ||
      h.fat_size > size - h.header_size)
    return refuse(CUDA_ERROR_INVALID_IMAGE, "a fatbinary header whose sizes do not fit");
  const uint8_t* at = data + h.header_size;
  const uint8_t* end = at + h.fat_size;
  const uint8_t* best_ptx = nullptr;
  const fatbin::ModuleImage* host = nullptr;
  int best_sm = -1, elf_sm = -1, newer_ptx = -1;
  while (static_cast<size_t>(end - at) >= sizeof(fatbin::FatbinEntry)) {
    fatbin::FatbinEntry e;
    std::memcpy(&e, at, sizeof e);
    if (e.header_size < sizeof e || e.header_size > static_cast<size_t>(end - at))
      return refuse(CUDA_ERROR_INVALID_IMAGE, "a fatbinary entry whose header does not fit");
    const uint8_t* payload = at + e.header_size;
    uint64_t extent = (uint64_t{e.padded_payload_size_high} << 32) | e.padded_payload_size;
    if (extent == 0) extent = e.payload_size;  // minicuda's own entry
    if (extent > static_cast<size_t>(end - payload))
      return refuse(CUDA_ERROR_INVALID_IMAGE, "a fatbinary entry whose payload does not fit");
    if (e.kind == fatbin::kFatbinKindHostCode) {
      if (e.payload_size < sizeof(fatbin::ModuleImage) || e.payload_size > static_cast<size_t>(end - payload))
        return refuse(CUDA_ERROR_INVALID_IMAGE, "a minicuda entry whose size does not fit");
      uint32_t magic_version[2];
      std::memcpy(magic_version, payload, sizeof magic_version);  // payload may be unaligned in a bad image
      if (magic_version[0] != fatbin::kModuleMagic || magic_version[1] != 1 ||
          reinterpret_cast<uintptr_t>(payload) % alignof(fatbin::ModuleImage) != 0)
        return refuse(CUDA_ERROR_INVALID_IMAGE, "a minicuda entry of an unknown version");
      host = reinterpret_cast<const fatbin::ModuleImage*>(payload);
      at = payload + extent;
      continue;
    }
    const int entry_sm = static_cast<int>(e.sm_version);
    if (e.kind == fatbin::kFatbinKindPtx) {
      if (entry_sm <= sm && entry_sm > best_sm) best_sm = entry_sm, best_ptx = at;
      if (entry_sm > sm) newer_ptx = entry_sm;
    } else if (e.kind == fatbin::kFatbinKindElf) {
      elf_sm = entry_sm;
    }
    at = payload + extent;
  }
  if (host != nullptr && best_ptx == nullptr) {
    Code c;
    c.host = host;
    c.why = "minicuda's fatbinary entry (C++ kernels)";
    return c;
  }
  if (best_ptx == nullptr) {
    if (newer_ptx >= 0)
      return refuse(CUDA_ERROR_NO_BINARY_FOR_GPU,
                    fmt::format("the fatbinary's PTX is for compute_{}, above the device's sm_{}", newer_ptx, sm));
    if (elf_sm >= 0)
      return refuse(CUDA_ERROR_NO_BINARY_FOR_GPU,
                    fmt::format("the fatbinary holds NVIDIA SASS (sm_{}) and no PTX: SASS cannot run on the simulator",
                                elf_sm));
    return refuse(CUDA_ERROR_INVALID_IMAGE, "a fatbinary with no entry");
  }
  fatbin::FatbinEntry e;
  std::memcpy(&e, best_ptx, sizeof e);
  uint64_t extent = (uint64_t{e.padded_payload_size_high} << 32) | e.padded_payload_size;
  Code c;
  if (!entry_ptx(e, best_ptx + e.header_size, extent, &c.ptx, &c.why)) {
    c.error = CUDA_ERROR_INVALID_IMAGE;
    return c;
  }
  // An entry that holds text goes to the JIT, which reports what is wrong with it (the H200 answers
  // CUDA_ERROR_INVALID_PTX for a corrupted LZ4 block whose text no longer reads ".version").
  if (c.ptx.empty() || !is_text(c.ptx))
    return refuse(CUDA_ERROR_INVALID_IMAGE, "a fatbinary PTX entry that is not PTX text");
  c.from_entry = true;
  c.host = host;
  c.why = fmt::format("{}the fatbinary's compute_{} PTX{}{}", host ? "minicuda's entry (C++ kernels) and " : "", best_sm,
                      compression_of(e) ? fmt::format(" ({}, decompressed)", compression_of(e)) : "",
                      elf_sm >= 0 ? fmt::format("; its sm_{} SASS skipped: NVIDIA SASS cannot run on the simulator", elf_sm)
                                  : std::string());
  return c;
}

Code select(const void* image, int sm) {
  const auto* data = static_cast<const uint8_t*>(image);
  static constexpr uint8_t kWrapper[4] = {0xB1, 0x43, 0x62, 0x46};  // kFatbinWrapperMagic, little-endian
  static constexpr uint8_t kHeader[4] = {0x50, 0xED, 0x55, 0xBA};   // kFatbinMagic
  static constexpr uint8_t kElf[4] = {0x7F, 'E', 'L', 'F'};
  if (starts_with(data, kWrapper, 4)) {
    fatbin::FatbinWrapper w;
    std::memcpy(&w, data, sizeof w);
    if (w.data == nullptr) return refuse(CUDA_ERROR_INVALID_IMAGE, "a fatbinary wrapper without data");
    data = static_cast<const uint8_t*>(w.data);
    if (!starts_with(data, kHeader, 4)) return refuse(CUDA_ERROR_INVALID_IMAGE, "a fatbinary wrapper without a header");
  }
  if (starts_with(data, kHeader, 4)) {
    fatbin::FatbinHeader h;
    std::memcpy(&h, data, sizeof h);
    // The header bounds the container: nothing past its own sizes is read.
    return select_fatbin(data, sizeof h + (h.fat_size > kMaxPayload ? 0 : h.fat_size) +
                                   (h.header_size > sizeof h ? h.header_size - sizeof h : 0), sm);
  }
  if (starts_with(data, kElf, 4)) {
    Code c;
    if (minicuda_elf_ptx(data, &c.ptx)) {
      c.why = "minicuda's linked ELF (its PTX)";
      return c;
    }
    Elf64_Ehdr eh;
    std::memcpy(&eh, data, sizeof eh);
    return refuse(CUDA_ERROR_NO_BINARY_FOR_GPU,
                  fmt::format("an NVIDIA cubin (SASS for sm_{}): NVIDIA SASS cannot run on the simulator, "
                              "load its PTX instead", (eh.e_flags >> 8) & 0xFF));
  }
  // PTX is text: it ends at its NUL, and a control character before that (other than the
  // whitespace PTX allows) means the image is not PTX - read no further than that byte, so that an
  // image of unknown size that is neither text nor a container is never read past its end.
  const char* chars = reinterpret_cast<const char*>(data);
  size_t length = 0;
  for (; chars[length] != '\0'; ++length) {
    const auto ch = static_cast<unsigned char>(chars[length]);
    if (ch < 0x20 && std::strchr("\t\n\v\f\r", ch) == nullptr)
      return refuse(CUDA_ERROR_INVALID_IMAGE, "neither a fatbinary, an ELF nor PTX text");
  }
  std::string text(chars, length);
  if (text.find(".version") == std::string::npos)
    return refuse(CUDA_ERROR_INVALID_IMAGE, text.empty() ? "an empty image" : "neither a fatbinary, an ELF nor PTX text");
  Code c;
  c.ptx = std::move(text);
  c.why = "PTX text";
  return c;
}

std::string make_elf(const std::string& ptx, int sm) {
  static constexpr char kNames[] = "\0.shstrtab\0.minicuda.ptx";  // offsets 1 and 11
  const uint64_t ptx_at = sizeof(Elf64_Ehdr);
  const uint64_t ptx_size = ptx.size() + 1;
  const uint64_t names_at = ptx_at + ptx_size;
  const uint64_t sh_at = (names_at + sizeof kNames + 7) / 8 * 8;
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_ident[EI_OSABI] = 0x41;  // NVIDIA CUDA's
  eh.e_ident[EI_ABIVERSION] = kMinicudaElfAbi;
  eh.e_type = ET_EXEC;
  eh.e_machine = 190;  // EM_CUDA
  eh.e_version = EV_CURRENT;
  eh.e_flags = static_cast<uint32_t>(sm) << 8;
  eh.e_ehsize = sizeof eh;
  eh.e_shoff = sh_at;
  eh.e_shentsize = sizeof(Elf64_Shdr);
  eh.e_shnum = 3;
  eh.e_shstrndx = 1;
  Elf64_Shdr sh[3]{};
  sh[1].sh_name = 1;
  sh[1].sh_type = SHT_STRTAB;
  sh[1].sh_offset = names_at;
  sh[1].sh_size = sizeof kNames;
  sh[2].sh_name = 11;
  sh[2].sh_type = SHT_PROGBITS;
  sh[2].sh_offset = ptx_at;
  sh[2].sh_size = ptx_size;
  std::string out(sh_at + sizeof sh, '\0');
  std::memcpy(out.data(), &eh, sizeof eh);
  std::memcpy(out.data() + ptx_at, ptx.data(), ptx.size());
  std::memcpy(out.data() + names_at, kNames, sizeof kNames);
  std::memcpy(out.data() + sh_at, sh, sizeof sh);
  return out;
}

}  // namespace minicuda::libcuda::image
