// minicuda::gpu: the simulated GPU, the one public header of device_sim/.
//
// This is the hardware. Only the kernel module (driver/kernel/nvidia_ko) programs it, the way nvidia.ko
// programs a real GPU through its registers: it reads the device's fixed properties (what the
// real driver reads from PCI config space, fuses and the VBIOS), owns the VRAM arena (physical
// memory) and writes the MMU's page tables.
//
// Units (one file each under src/):
//   properties  the measured properties of an H200 (probe.txt) and a small teaching GPU
//   vram        physical video memory: a sparse memfd, so a 141 GB arena costs host memory only
//               where it was touched
//   mmu         the GPU page tables: GPU virtual address -> VRAM (2 MiB pages) or pinned host
//               memory (4 KiB pages). Mapping vidmem also maps those VRAM pages at the same
//               virtual address in the host process (UVA): device pointers are host addresses
//               that host code, C++ kernels and gdb can dereference.
//   host_interface  the channels the GPU knows and the doorbell (HostInterface, below)
//   pbdma       the host interface's fetch unit: reads GPFIFO entries and pushbuffers, decodes
//               method headers, runs host methods (semaphores) and hands engine methods on
//   copy_engine the copy engine (HOPPER_DMA_COPY_A): copies, memsets, semaphore releases
//   compute_engine  the compute engine (HOPPER_COMPUTE_A): QMD launches, the block scheduler,
//               the SM worker threads; sm runs one thread block (fibers, barriers, faults)
//   gpu_semaphore  semaphore release / acquire / reduction on GPU memory
//   gpu_memory  the engines' port to memory: every access is checked against the MMU first
//
// Thread safety: every public member may be called from any thread; each unit guards its own
// state with a mutex (named per member below).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>
#include <string_view>

namespace minicuda::gpu {

inline constexpr uint64_t kSmallPage = 4096;          // sysmem PTEs
inline constexpr uint64_t kBigPage = 2ull << 20;      // vidmem PTEs (2 MiB)

// What the device is; the values of an H200 are measured (shared/reference/h200-cuda13/probe.txt).
struct DeviceProperties {
  std::string name;              // "NVIDIA H200"
  uint16_t pci_vendor_id;        // 0x10de
  uint16_t pci_device_id;        // 0x2335 (H200 SXM)
  int major, minor;              // compute capability 9.0
  uint64_t vram_bytes;           // size of the VRAM arena
  uint64_t total_global_mem;     // what cudaGetDeviceProperties reports (150109880320 on H200)
  int multiprocessor_count;      // 132
  int warp_size;                 // 32
  int max_threads_per_block;     // 1024
  int max_block_dim[3];          // 1024 1024 64
  int max_grid_dim[3];           // 2147483647 65535 65535
  int max_threads_per_sm;        // 2048
  int max_blocks_per_sm;         // 32
  int regs_per_block;            // 65536
  int regs_per_sm;               // 65536
  uint64_t shared_mem_per_block; // 49152
  uint64_t shared_mem_per_block_optin;  // 232448
  uint64_t shared_mem_per_sm;    // 233472
  uint64_t reserved_shared_mem_per_block;  // 1024
  uint64_t total_const_mem;      // 65536
  uint64_t l2_cache_bytes;       // 62914560
  int memory_bus_width;          // 6016
  int memory_clock_khz;          // 3201000 (HBM3e)
  int clock_khz;                 // 1980000
  int async_engine_count;        // 3 copy engines
  int pci_bus_id, pci_device, pci_domain;
  uint8_t uuid[16];              // GPU-... uuid
};

enum class Preset { H200, Teaching };

// The properties of a preset. Teaching: "minicuda Teaching GPU", cc 9.0, 4 SMs, 256 MiB VRAM.
const DeviceProperties& preset_properties(Preset preset);
// Parses "h200" / "teaching" (the MINICUDA_DEVICE environment variable); nullopt if unknown.
std::optional<Preset> parse_preset(std::string_view name);

// Physical video memory. Offsets are byte addresses in VRAM ("FB offsets").
class Vram {
 public:
  explicit Vram(uint64_t bytes);
  ~Vram();
  Vram(const Vram&) = delete;
  Vram& operator=(const Vram&) = delete;

  uint64_t size() const { return bytes_; }
  // The memfd that backs VRAM; the MMU maps slices of it into the host address space.
  int backing_fd() const { return fd_; }
  // Gives the host memory of [offset, offset+length) back (fallocate PUNCH_HOLE): the next read
  // sees zeros, as freed-then-reallocated VRAM would not be guaranteed to hold old data.
  void discard(uint64_t offset, uint64_t length);
  // Host bytes currently backing VRAM (pages touched and not discarded).
  uint64_t resident_bytes() const;

 private:
  uint64_t bytes_;
  int fd_ = -1;
};

// Where a page lives: this GPU's VRAM, pinned host memory, or a peer GPU's VRAM reached over
// the GPUs' link (NVLink on an H200 board).
enum class Aperture : uint8_t { Vidmem, Sysmem, Peer };

// One page-table entry (one page of kBigPage or kSmallPage bytes).
struct Pte {
  Aperture aperture;
  uint64_t phys;       // VRAM offset (Vidmem, and Peer: in the peer's VRAM) or host address (Sysmem)
  uint64_t page_size;  // kBigPage or kSmallPage
  bool writable;
  int peer_gpu = -1;   // Peer: the GPU whose VRAM holds the page
  // Peer: this Mmu mapped the page's host view itself (map_peer with host_view), so unmap
  // returns it to the reservation.
  bool host_view = false;
};

// The GPU MMU for one GPU virtual address space (one FERMI_VASPACE_A).
// The device part of the address space [uva_base, uva_base+uva_size) is reserved in the host
// process at construction (PROT_NONE, MAP_NORESERVE) so that vidmem mapped there is reachable
// at the same address from the host.
class Mmu {
 public:
  Mmu(Vram& vram, uint64_t uva_size);
  ~Mmu();
  Mmu(const Mmu&) = delete;
  Mmu& operator=(const Mmu&) = delete;

  uint64_t uva_base() const { return uva_base_; }
  uint64_t uva_size() const { return uva_size_; }

  // Reserves one more window of uva_size() bytes, for another GPU virtual address space: every
  // simulated process has its own VA space, but all of them live in the one host process, so
  // their device pointers must not collide. Returns its base (2 MiB aligned, host-chosen).
  uint64_t add_window();
  // Is [va, va+length) inside one window?
  bool in_window(uint64_t va, uint64_t length) const;

  // Maps [va, va+length) to VRAM [vram_offset, ...) with 2 MiB PTEs. va, vram_offset and length
  // must be 2 MiB aligned and va inside the UVA window; returns false (nothing mapped) otherwise
  // or if any page is already mapped. Also maps the VRAM pages at va in the host (MAP_SHARED of
  // the VRAM memfd, MAP_FIXED).
  bool map_vidmem(uint64_t va, uint64_t vram_offset, uint64_t length, bool writable = true);
  // Maps [va, va+length) to pinned host memory at the same address (UVA) with 4 KiB PTEs.
  // va and length must be 4 KiB aligned; returns false otherwise or if any page is mapped.
  bool map_sysmem(uint64_t va, uint64_t length, bool writable = true);
  // Maps [va, va+length) to VRAM [vram_offset, ...) of GPU peer_gpu with 2 MiB Peer PTEs.
  // Without host_view, the address is the one the peer's own page table maps it at (UVA), so it
  // need not lie in this Mmu's windows, and the host already reaches it through the peer's
  // mapping, which the caller (nvidia.ko) keeps for as long as this one lives. With host_view
  // (the peer's VRAM, for a range the peer does not map itself), va must lie in this Mmu's
  // windows, and the peer's pages are mapped at va in the host as map_vidmem maps its own.
  // Returns false, with nothing mapped, if length is 0, anything is not 2 MiB aligned, any page is
  // already mapped, or (host_view) the range leaves the windows or the peer's VRAM.
  bool map_peer(uint64_t va, int peer_gpu, uint64_t vram_offset, uint64_t length, bool writable,
                Vram* host_view = nullptr);
  // Removes the PTEs of [va, va+length); vidmem pages, and Peer pages mapped with a host_view,
  // become PROT_NONE again in the host (other Peer pages are left to the peer's mapping).
  // Returns the number of pages unmapped.
  uint64_t unmap(uint64_t va, uint64_t length);
  // The PTE of the page holding va, as an engine's access finds it: first in the calling thread's
  // TLB (a few recent translations), else by walk(), whose result the TLB then keeps. Every map
  // and unmap invalidates every TLB of this Mmu, as the driver's TLB invalidate does on the real
  // GPU, so translate() always answers what walk() would.
  std::optional<Pte> translate(uint64_t va) const;
  // The page walk itself, under the page table's lock: the plain path translate() caches.
  std::optional<Pte> walk(uint64_t va) const;
  // The page table's version: a new value at every map and unmap, unique among all Mmus of the
  // process. What a cache of translations (the TLB, GpuMemory's verified ranges) is good for.
  uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }
  // Number of valid PTEs.
  uint64_t pte_count() const;
  // The writable vidmem the page table maps, as [va, va+length) ranges in address order, each
  // run of contiguous pages merged into one range.
  std::vector<std::pair<uint64_t, uint64_t>> writable_vidmem() const;

  // Held (shared) by an engine for the whole of a run of work: from the page walk to the last
  // byte it touches. unmap() takes it exclusively, so a page is never torn down between the
  // walk that allowed an access and the access itself; work already running finishes first,
  // as the real driver waits for an in-flight TLB invalidate before freeing the page.
  std::shared_lock<std::shared_mutex> lock_for_access() const {
    return std::shared_lock<std::shared_mutex>(access_);
  }

 private:
  Vram& vram_;
  uint64_t uva_base_ = 0;
  uint64_t uva_size_ = 0;
  mutable std::mutex mutex_;
  mutable std::shared_mutex access_;     // see lock_for_access(); taken before mutex_
  std::vector<uint64_t> extra_windows_;  // bases of add_window() windows; guarded by mutex_
  bool in_window_locked(uint64_t va, uint64_t length) const;
  std::map<uint64_t, Pte> ptes_;  // page VA -> PTE; guarded by mutex_
  // The page table's version, unique among all Mmus of the process: a new one at every map and
  // unmap (under mutex_). A TLB entry is good only for the epoch it was filled in.
  std::atomic<uint64_t> epoch_;
  void invalidate_tlbs();
};

// The GPU's simulated clock (docs/timing.md). Every unit that does work - the compute engine and
// the three copy engines - keeps its own timeline, and so does every channel: an operation of
// channel c on unit u costing d ns starts at the earliest time, no earlier than the end of the
// channel's earlier work, at which the unit is free for d ns, and ends d ns later. The unit
// remembers the spans it has given out (the last kUnitSpans), so a gap between two of them that
// is long enough is used (grids on the compute unit share it instead: run_grid): the unit
// serves work in the order it became ready in simulated time,
// whatever order the engines' host threads happened to ask in. So work of two channels on two
// units overlaps, work on one unit queues, and one channel's work runs in order. A semaphore
// release happens at its channel's time; an acquire it satisfies holds the acquiring channel until
// then; a segment's host time (hold) holds its channel until the host submitted it. The times
// depend only on the work and the host's simulated times, never on the host's real speed: the
// same program gets the same times on every run and machine. (The exception: two operations
// that became ready for one unit at nearly the same simulated time, each too long for the gap
// before the other, are served in the order their threads asked.)//
// Thread-safe (one mutex).
enum class TimelineUnit : uint8_t { Compute, Copy0, Copy1, Copy2 };
inline constexpr int kTimelineUnits = 4;
const char* timeline_unit_name(TimelineUnit unit);  // "compute", "ce0", ...

struct TimeSpan {
  uint64_t start = 0, end = 0;  // ns since the device was built
};

// What one SM holds, in four additive resources (the occupancy rules of nv_occupancy): blocks,
// warps, registers of one of its 4 sub-partitions, bytes of shared memory (reserve included).
struct SmResources {
  uint32_t blocks = 0, warps = 0, partition_registers = 0, shared = 0;
};

// A grid on the compute timeline (docs/timing.md, "Concurrent kernels"): it holds `per_sm` on
// each of `sms` SMs for its whole span; the GPU has `sm_count` SMs of `capacity` each.
struct GridFootprint {
  uint32_t sms = 0;
  SmResources per_sm;
  uint32_t sm_count = 0;
  SmResources capacity;
};

class Timeline {
 public:
  // Work of channel chid on unit costing ns (see above); returns when it runs.
  TimeSpan run(uint32_t chid, TimelineUnit unit, uint64_t ns);
  // A grid of channel chid costing ns on the compute unit: it starts at the earliest time, no
  // earlier than the channel's time, at which `grid.sms` SMs have room for its footprint, beside
  // the grids placed before, for the whole of [start, start + ns) (docs/timing.md). Grids of
  // other channels that leave room run at the same time. Every grid on the compute unit goes
  // through here (run() with TimelineUnit::Compute does not see the grids).
  TimeSpan run_grid(uint32_t chid, const GridFootprint& grid, uint64_t ns);
  static constexpr size_t kGridSpans = 1024;  // grids remembered (the time before them: full)
  // Work of the channel's own (the PBDMA's fetch of a pushbuffer segment): ns more on the
  // channel's timeline only. Returns the channel's new time.
  uint64_t advance(uint32_t chid, uint64_t ns);
  // The channel's time: when its latest work finished.
  uint64_t channel_time(uint32_t chid) const;
  // When unit's latest work finishes.
  uint64_t unit_time(TimelineUnit unit) const;
  static constexpr size_t kUnitSpans = 1024;  // spans a unit remembers for gaps (older: busy)
  // A channel is made: its timeline starts at the device's present (now()).
  void add_channel(uint32_t chid);
  // The host timeline (MINICUDA_SET_HOST_TIME): the channel's later work starts no earlier than
  // t, the simulated host time at which the host submitted it. Returns the channel's new time.
  uint64_t hold(uint32_t chid, uint64_t t);
  // The API call the channel's current work came from (MINICUDA_SET_ORIGIN: a trace sequence
  // number, 0 if untraced): the engines tag their device spans with it.
  void set_origin(uint32_t chid, uint64_t origin);
  uint64_t origin(uint32_t chid) const;
  // A release of payload to the semaphore at va by channel chid, at the channel's time
  // (returned).
  uint64_t release(uint32_t chid, uint64_t va, uint64_t payload);
  // An acquire of va for >= value by chid was satisfied: the channel's later work starts no
  // earlier than the release of va that brought it to >= value (among the last
  // kReleaseHistory; else the last release). So the time does not depend on how far the
  // releasing channel had got when the acquire ran. A value the host wrote (no release) holds
  // nothing.
  void acquired(uint32_t chid, uint64_t va, uint64_t value);
  static constexpr size_t kReleaseHistory = 4096;
  // The latest time anything has finished.
  uint64_t now() const;
  // Forgets a channel (its time and nothing else).
  void remove_channel(uint32_t chid);

 private:
  uint64_t& channel_locked(uint32_t chid);
  mutable std::mutex mutex_;
  std::map<uint32_t, uint64_t> channels_;
  std::map<uint32_t, uint64_t> origins_;  // chid -> set_origin()
  // A unit's busy spans, start -> end, none overlapping; before floor it counts as busy (spans
  // forgotten beyond kUnitSpans); end: the latest end.
  struct UnitSpans {
    std::map<uint64_t, uint64_t> busy;
    uint64_t floor = 0, end = 0;
  };
  UnitSpans units_[kTimelineUnits];
  // The grids placed on the compute unit (the last kGridSpans), by start; before grid_floor_
  // every SM counts as full. sms: which SMs the grid holds (bit i: SM i).
  struct GridSpan {
    uint64_t start, end;
    std::vector<bool> sms;
    SmResources per_sm;
  };
  std::multimap<uint64_t, GridSpan> grids_;
  uint64_t grid_floor_ = 0, longest_grid_ = 0;
  struct Release {
    uint64_t payload, time;
  };
  std::map<uint64_t, std::deque<Release>> releases_;  // semaphore VA -> its last releases
  uint64_t latest_ = 0;
};

// The engines' activity counters (activity.cpp): what a real GPU's performance monitor samples
// for nvidia-smi's utilisation. Each engine unit counts the host (wall-clock) nanoseconds it has
// spent on work - grids, copies, memsets - so that a reader who samples twice gets the share of
// the interval the unit was busy; the compute unit also names the grid it is running. Wall time,
// not simulated time: it answers "is the GPU working now", which simulated time (which moves only
// when work runs) cannot. The engines call begin/end around each piece of work, on the thread that
// runs it; a unit runs one piece at a time (EngineThreads). Counting is off until a reader
// enable()s it (nvidia.ko, when it starts publishing for minicuda smi): until then begin/end cost
// one atomic load. Thread-safe (one mutex, held for a few loads and stores; on, the cost is two
// clock reads per piece of work: docs/performance.md).
class EngineActivity {
 public:
  struct Sample {
    uint64_t wall_ns = 0;                    // steady_clock when taken
    uint64_t busy_ns[kTimelineUnits] = {};   // per unit, cumulative, work still running included
    uint64_t work_items[kTimelineUnits] = {};  // pieces of work begun, per unit
    std::string kernel;                      // the grid the compute unit runs now; "" when idle
    uint32_t kernel_chid = 0;                // its channel
  };
  // Starts counting (idempotent); work already running is counted from its next piece.
  void enable() { enabled_.store(true, std::memory_order_relaxed); }
  // Unit starts a piece of work for channel chid: a grid named `kernel`, or (kernel null) a copy.
  void begin(TimelineUnit unit, uint32_t chid, const char* kernel);
  // The unit's piece of work ended.
  void end(TimelineUnit unit);
  Sample sample() const;

 private:
  std::atomic<bool> enabled_{false};
  mutable std::mutex mutex_;
  uint64_t busy_ns_[kTimelineUnits] = {};    // finished work; guarded by mutex_
  uint64_t started_ns_[kTimelineUnits] = {};  // when the running piece began, 0 if idle; guarded by mutex_
  uint64_t items_[kTimelineUnits] = {};      // guarded by mutex_
  std::string kernel_;                       // guarded by mutex_
  uint32_t kernel_chid_ = 0;                 // guarded by mutex_
};

class Device;
class CopyEngine;  // device_sim/src/copy_engine.h
class ComputeEngine;  // device_sim/src/compute_engine.h
class GpuMemory;   // device_sim/src/gpu_memory.h
class Pbdma;       // device_sim/src/pbdma.h
class EngineThreads;  // device_sim/src/engine_thread.h
struct Channel;    // device_sim/src/host_interface.h

// One GPFIFO channel, as RM programs it into the host interface (the channel's RAMFC/USERD).
struct ChannelConfig {
  uint32_t chid;            // channel id, unique on the GPU
  uint32_t token;           // work submit token: what user space stores to the doorbell
  uint64_t gpfifo_va;       // GPU VA of the ring of 8-byte GPFIFO entries
  uint32_t gpfifo_entries;  // entries in the ring: a power of two (the hardware stores log2)
  uint64_t userd_va;        // GPU VA of the channel's 512-byte USERD page (Nvc56fControl)
  // Inline channel (CUDA_LAUNCH_BLOCKING=1): the device's own thread never runs it; its work
  // runs when someone calls poll(true) - nvidia.ko's poll handler, in the thread that waits -
  // and a grid then runs on that thread alone.
  bool inline_only = false;
};

// The unit that made an access or met an error.
enum class Engine : uint8_t { Host, Copy, Compute };
enum class Access : uint8_t { Read, Write };

// Why a channel stopped for good. The MMU kinds are what the real GPU reports as an MMU fault
// (Xid 31, ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT); the others are PBDMA/engine errors that RM
// also turns into a channel error.
enum class FaultKind : uint8_t {
  MmuUnmapped,     // no PTE for the page
  MmuReadOnly,     // a write to a read-only page
  IllegalMethod,   // unknown host method, method on an unbound subchannel, unknown class
  BadGpEntry,      // a GPFIFO control entry with an unknown opcode, GPPut outside the ring
  BadMethodHeader, // a pushbuffer dword that is not a method header the PBDMA knows
  BadArgument,     // a method with a value the engine rejects (misaligned semaphore, ...)
  NotModelled,     // a real feature minicuda does not simulate (block linear, physical, ...)
  SmException,     // a kernel error other than an MMU fault (Xid 13): see sm_exception
  EccUncorrectable,  // an uncorrectable ECC error in device memory (Xid 94: contained)
};

// One recorded fault or channel error.
struct ChannelFault {
  uint32_t chid;
  FaultKind kind;
  Engine engine;
  Access access;     // MMU kinds: the access that faulted
  uint64_t va;       // MMU kinds: the faulting address; otherwise the pushbuffer address
  uint32_t method;   // the method being executed (byte offset), 0 when fetching
  std::string what;  // one line for traces and error notifiers
  uint16_t sm_exception = 0;  // SmException: NV_SM_EXCEPTION_* (nv_sm_exception.h)
};

// Where a channel stands in the host interface.
enum class ChannelStatus : uint8_t {
  Idle,     // nothing to do as far as the GPU knows
  Pending,  // the doorbell rang: run_pending() will fetch its GPFIFO
  Waiting,  // stopped at an unsatisfied semaphore acquire; every run_pending() retries it
  Busy,     // an engine is running one of its methods on the engine's thread; then it is Pending
  Faulted,  // stopped for good by a fault (see faults()); RM must remove it
};

// The host interface: the GPU unit that owns the channels (their RAMFC state), listens to the
// doorbell and runs the PBDMA over the channels that were rung. nvidia.ko adds and removes
// channels; a user-space store of a work submit token to the usermode page reaches doorbell()
// over the bus (minicuda/bus.h, Device::usermode_write32). Work reaches the PBDMA only that way:
// a channel whose GPPut moved without a doorbell is not run until it is rung, as on the GPU.
//
// Once started (start(), Device::start_worker), a doorbell hands the PBDMA to one of the GPU's
// threads - an idle engine's thread (the compute engine's first), else the gpu-host thread - which
// sleep until rung and never look at a channel that was not. The one thing they poll is what the
// hardware polls: a channel Waiting at a semaphore acquire is retried by gpu-host with a back-off.
//
// The engines (compute, ce0-ce2) run on host threads of their own (engine_thread.h): a method
// that keeps an engine busy - a grid launch, a LAUNCH_DMA that moves data - goes to its engine's
// thread and its channel is Busy until it is done, while the PBDMA serves the other channels. So
// one stream's kernel runs while another's copies move, as on the GPU.
//
// Thread safety: every member may be called from any thread; one mutex (mutex_) guards all
// channel state, except what the doorbell touches (below), so a doorbell never waits for the
// PBDMA.
class HostInterface {
 public:
  explicit HostInterface(Device& device);
  ~HostInterface();
  HostInterface(const HostInterface&) = delete;
  HostInterface& operator=(const HostInterface&) = delete;

  // Registers a channel (RM's channel allocation writing RAMFC); its simulated clock starts at the
  // device's present (Timeline::add_channel). The channel starts Idle with
  // no subchannel bound. A duplicate chid or token, or a ring size that is not a power of two,
  // is a bug in nvidia.ko (asserted).
  void add_channel(const ChannelConfig& config);
  // Forgets a channel, wherever it stands. Unknown chid: nothing happens. Engine work of the
  // channel still running finishes, and resumes nothing.
  void remove_channel(uint32_t chid);
  // The doorbell handler: what a store of token to NOTIFY_CHANNEL_PENDING (usermode page + 0x90)
  // does. The channel with that work submit token becomes Pending (trace: "doorbell(token=0x1)
  // -> ch 1"), and once start()ed a GPU thread runs the PBDMA over it (not for inline channels:
  // nvidia.ko's poll() runs those). Runs on the storing thread and returns at once, like a
  // posted write: it never runs work and never waits for the PBDMA (it does not take mutex_).
  // Unknown tokens and faulted channels are ignored, with a trace note (the real doorbell drops
  // them too).
  void doorbell(uint32_t token);
  // Starts the gpu-host thread and lets doorbells hand the PBDMA to the GPU's threads (channels
  // rung before are run first). Idempotent. stop() joins gpu-host; doorbells then only mark
  // channels Pending again (engine work in flight still resumes its channel). Also done by the
  // destructor.
  void start();
  void stop();
  // Runs every Pending or Waiting channel, one GPFIFO entry at a time from the channel whose
  // work was submitted first (Pbdma::next_submit_time, then chid), until none can make progress: fetch
  // the GPFIFO entries from GPGet up to GPPut (read from USERD), fetch and decode each
  // pushbuffer segment, execute its methods and write the new GPGet back to USERD. A channel
  // stops at an unsatisfied acquire (Waiting; retried after other channels ran, so a release
  // on another channel frees it) or at a fault (Faulted, recorded). A channel whose engine work
  // is running is waited for and resumed, so on return no channel is Busy. Returns the number
  // of GPFIFO entries consumed meanwhile (by this call, and by the engines' threads, which go
  // on with a channel when they finish its work).
  size_t run_pending(bool include_inline = true);
  // One round of the PBDMA over the rung channels (Pending) and those Waiting at an acquire, as
  // run_pending() does, except that it does not wait for engine work: Busy channels stay Busy
  // and their engine's thread resumes them. It never looks at a channel that was not rung.
  // nvidia.ko's poll() handler calls poll(true), which is how the inline channels
  // (ChannelConfig::inline_only) run, on the caller's thread (they never go Busy: their engines
  // run here). Inline channels run only when include_inline is true. Returns the entries consumed.
  size_t poll(bool include_inline = true);
  // How many pieces of engine work have finished so far; wait_for_engine() sleeps until that
  // count differs from seen, or timeout passes.
  uint64_t engine_completions() const;
  void wait_for_engine(uint64_t seen, std::chrono::microseconds timeout) const;

  // Every fault recorded so far, oldest first.
  std::vector<ChannelFault> faults() const;
  // Called once per new fault, after the host interface has released its lock (nvidia.ko's
  // interrupt handler), on the thread that found it: the PBDMA's or an engine's. Replaces any
  // previous handler; an empty function removes it.
  void set_fault_handler(std::function<void(const ChannelFault&)> handler);
  // The channel's status; nullopt for an unknown chid.
  std::optional<ChannelStatus> channel_status(uint32_t chid) const;
  // How many NON_STALL_INTERRUPT methods have executed (the interrupt is only counted now).
  uint64_t nonstall_interrupts() const;

 private:
  // One round of the PBDMA over the channels (run_pending, poll, the GPU's threads after a
  // doorbell or an engine's completion); wait: until none is Busy.
  size_t run_channels(bool include_inline, bool wait);
  // gpu-host: runs the PBDMA when rung (host_rung_), retries acquires while a channel waits.
  void host_thread_loop();
  // EngineThreads' done callback: resumes the channel (Pending) or stops it with the fault,
  // then runs the PBDMA on the engine's thread (wait=false), so the channel goes on at once.
  void engine_done(uint32_t chid, uint64_t serial, std::optional<ChannelFault> fault);

  const Mmu& mmu_;  // held for access around every run (Mmu::lock_for_access)
  Timeline& timeline_;  // a channel's clock starts when it is added
  std::unique_ptr<GpuMemory> memory_;
  std::unique_ptr<CopyEngine> copy_engine_;
  std::unique_ptr<ComputeEngine> compute_engine_;
  std::unique_ptr<EngineThreads> engines_;
  std::unique_ptr<Pbdma> pbdma_;
  mutable std::mutex mutex_;
  mutable std::condition_variable engine_done_;                // notified with completions_ under mutex_
  std::map<uint32_t, std::unique_ptr<Channel>> channels_;      // by chid; guarded by mutex_
  std::vector<ChannelFault> faults_;                          // guarded by mutex_
  std::function<void(const ChannelFault&)> fault_handler_;    // guarded by mutex_
  uint64_t nonstall_interrupts_ = 0;                          // guarded by mutex_
  uint64_t completions_ = 0;                                  // guarded by mutex_
  uint64_t entries_consumed_ = 0;                             // by any run; guarded by mutex_
  mutable int waiters_ = 0;  // threads in engine_done_.wait: engine_done notifies only then; guarded by mutex_
  uint64_t next_serial_ = 1;                                  // guarded by mutex_
  // run_channels' scratch (no allocation per pass); guarded by mutex_.
  std::vector<std::pair<uint64_t, Channel*>> ready_, second_look_;
  // The channels the PBDMA may run (Pending or Waiting), by their next work's submit time, into
  // ready (mutex_ held); true if any channel is Busy.
  bool collect_ready_locked(bool include_inline, std::vector<std::pair<uint64_t, Channel*>>& ready);
  // Channels rung and not yet taken by a pass become Pending (mutex_ held); true if any did.
  bool absorb_rings_locked();
  // The doorbell's own state: work submit token -> channel. Lock order: mutex_, then
  // doorbell_mutex_; the doorbell handler takes doorbell_mutex_ only (then the engines' lock or
  // host_mutex_), never mutex_, so a store never waits for the PBDMA.
  std::mutex doorbell_mutex_;
  std::unordered_map<uint32_t, Channel*> by_token_;           // guarded by doorbell_mutex_
  std::atomic<bool> started_{false};  // doorbells hand the PBDMA to a GPU thread (start/stop)
  std::atomic<int> waiting_{0};       // channels Waiting at an acquire (not inline), as of the last pass
  // gpu-host (start/stop, host_thread_loop).
  std::mutex host_mutex_;
  std::thread host_thread_;                // guarded by host_mutex_
  bool stop_ = false;                      // guarded by host_mutex_
  bool host_sleeping_ = false;  // gpu-host waits on doorbell_cv_: must be notified; guarded by host_mutex_
  std::atomic<bool> host_rung_{false};     // gpu-host has a doorbell to serve; set under host_mutex_
  std::condition_variable doorbell_cv_;    // gpu-host sleeps on it, with host_mutex_
};

// One simulated GPU: its properties, its VRAM and its MMU.
// It also has a host interface that executes submitted work, and a simulated clock.
class Device {
 public:
  explicit Device(Preset preset);
  const DeviceProperties& properties() const { return *props_; }
  Vram& vram() { return vram_; }
  Mmu& mmu() { return mmu_; }
  // The host interface (PBDMA) that fetches and executes every channel's work.
  HostInterface& host() { return host_; }
  // The simulated clock of every engine and channel (Timeline above; costs in docs/timing.md).
  Timeline& timeline() { return timeline_; }
  const Timeline& timeline() const { return timeline_; }
  // The engines' busy-time counters and the running grid (EngineActivity).
  EngineActivity& activity() { return activity_; }
  // Simulated time in nanoseconds since the device was built: when the latest work finished.
  // It only moves when the engines work, so it is the same on every run.
  uint64_t now_ns() const { return timeline_.now(); }

  // Starts the GPU: from then on a doorbell gets its channel run by the GPU's own threads
  // (HostInterface::start: gpu-host and the engines' threads, which sleep until rung). Idempotent.
  // Without it, a doorbell only marks its channel Pending and work runs when someone calls
  // host().poll() or run_pending() (tests; the inline mode).
  void start_worker();
  // Stops the GPU's gpu-host thread (also done by the destructor).
  void stop_worker();
  // A 32-bit write to the usermode page (HOPPER_USERMODE_A, BAR0; clc361.h) at offset, as the
  // bus delivers a CPU's store to the page nvidia.ko mapped (minicuda/bus.h).
  // NOTIFY_CHANNEL_PENDING (0x90) is the doorbell: HostInterface::doorbell(value). Writes to
  // other offsets are dropped (registers minicuda does not model, or read-only ones), with a
  // trace note.
  void usermode_write32(uint64_t offset, uint32_t value);
  ~Device();

 private:
  const DeviceProperties* props_;
  Vram vram_;
  Mmu mmu_;
  Timeline timeline_;
  EngineActivity activity_;
  HostInterface host_{*this};  // last: it uses mmu_
};

}  // namespace minicuda::gpu
