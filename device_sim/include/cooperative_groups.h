// cooperative_groups.h: CUDA's cooperative groups (namespace cooperative_groups), as the toolkit's
// header of the same name offers them, built on the simulated SM's warp operations and barriers
// (minicuda/isa.h). Kernel code only.
//
// - thread_block (this_thread_block()): the block; sync() is __syncthreads().
// - grid_group (this_grid()): every thread of the grid; valid, and sync() allowed, only under a
//   cooperative launch (cudaLaunchCooperativeKernel); elsewhere sync() stops the grid with an error.
// - thread_block_tile<N> (tiled_partition<N>), N a power of two up to 32: N consecutive threads of
//   the block, with the warp operations (shfl*, any, all, ballot, match_*) over them. With a block
//   made by this_thread_block(block_tile_memory), N may be 64 .. 1024: whole warps, with ranks,
//   meta groups, sync() (the block's barrier) and cg::reduce.
// - coalesced_group (coalesced_threads()): the lanes of the warp that run this call together, as
//   __activemask() finds them; its ranks count only those lanes.
// - thread_group: any of them, behind one type (tiled_partition(parent, n), a parameter).
// Groups of lanes are warp masks: lane i of a warp is the block's thread 32 * w + i (x fastest).
// - cluster_group (this_cluster()): the blocks of a thread block cluster (compute capability 9.0):
//   a barrier over them and distributed shared memory (map_shared_rank).
#ifndef _COOPERATIVE_GROUPS_H_
#define _COOPERATIVE_GROUPS_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <source_location>
#include <type_traits>

#include "common_functions.h"
#include "device_launch_parameters.h"
#include "minicuda/isa.h"
#include "sm_30_intrinsics.h"

namespace cooperative_groups {

namespace details {
inline dim3 cluster_dim3(const unsigned (&v)[3]) { return dim3(v[0], v[1], v[2]); }
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned block_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned lane() { return block_rank() % 32; }
// The lanes of the caller's warp that exist (the block's last warp may be partial).
inline unsigned warp_lanes() {
  const unsigned n = block_size() - block_rank() / 32 * 32;
  return n >= 32 ? ~0u : (1u << n) - 1;
}
inline unsigned rank_in(unsigned mask, unsigned lane) { return std::popcount(mask & ((1u << lane) - 1)); }
// The lane holding rank r of mask (32 when mask has fewer lanes).
inline unsigned lane_of(unsigned mask, unsigned r) {
  for (unsigned l = 0; l < 32; ++l)
    if ((mask >> l) & 1 && r-- == 0) return l;
  return 32;
}
// Gathers mask's bits into rank order (bit r: the lane of rank r).
inline unsigned pack(unsigned bits, unsigned mask) {
  unsigned out = 0, r = 0;
  for (unsigned l = 0; l < 32; ++l)
    if ((mask >> l) & 1) out |= ((bits >> l) & 1u) << r++;
  return out;
}
// `shuffle` (a warp shuffle of one 4- or 8-byte value) applied to any trivially copyable T: as
// is for up to 8 bytes, else to each 8-byte piece of it, as CUDA's tiles shuffle larger types.
template <class T, class Shuffle>
T in_pieces(const T& value, Shuffle shuffle) {
  static_assert(std::is_trivially_copyable_v<T>, "cooperative groups shuffle trivially copyable values");
  if constexpr (sizeof(T) <= 8) {
    return shuffle(value);
  } else {
    unsigned long long words[(sizeof(T) + 7) / 8] = {};
    std::memcpy(words, &value, sizeof(T));
    for (auto& w : words) w = shuffle(w);
    T out;
    std::memcpy(&out, words, sizeof(T));
    return out;
  }
}
// __shfl_sync for any trivially copyable T, in 8-byte pieces.
template <class T>
T shfl(unsigned mask, const T& value, int src_lane, int width = 32) {
  static_assert(std::is_trivially_copyable_v<T>, "cooperative groups shuffle trivially copyable values");
  if constexpr (sizeof(T) <= 8) {
    return __shfl_sync(mask, value, src_lane, width);
  } else {
    unsigned long long words[(sizeof(T) + 7) / 8] = {};
    std::memcpy(words, &value, sizeof(T));
    for (auto& w : words) w = __shfl_sync(mask, w, src_lane, width);
    T out;
    std::memcpy(&out, words, sizeof(T));
    return out;
  }
}
enum class group_kind : unsigned char { block, grid, lanes };
template <class>
inline constexpr bool always_false = false;
}  // namespace details

// Any group, behind one type: the block, the grid, or lanes of one warp (a tile or coalesced group).
class thread_group {
 public:
  unsigned long long size() const { return num_threads(); }
  unsigned long long num_threads() const {
    switch (kind_) {
      case details::group_kind::block: return details::block_size();
      case details::group_kind::grid:
        return static_cast<unsigned long long>(details::block_size()) * gridDim.x * gridDim.y * gridDim.z;
      case details::group_kind::lanes: return static_cast<unsigned>(std::popcount(mask_));
    }
    return 0;
  }
  unsigned long long thread_rank() const {
    switch (kind_) {
      case details::group_kind::block: return details::block_rank();
      case details::group_kind::grid: {
        const unsigned long long block = blockIdx.x + gridDim.x * (blockIdx.y + 1ull * gridDim.y * blockIdx.z);
        return block * details::block_size() + details::block_rank();
      }
      case details::group_kind::lanes: return details::rank_in(mask_, details::lane());
    }
    return 0;
  }
  void sync() const {
    switch (kind_) {
      case details::group_kind::block: __syncthreads(); break;
      case details::group_kind::grid: minicuda::gpu::isa::grid_sync(); break;
      case details::group_kind::lanes: __syncwarp(mask_); break;
    }
  }
  unsigned int meta_group_rank() const { return meta_rank_; }
  unsigned int meta_group_size() const { return meta_size_; }

 protected:
  thread_group(details::group_kind kind, unsigned mask, unsigned meta_rank = 0, unsigned meta_size = 1)
      : kind_(kind), mask_(mask), meta_rank_(meta_rank), meta_size_(meta_size) {}
  details::group_kind kind_;
  unsigned mask_;  // lanes: the warp's lanes in the group
  unsigned meta_rank_, meta_size_;
  friend thread_group tiled_partition(const thread_group& parent, unsigned int tilesz);
};

class grid_group : public thread_group {
 public:
  bool is_valid() const { return minicuda::gpu::isa::grid_is_cooperative(); }
  // A barrier over every thread of the grid: only under a cooperative launch.
  void sync() const { minicuda::gpu::isa::grid_sync(); }
  unsigned long long size() const { return num_threads(); }
  using thread_group::num_threads;
  using thread_group::thread_rank;
  static dim3 dim_blocks() { return gridDim; }
  static unsigned long long num_blocks() { return 1ull * gridDim.x * gridDim.y * gridDim.z; }
  static dim3 block_index() { return blockIdx; }
  static unsigned long long block_rank() { return blockIdx.x + gridDim.x * (blockIdx.y + 1ull * gridDim.y * blockIdx.z); }
  static dim3 dim_threads() { return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z); }
  static dim3 thread_index() {
    return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
                blockIdx.z * blockDim.z + threadIdx.z);
  }

 private:
  grid_group() : thread_group(details::group_kind::grid, 0) {}
  friend grid_group this_grid();
};
inline grid_group this_grid() { return grid_group(); }

// Block memory that lets a block be cut into tiles of more than 32 threads
// (this_thread_block(memory), then tiled_partition<64 .. 1024>): one slot per warp through which
// a multi-warp tile's collectives combine their warps' partial results. Declare it __shared__.
template <unsigned int MaxBlockSize = 1024>
struct block_tile_memory {
  static_assert(MaxBlockSize >= 32 && MaxBlockSize <= 1024, "block_tile_memory: MaxBlockSize is 32 .. 1024 threads");
  alignas(16) unsigned char storage[(MaxBlockSize + 31) / 32 * 16];  // 16 bytes per warp
};

class thread_block : public thread_group {
 public:
  static void sync() { __syncthreads(); }
  static unsigned int thread_rank() { return details::block_rank(); }
  static unsigned int size() { return details::block_size(); }
  static unsigned int num_threads() { return details::block_size(); }
  static dim3 group_index() { return blockIdx; }
  static dim3 thread_index() { return threadIdx; }
  static dim3 dim_threads() { return blockDim; }
  static dim3 group_dim() { return blockDim; }
  // The block_tile_memory this handle was made with (null: none; tiles stop at 32 threads).
  void* tile_memory() const { return tile_memory_; }
  unsigned tile_memory_bytes() const { return tile_memory_bytes_; }

 private:
  thread_block() : thread_group(details::group_kind::block, 0) {}
  thread_block(void* memory, unsigned bytes) : thread_group(details::group_kind::block, 0), tile_memory_(memory), tile_memory_bytes_(bytes) {}
  void* tile_memory_ = nullptr;
  unsigned tile_memory_bytes_ = 0;
  friend thread_block this_thread_block();
  template <unsigned int MaxBlockSize>
  friend thread_block this_thread_block(block_tile_memory<MaxBlockSize>& memory);
};
inline thread_block this_thread_block() { return thread_block(); }
template <unsigned int MaxBlockSize>
thread_block this_thread_block(block_tile_memory<MaxBlockSize>& memory) {
  return thread_block(memory.storage, sizeof memory.storage);
}

namespace details {
// The warp operations of a group of lanes, by rank. Derived gives mask() and the shuffles.
template <class Derived>
class lane_ops {
 public:
  int any(int predicate) const { return __any_sync(self().mask(), predicate); }
  int all(int predicate) const { return __all_sync(self().mask(), predicate); }
  // Bit r: the predicate of the thread of rank r.
  unsigned int ballot(int predicate) const {
    const unsigned m = self().mask();
    return pack(__ballot_sync(m, predicate), m);
  }
  template <class T>
  unsigned int match_any(T value) const {
    const unsigned m = self().mask();
    return pack(__match_any_sync(m, value), m);
  }
  template <class T>
  unsigned int match_all(T value, int& pred) const {
    const unsigned m = self().mask();
    return pack(__match_all_sync(m, value, &pred), m);
  }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
};
}  // namespace details

// The lanes of a warp that run together (coalesced_threads()), or a partition of them; ranks
// count the group's lanes in lane order.
class coalesced_group : public thread_group, public details::lane_ops<coalesced_group> {
 public:
  unsigned int get_mask() const { return mask_; }
  unsigned int mask() const { return mask_; }
  unsigned int size() const { return static_cast<unsigned>(std::popcount(mask_)); }
  unsigned int num_threads() const { return size(); }
  unsigned int thread_rank() const { return details::rank_in(mask_, details::lane()); }
  void sync() const { __syncwarp(mask_); }
  // The value of the thread of rank src (modulo the group's size).
  template <class T>
  T shfl(T var, unsigned int src_rank) const {
    return details::shfl(mask_, var, static_cast<int>(details::lane_of(mask_, src_rank % size())));
  }
  // The value of rank + delta (or the caller's own past the last rank).
  template <class T>
  T shfl_down(T var, unsigned int delta) const {
    const unsigned r = thread_rank() + delta;
    return details::shfl(mask_, var, static_cast<int>(r < size() ? details::lane_of(mask_, r) : details::lane()));
  }
  // The value of rank - delta (or the caller's own before rank 0).
  template <class T>
  T shfl_up(T var, unsigned int delta) const {
    const unsigned r = thread_rank();
    return details::shfl(mask_, var, static_cast<int>(r >= delta ? details::lane_of(mask_, r - delta) : details::lane()));
  }
  explicit coalesced_group(unsigned mask, unsigned meta_rank = 0, unsigned meta_size = 1)
      : thread_group(details::group_kind::lanes, mask, meta_rank, meta_size) {}
};

// The lanes of the caller's warp that reach this call together (its branch), as __activemask().
inline coalesced_group coalesced_threads(minicuda::gpu::isa::CallSite at = minicuda::gpu::isa::CallSite::current()) {
  return coalesced_group(__activemask(at));
}

// Size consecutive threads of the block (Size a power of two up to 32, or up to 1024 when the
// block was made with block_tile_memory); ParentT names the group it was cut from and converts
// away (thread_block_tile<N, P> is a thread_block_tile<N>). The third parameter picks the form:
// lanes of one warp, or whole warps.
template <unsigned int Size, class ParentT = void, bool OneWarp = (Size <= 32)>
class thread_block_tile;

template <unsigned int Size>
class thread_block_tile<Size, void, true> : public thread_group, public details::lane_ops<thread_block_tile<Size, void>> {
  static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                "minicuda: thread_block_tile<Size> needs Size a power of two up to 32 (larger tiles are not simulated)");

 public:
  static constexpr unsigned int num_threads() { return Size; }
  static constexpr unsigned int size() { return Size; }
  unsigned int thread_rank() const { return details::lane() % Size; }
  unsigned int mask() const { return mask_; }
  void sync() const { __syncwarp(mask_); }
  template <class T>
  T shfl(T var, int src_rank) const { return details::shfl(mask_, var, src_rank, Size); }
  template <class T>
  T shfl_down(T var, unsigned int delta) const {
    return details::in_pieces(var, [&](auto w) { return __shfl_down_sync(mask_, w, delta, Size); });
  }
  template <class T>
  T shfl_up(T var, unsigned int delta) const {
    return details::in_pieces(var, [&](auto w) { return __shfl_up_sync(mask_, w, delta, Size); });
  }
  template <class T>
  T shfl_xor(T var, unsigned int lane_mask) const {
    return details::in_pieces(var, [&](auto w) { return __shfl_xor_sync(mask_, w, static_cast<int>(lane_mask), Size); });
  }
  operator coalesced_group() const { return coalesced_group(mask_, meta_rank_, meta_size_); }

 protected:
  thread_block_tile(unsigned meta_rank, unsigned meta_size)
      : thread_group(details::group_kind::lanes, tile_mask(), meta_rank, meta_size) {}
  static unsigned tile_mask() {
    const unsigned lanes = Size == 32 ? ~0u : ((1u << Size) - 1) << (details::lane() / Size * Size);
    return lanes & details::warp_lanes();
  }
};

// Size / 32 whole warps of the block (Size a power of two, 64 .. 1024), cut from a thread_block
// made with block_tile_memory. sync() is the block's barrier, so every tile of the block must
// reach it together (as the block's threads all do in a uniform reduction); the collectives
// (cg::reduce) combine the warps through the block_tile_memory.
template <unsigned int Size>
class thread_block_tile<Size, void, false> {
  static_assert(Size <= 1024 && (Size & (Size - 1)) == 0,
                "minicuda: a multi-warp thread_block_tile<Size> needs Size a power of two up to 1024");

 public:
  static constexpr unsigned int num_threads() { return Size; }
  static constexpr unsigned int size() { return Size; }
  unsigned int thread_rank() const { return details::block_rank() % Size; }
  unsigned int meta_group_rank() const { return details::block_rank() / Size; }
  unsigned int meta_group_size() const { return (details::block_size() + Size - 1) / Size; }
  void sync() const { __syncthreads(); }
  void* tile_memory() const { return memory_; }

 protected:
  explicit thread_block_tile(void* memory) : memory_(memory) {}
  void* memory_;
};

template <unsigned int Size, class ParentT, bool OneWarp>
class thread_block_tile : public thread_block_tile<Size, void> {
 public:
  thread_block_tile(unsigned meta_rank, unsigned meta_size) : thread_block_tile<Size, void>(meta_rank, meta_size) {}
  explicit thread_block_tile(void* memory) : thread_block_tile<Size, void>(memory) {}
};

// Static tiles of the block or of a larger tile. A tile of more than 32 threads needs the block
// made with block_tile_memory (large enough for the block): without it the kernel stops.
template <unsigned int Size>
thread_block_tile<Size, thread_block> tiled_partition(const thread_block& block) {
  const unsigned n = details::block_size();
  if constexpr (Size <= 32) {
    return thread_block_tile<Size, thread_block>(details::block_rank() / Size, (n + Size - 1) / Size);
  } else {
    if (block.tile_memory() == nullptr || block.tile_memory_bytes() < (n + 31) / 32 * 16 || n % 32 != 0) {
      minicuda_printf("minicuda: tiled_partition<%u>: a tile of more than 32 threads needs this_thread_block(block_tile_memory) "
                      "for the whole block, of whole warps\n", Size);
      minicuda::gpu::isa::trap();
    }
    return thread_block_tile<Size, thread_block>(block.tile_memory());
  }
}
template <unsigned int Size, unsigned int ParentSize, class P>
thread_block_tile<Size, thread_block_tile<ParentSize, P>> tiled_partition(const thread_block_tile<ParentSize, P>& parent) {
  static_assert(Size <= ParentSize, "a tile's partition must not be larger than the tile");
  return thread_block_tile<Size, thread_block_tile<ParentSize, P>>(parent.thread_rank() / Size, ParentSize / Size);
}

// Dynamic partitions: tiles of tilesz consecutive ranks (a power of two up to 32).
inline coalesced_group tiled_partition(const coalesced_group& parent, unsigned int tilesz) {
  if (tilesz == 0 || tilesz > 32 || (tilesz & (tilesz - 1)) != 0) {
    minicuda_printf("minicuda: tiled_partition(group, %u): the size must be a power of two up to 32\n", tilesz);
    minicuda::gpu::isa::trap();
  }
  const unsigned mask = parent.get_mask(), rank = parent.thread_rank(), first = rank / tilesz * tilesz;
  unsigned tile = 0;
  for (unsigned r = first; r < first + tilesz && r < parent.size(); ++r) tile |= 1u << details::lane_of(mask, r);
  return coalesced_group(tile, rank / tilesz, (parent.size() + tilesz - 1) / tilesz);
}
inline thread_group tiled_partition(const thread_group& parent, unsigned int tilesz) {
  if (parent.kind_ == details::group_kind::lanes) return tiled_partition(coalesced_group(parent.mask_), tilesz);
  if (parent.kind_ == details::group_kind::grid || tilesz == 0 || tilesz > 32 || (tilesz & (tilesz - 1)) != 0) {
    minicuda_printf("minicuda: tiled_partition(group, %u): only tiles of a power of two up to 32 threads of a block or warp\n",
           tilesz);
    minicuda::gpu::isa::trap();
  }
  // A tile of the block: its lanes of the warp (block ranks r with the same r / tilesz).
  const unsigned lanes = tilesz == 32 ? ~0u : ((1u << tilesz) - 1) << (details::lane() / tilesz * tilesz);
  const unsigned n = details::block_size();
  return coalesced_group(lanes & details::warp_lanes(), details::block_rank() / tilesz, (n + tilesz - 1) / tilesz);
}
inline thread_group tiled_partition(const thread_block& parent, unsigned int tilesz) {
  return tiled_partition(static_cast<const thread_group&>(parent), tilesz);
}

// The threads of a warp-sized group with the same label (labeled_partition) or predicate
// (binary_partition).
template <class Group>
coalesced_group labeled_partition(const Group& g, int label) {
  const coalesced_group c(g.mask());
  return coalesced_group(__match_any_sync(c.get_mask(), label));
}
inline coalesced_group labeled_partition(const coalesced_group& g, int label) {
  return coalesced_group(__match_any_sync(g.get_mask(), label));
}
template <class Group>
coalesced_group binary_partition(const Group& g, bool pred) {
  const unsigned m = g.mask(), yes = __ballot_sync(m, pred);
  return coalesced_group(pred ? yes : m & ~yes);
}

// Free-function forms.
template <class Group>
void sync(const Group& g) {
  g.sync();
}
template <class Group>
auto group_size(const Group& g) {
  return g.num_threads();
}
template <class Group>
auto thread_rank(const Group& g) {
  return g.thread_rank();
}

// Thread block clusters (compute capability 9.0, docs/clusters.md): the blocks of one cluster,
// started together on the SMs of one GPC. sync() (or barrier_arrive() then barrier_wait()) is a
// barrier over every thread of every block of the cluster; map_shared_rank(p, r) is block r's
// address of the shared variable at p (distributed shared memory). A launch without a cluster is
// a cluster of one block.
struct cluster_arrival_token {};
class cluster_group {
 public:
  static void sync() {
    minicuda::gpu::isa::cluster_arrive();
    minicuda::gpu::isa::cluster_wait();
  }
  static cluster_arrival_token barrier_arrive() {
    minicuda::gpu::isa::cluster_arrive();
    return {};
  }
  static void barrier_wait() { minicuda::gpu::isa::cluster_wait(); }
  static void barrier_wait(cluster_arrival_token&&) { minicuda::gpu::isa::cluster_wait(); }
  static unsigned int query_shared_rank(const void* addr) { return minicuda::gpu::isa::cluster_shared_rank(addr); }
  template <class T>
  static T* map_shared_rank(T* addr, int rank) {
    return static_cast<T*>(minicuda::gpu::isa::cluster_map_shared(addr, static_cast<unsigned>(rank)));
  }
  template <class T>
  static T* map_shared_rank(T* addr, unsigned int rank) {
    return static_cast<T*>(minicuda::gpu::isa::cluster_map_shared(addr, rank));
  }
  static dim3 block_index() { return details::cluster_dim3(info().relative); }
  static unsigned int block_rank() { return info().rank; }
  static unsigned int num_blocks() { return info().size; }
  static dim3 dim_blocks() { return details::cluster_dim3(info().dim); }
  // The calling thread's index and rank among the cluster's threads (blocks in rank order).
  static dim3 thread_index() {
    const dim3 b = block_index();
    return dim3(b.x * blockDim.x + threadIdx.x, b.y * blockDim.y + threadIdx.y, b.z * blockDim.z + threadIdx.z);
  }
  static unsigned int thread_rank() { return block_rank() * details::block_size() + details::block_rank(); }
  static dim3 dim_threads() {
    const dim3 d = dim_blocks();
    return dim3(d.x * blockDim.x, d.y * blockDim.y, d.z * blockDim.z);
  }
  static unsigned int num_threads() { return num_blocks() * details::block_size(); }
  static unsigned int size() { return num_threads(); }
  static bool is_valid() { return true; }

 private:
  static minicuda::gpu::isa::ClusterInfo info() { return minicuda::gpu::isa::cluster_info(); }
  cluster_group() = default;
  friend cluster_group this_cluster();
};
inline cluster_group this_cluster() { return cluster_group(); }

}  // namespace cooperative_groups

#endif /* _COOPERATIVE_GROUPS_H_ */
