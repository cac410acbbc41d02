#!/usr/bin/env python3
"""A lab never lies: run one lab's commands (docs/labs/) and check that what it asks the learner to
observe still holds.

Each lab below lists the command lines its page tells the learner to type (./build/ is the build
tree), and for each the observations its answer relies on:
    ("order", [regex, ...])         the regexes match, in this order, in stdout + stderr
    ("absent", regex)               nothing matches
    ("section", start, end, has, lacks)
                                    from the first line matching `start` to the next one matching
                                    `end`: every regex of `has` matches there, none of `lacks` does;
                                    a section is one call of the program's thread, so the lines of
                                    the simulated GPU's threads ("t2#40"), which interleave with it
                                    differently from run to run, are left out of it
Every command line must also appear, word for word, in the lab's English and Chinese pages
(docs/labs/PAGE, docs/zh/labs/PAGE), so a page cannot ask for a run this test does not make.
Each command runs from ROOT with minicuda's and CUDA's variables cleared from the environment,
then those the command line sets.

    check_lab.py NAME --root ROOT --build DIR     check one lab; exit 1 on the first failure
    check_lab.py --list                           the lab names
    check_lab.py --self-test                      plant each kind of drift; fail unless each is caught
"""
import os
import re
import shlex
import subprocess
import sys

T = "MINICUDA_TRACE"
GPU_THREAD = re.compile(r"^t\d+#\d+\s")  # a line printed by one of the simulated GPU's threads


def profile_table(kernel, occupancy=None, inst=None, efficiency=None, requests=None, sectors=None, l2=None,
                  read=None, written=None, conflicts=None, limiter=None):
    """The regexes, in order, of the rows of `minicuda profile`'s table for one kernel launched once
    (minimum, maximum and average are the one value), for the figures given."""
    def row(label, unit, value):
        v = re.escape(f"{float(value):.2f}")
        return rf"^    {re.escape(label)} +{re.escape(unit)} +{v} +{v} +{v}$"
    rows = [rf"^  {kernel}, launches: 1$"]
    for label, unit, value in [("Achieved Occupancy", "%", occupancy), ("Executed Instructions", "inst", inst),
                               ("Warp Execution Efficiency", "%", efficiency),
                               ("Global Memory Requests", "request", requests),
                               ("Sectors Per Request", "sector", sectors), ("L2 Hit Rate", "%", l2),
                               ("DRAM Bytes Read", "byte", read), ("DRAM Bytes Written", "byte", written),
                               ("Shared Memory Bank Conflicts", "conflict", conflicts)]:
        if value is not None:
            rows.append(row(label, unit, value))
    if limiter is not None:
        rows.append(rf"^    Limiter \(model\) +{limiter} x1$")
    return rows
LABS = {
    "malloc_brk_or_mmap": ("malloc-brk-or-mmap.md", [
        (f"{T}=libc,kernel ./build/bin/lab_malloc 64", [
            ("section", r"libc +malloc\(64\)$", r"libc +└─ = ", [r"brk\(0x590000021000\)", r"carve 80 B chunk, no syscall"],
             [r"mmap\("])]),
        (f"{T}=libc,kernel ./build/bin/lab_malloc 200000", [
            ("section", r"libc +malloc\(200000\)$", r"libc +└─ = ",
             [r"200016 B >= mmap_threshold 131072: mmap", r"mmap\(NULL, 200704, "], [])]),
        (f"{T}=libc,kernel ./build/bin/lab_malloc 131072", [
            ("section", r"libc +malloc\(131072\)$", r"libc +└─ = ", [r"carve 131088 B chunk, no syscall"], [r"mmap\("])]),
    ]),
    "cudamalloc_shared_or_own_chunk": ("cudamalloc-shared-or-own-chunk.md", [
        (f"{T}=libcuda,kernel ./build/bin/lab_cudamalloc 1048576", [
            ("section", r"cuMemAlloc_v2\(.*bytesize=1048576\)$", r"libcuda +└─ = ",
             [r"pool: 2048 slots of 512 B at chunk 0x580000000000\+0x1000, no syscall"], [r"ioctl", r"of its own"])]),
        (f"{T}=libcuda,kernel ./build/bin/lab_cudamalloc 1572864", [
            ("section", r"cuMemAlloc_v2\(.*bytesize=1572864\)$", r"libcuda +└─ = ",
             [r"pool: 1536 KiB > 1 MiB: a 2 MiB-aligned chunk of its own \(2 MiB\)",
              r"ioctl\(3</dev/nvidiactl>, NV_ESC_RM_ALLOC, ", r"… 2 more ioctl calls = 0"], [r"slots"]),
            ("order", [r"cudaMalloc\(1572864\) = 0x580000200000 \(cudaSuccess\)"])]),
    ]),
    "pageable_or_pinned_copy": ("pageable-or-pinned-copy.md", [
        (f"{T}=libcuda ./build/bin/lab_copy pageable", [
            ("section", r"cuMemcpyHtoD_v2\(.*ByteCount=4194304\)$", r"libcuda +└─ = ",
             [r"copy: 4194304 B of pageable memory through the pinned staging buffer 0x",
              r"(?s)channel: submit .*\n.*channel: submit "], [r"by the copy engine"]),
            ("order", [r"pageable copy of 4194304 bytes: cudaSuccess, 0\.575 ms \(simulated\)"])]),
        (f"{T}=libcuda ./build/bin/lab_copy pinned", [
            ("section", r"cuMemcpyHtoD_v2\(.*ByteCount=4194304\)$", r"libcuda +└─ = ",
             [r"copy: 4194304 B by the copy engine, 0x590fff8ef000 -> 0x580000000000"], [r"staging", r"(?s)submit .*submit "]),
            ("order", [r"pinned copy of 4194304 bytes: cudaSuccess, 0\.082 ms \(simulated\)"])]),
    ]),
    "max_connections": ("max-connections.md", [
        ("./build/bin/stream_overlap", [
            ("order", [r"one stream: +0\.646 ms", r" 4 streams: +0\.399 ms \(simulated\), 1\.62x faster", r"stream_overlap: PASS"])]),
        ("CUDA_DEVICE_MAX_CONNECTIONS=1 ./build/bin/stream_overlap", [
            ("order", [r"one stream: +0\.646 ms", r" 4 streams: +0\.646 ms \(simulated\), 1\.00x faster",
                       r"no overlap: with CUDA_DEVICE_MAX_CONNECTIONS=1 every stream shares one channel"])]),
        (f"{T}=gpu ./build/bin/stream_overlap", [
            ("order", [r"^#\d+ +gpu +host: add ch 2 \(token 0x2\)", r"^#\d+ +gpu +host: add ch 5 \(token 0x5\)"]),
            ("order", [r"compute: ch 2 scale ran t=730240\.\.734640 ns", r"compute: ch 3 scale ran t=808900\.\.813300 ns",
                       r"compute: ch 4 scale ran t=887560\.\.891960 ns", r"compute: ch 5 scale ran t=966220\.\.970620 ns"])]),
        (f"CUDA_DEVICE_MAX_CONNECTIONS=1 {T}=gpu ./build/bin/stream_overlap", [
            ("absent", r"compute: ch [2-9]|host: add ch [2-9]"),
            ("order", [r"compute: ch 1 scale ran t=729940\.\.734340 ns", r"compute: ch 1 scale ran t=890860\.\.895260 ns",
                       r"compute: ch 1 scale ran t=1051780\.\.1056180 ns", r"compute: ch 1 scale ran t=1212700\.\.1217100 ns"])]),
    ]),
    "launch_blocking": ("launch-blocking.md", [
        (f"{T}=1 ./build/bin/vector_add", [
            ("section", r"cudart +cudaLaunchKernel\(func=vector_add", r"cudart +└─ = ",
             [r"doorbell\(token=0x1\) -> ch 1"], [r"poll\(", r"compute:"]),
            ("order", [r"^t\d+#\d+ +gpu +compute: ch 1 vector_add ran t=84652\.\.86652 ns"])]),
        (f"CUDA_LAUNCH_BLOCKING=1 {T}=1 ./build/bin/vector_add", [
            ("section", r"cudart +cudaLaunchKernel\(func=vector_add", r"cudart +└─ = ",
             [r"^#(\d+) +kernel +│  ├─ poll\(0x[0-9a-f]+, 1, -1\)  \[syscall\]",
              r"^#\d+ +gpu +│  │  ├─ compute: ch 1 vector_add ran t=84652\.\.86652 ns", r"kernel +│  │  └─ = 1"], []),
            ("absent", r"^t\d+#\d+ +gpu +compute: ch 1 (launch )?vector_add")]),
    ]),
    "occupancy_teaching_gpu": ("occupancy-teaching-gpu.md", [
        (f"{T}=gpu ./build/bin/vector_add", [
            ("order", [r"compute: ch 1 launch vector_add grid \(256,1,1\) block \(256,1,1\), 0 B dynamic shared: "
                       r"8 blocks/SM \(limit: threads\), 1 wave\(s\) over 132 SMs", r"compute: ch 1 vector_add ran t=84652\.\.86652 ns"])]),
        (f"MINICUDA_DEVICE=teaching {T}=gpu ./build/bin/vector_add", [
            ("order", [r"compute: ch 1 launch vector_add grid \(256,1,1\) block \(256,1,1\), 0 B dynamic shared: "
                       r"8 blocks/SM \(limit: threads\), 8 wave\(s\) over 4 SMs", r"compute: ch 1 vector_add ran t=84652\.\.92252 ns"])]),
    ]),
    "memcheck_out_of_bounds": ("memcheck-out-of-bounds.md", [
        ("./build/bin/lab_out_of_bounds", [
            ("order", [r"launch: cudaSuccess, cudaDeviceSynchronize: cudaSuccess \(0\)"]), ("absent", r"=========")]),
        ("MINICUDA_MEMCHECK=1 ./build/bin/lab_out_of_bounds", [
            ("order", [r"========= Invalid __global__ write", r"=========     at store_ints",
                       r"=========     by thread \(250,0,0\) in block \(0,0,0\)",
                       r"=========     Address 0x580000200000 is out of bounds",
                       r"=========     and is 1 bytes after the nearest allocation at 0x5800001ffc18 of size 1000 bytes",
                       r"=========     Saved host backtrace up to the CUDA API call at allocation time",
                       r"=========     Host Frame: main in ",  # file:line only where addr2line is installed
                       r"========= ERROR SUMMARY: 2 errors"]),
            ("order", [r"launch: cudaSuccess, cudaDeviceSynchronize: cudaErrorIllegalAddress \(700\)"]),
            ("order", [r"========= Leaked 1000 bytes at 0x5800001ffc18"])]),
    ]),
    "graph_or_stream_launch": ("graph-or-stream-launch.md", [
        ("./build/bin/lab_graph", [
            ("order", [r"^\[stream\] 8 kernels: 36\.5 us$", r"^\[graph, launch 1\] 8 kernels: 27\.1 us$",
                       r"^\[graph, launch 2\] 8 kernels: 18\.3 us$", r"PASS$"])]),
        (f"{T}=libcuda ./build/bin/lab_graph", [
            ("order", [r"channel: submit 23 dwords"] * 8 + [
                r"prebuilt: this thread's work for channel 2 is recorded, not submitted",
                r"prebuilt: chunk 0 of 128 KiB at 0x590fffbce000, mapped for the GPU",
                r"prebuilt: piece 0: 8 step\(s\) in 1 segment\(s\), 48 dwords",
                r"channel: submit 1 prebuilt segment\(s\) between the entries at 0x[0-9a-f]+ and 0x[0-9a-f]+ \(70 dwords in all\)",
                r"channel: submit 1 prebuilt segment\(s\)"]),
            ("section", r"libcuda +prebuilt Launch\(piece=0", r"libcuda +└─ = ", [r"channel: submit 1 prebuilt segment"],
             [r"QMD at", r"cuLaunchKernel"])]),
        (f"{T}=gpu ./build/bin/lab_graph", [
            ("order", [r"pbdma: ch 2 GPFIFO\[19\] 48 dwords at 0x590fffbce000", r"compute: ch 2 step ran t=72473\.\.74473 ns",
                       r"compute: ch 2 step ran t=74473\.\.76473 ns", r"compute: ch 2 step ran t=76473\.\.78473 ns"])]),
    ]),
    "sticky_error_and_reset": ("sticky-error-and-reset.md", [
        ("./build/bin/illegal_address", [
            ("order", [r"\[step 1\] cudaGetLastError\(\) after the launch +  = cudaSuccess \(0\)",
                       r"\[step 2\] cudaDeviceSynchronize\(\) += cudaErrorIllegalAddress \(700\)",
                       r"\[step 3\] cudaGetLastError\(\) again += cudaSuccess \(0\)",
                       r"\[step 4\] cudaMalloc\(&other, 4096\) += cudaErrorIllegalAddress \(700\)",
                       r"\[step 5\] cudaDeviceReset\(\) += cudaSuccess \(0\)",
                       r"\[step 6\] cudaMalloc\(&fresh, 4096\) += cudaSuccess \(0\)",
                       r"illegal_address: PASS"])]),
        (f"{T}=1 ./build/bin/illegal_address", [
            ("order", [r"gpu +pbdma: ch 1 stopped: MMU fault: kernel write_through block \(0,0,0\) thread \(0,0,0\): illegal write of address 0x0$",
                       r"nvidia +NVRM: Xid 31: channel 1: MMU fault"]),
            ("order", [r"every call on this context returns CUDA_ERROR_ILLEGAL_ADDRESS until the primary context is reset",
                       r"cuMemAlloc_v2\(dptr=0x[0-9a-f]+, bytesize=4096\) = CUDA_ERROR_ILLEGAL_ADDRESS",
                       r"cudart +cudaDeviceReset\(\)$", r"libcuda +├─ cuDevicePrimaryCtxReset_v2\(dev=0\)$",
                       r"NV_ESC_RM_FREE"]),
            ("order", [r"gpu +compute: ch 2 launch fill grid \(4,1,1\)", r"gpu +compute: ch 2 fill ran t=10200\.\.12200 ns"])]),
        ("./build/bin/illegal_address far", [
            ("order", [r"illegal write of address 0x580040000000; no allocation of this context within 64 MiB of it",
                       r"illegal_address: PASS"])]),
    ]),
    "warp_divergence": ("warp-divergence.md", [
        ("./build/bin/minicuda sass samples/labs/ptx/divergence.ptx --kernel parity_branch", [
            ("order", [r"^/\*0008\*/ not\.pred P3, P2; +// 34: not\.pred\s+%p4, %p3;$",
                       r"^/\*0009\*/ @P3 bra /\*000b\*/; +// 35: @%p4 bra\s+\$L__BB0_2;$",
                       r"^/\*000a\*/ bra\.uni /\*0012\*/; +// 36: bra\.uni\s+\$L__BB0_1;$",
                       r"^/\*0011\*/ bra\.uni /\*0018\*/;", r"^/\*0018\*/ and\.b32 R0, R3, 0x3;"])]),
        (f"{T}=warp ./build/bin/lab_divergence", [
            ("order", [r"warp 0 pc 9 mask ffffffff: @p3 bra 11  // guard 55555555$",
                       r"warp 0 pc 9 diverge: 55555555 to 11, aaaaaaaa to 10$",
                       r"warp 0 pc 10 mask aaaaaaaa: bra 18$",
                       r"warp 0 pc 11 mask 55555555: ", r"warp 0 pc 17 mask 55555555: bra 24$",
                       r"warp 0 pc 18 mask aaaaaaaa: ", r"warp 0 pc 23 mask aaaaaaaa: st\.global\.u32",
                       r"warp 0 pc 24 reconverge ffffffff$", r"warp 0 pc 24 mask ffffffff: and\.b32"]),
            ("order", [r"warp 0 pc 27 diverge: 11111111 to 34, eeeeeeee to 28$",
                       r"warp 0 pc 33 diverge: cccccccc to 30, 22222222 to 34$",
                       r"warp 0 pc 33 diverge: 88888888 to 30, 44444444 to 34$",
                       r"warp 0 pc 33 mask 88888888: @p5 bra 30  // guard 00000000$",
                       r"warp 0 pc 34 reconverge ffffffff$", r"warp 0 pc 38 mask ffffffff: ret$"]),
            ("order", [r"^even lanes wrote: 0 20 40 60 80 100 120 140 160 180 200 220 240 260 280 300$",
                       r"^odd lanes wrote:  1001 1003 1005 1007 1009 1011 1013 1015 1017 1019 1021 1023 1025 1027 1029 1031$",
                       r"^loop sums \(lane % 4 iterations\): 0 1 3 6 0 1 3 6 \.\.\.$"])]),
        (f"{T}=warp ./build/bin/lab_divergence warp", [
            ("absent", r"diverge|reconverge|mask (?!ffffffff)"),
            ("order", [r"warp 0 pc 6 mask ffffffff: @p0 bra 8$", r"warp 0 pc 8 mask ffffffff: cvta",
                       r"warp 0 pc 18 mask ffffffff: ret$",
                       r"warp 1 pc 6 mask ffffffff: @p0 bra 8  // guard 00000000$", r"warp 1 pc 7 mask ffffffff: bra 13$",
                       r"warp 1 pc 18 mask ffffffff: ret$",
                       r"^warp 0 wrote even\[0\.\.31\] = 0\.\.0, warp 1 wrote odd\[32\.\.63\] = 1001\.\.1001$"])]),
    ]),
    "profile_the_ladders": ("profile-the-ladders.md", [
        ("./build/bin/minicuda profile -- ./build/bin/ladders --ladder transpose", [
            ("order", [r"^rung transpose copy size=1024 ms=0\.00775 h200_ms=0\.00762 ratio=1\.02$",
                       r"^rung transpose naive size=1024 ms=0\.02497 h200_ms=0\.02166 ratio=1\.15$",
                       r"^rung transpose shared size=1024 ms=0\.01013 h200_ms=0\.01117 ratio=0\.91$",
                       r"^rung transpose padded size=1024 ms=0\.00775 h200_ms=0\.00781 ratio=0\.99$"]),
            ("order", profile_table("transpose_copy", occupancy="100", inst="278528", sectors="4", l2="0",
                                    read="4194304", written="4194304", conflicts="0", limiter="dram")),
            ("order", profile_table("transpose_naive", occupancy="100", inst="270336", sectors="18", l2="77.8",
                                    read="4194304", written="4194304", conflicts="0", limiter="l2")),
            ("order", profile_table("transpose_shared", occupancy="100", inst="458752", sectors="4", l2="0",
                                    conflicts="1015808", limiter="lsu")),
            ("order", profile_table("transpose_padded", occupancy="100", inst="442368", sectors="4", l2="0",
                                    conflicts="0", limiter="dram"))]),
        ("./build/bin/minicuda profile -- ./build/bin/ladders --ladder reduce", [
            ("order", [r"^rung reduce divergent size=1048576 ms=0\.01911 h200_ms=0\.01651 ratio=1\.16$",
                       r"^rung reduce strided_index size=1048576 ms=0\.01061 h200_ms=0\.01242 ratio=0\.85$",
                       r"^rung reduce sequential size=1048576 ms=0\.00916 h200_ms=0\.01120 ratio=0\.82$",
                       r"^rung reduce add_on_load size=1048576 ms=0\.00755 h200_ms=0\.00902 ratio=0\.84$",
                       r"^rung reduce unroll_last_warp size=1048576 ms=0\.00686 h200_ms=0\.00806 ratio=0\.85$",
                       r"^rung reduce complete_unroll size=1048576 ms=0\.00668 h200_ms=0\.00784 ratio=0\.85$",
                       r"^ladders: 6 of 6 rungs within 1\.5x of the H200; every ladder in the H200's order$"]),
            ("order", profile_table("reduce_divergent", occupancy="100", inst="8548352", efficiency="88.5",
                                    read="4194304", conflicts="0", limiter="issue")),
            ("order", profile_table("reduce_strided_index", occupancy="100", inst="3379200", efficiency="95",
                                    conflicts="430080", limiter="issue")),
            ("order", profile_table("reduce_sequential", occupancy="100", inst="2707456", efficiency="95.6",
                                    conflicts="0", limiter="issue")),
            ("order", profile_table("reduce_add_on_load", occupancy="100", inst="1484800", efficiency="96",
                                    conflicts="0", limiter="issue")),
            ("order", profile_table("reduce_unroll_last_warp", occupancy="100", inst="958464", efficiency="99",
                                    conflicts="0", limiter="issue")),
            ("order", profile_table("reduce_complete_unroll", occupancy="100", inst="749568", efficiency="98.7",
                                    read="4194304", conflicts="0", limiter="dram"))]),
        ("./build/bin/minicuda profile -- ./build/bin/ladders --ladder matmul", [
            ("order", [r"^rung matmul naive size=256 ms=0\.01579 ", r"^rung matmul tiled size=256 ms=0\.01434 "]),
            ("order", profile_table("matmul_naive", occupancy="25", requests="1050624", limiter="latency")),
            ("order", profile_table("matmul_tiled", occupancy="25", requests="67584", limiter="latency"))]),
    ]),
}

# How long one command of a lab may run (seconds): the ladders run every rung through the SIMT
# executor, minutes in a debug build on a loaded machine.
TIMEOUTS = {"profile_the_ladders": 600}


def run(command, root, build, timeout=60):
    """stdout + stderr of a command line as the page writes it, from ROOT, ./build/ = build."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MINICUDA_", "CUDA_"))}
    words = shlex.split(command)
    while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
        key, _, value = words.pop(0).partition("=")
        env[key] = value
    argv = [os.path.join(build, w[len("./build/"):]) if w.startswith("./build/") else w for w in words]
    done = subprocess.run(argv, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    return done.stdout.decode("utf-8", "replace")


def check(kind, out, spec):
    """A failure message, or None."""
    if kind == "absent":
        m = re.search(spec[0], out, re.M)
        return None if m is None else f"should not appear, but does: {m.group(0)!r}"
    if kind == "order":
        at = 0
        for regex in spec[0]:
            m = re.compile(regex, re.M).search(out, at)
            if m is None:
                return f"not found (in this order): {regex!r}"
            at = m.end()
        return None
    start, end, has, lacks = spec
    m = re.search(start, out, re.M)
    if m is None:
        return f"section start not found: {start!r}"
    e = re.compile(end, re.M).search(out, m.end())
    section = out[m.start():e.end() if e else len(out)]
    section = "\n".join(line for line in section.split("\n") if not GPU_THREAD.match(line))
    for regex in has:
        if re.search(regex, section, re.M) is None:
            return f"not found between {start!r} and {end!r}: {regex!r}\n--- section ---\n{section}"
    for regex in lacks:
        found = re.search(regex, section, re.M)
        if found is not None:
            return f"should not appear between {start!r} and {end!r}: {found.group(0)!r}\n--- section ---\n{section}"
    return None


def self_test():
    """1 unless a faithful output passes and every planted drift is reported."""
    out = "#1   libcuda  cuMemAlloc_v2(bytesize=64)\nt2#5 gpu      ce0: copy\n#1   libcuda  ├─ pool: 1 slot, no syscall\n" \
          "#1   libcuda  └─ = CUDA_SUCCESS\n#2   kernel   ioctl(3, NV_ESC_RM_ALLOC) = 0\ntime 0.5 ms\n"
    section = ("section", r"cuMemAlloc_v2\(bytesize=64\)$", r"└─ = ", [r"pool: 1 slot"], [r"ioctl"])
    good = [("order", [r"pool:", r"time 0\.5 ms"]), ("absent", r"mmap"), section]
    planted = {
        "a value changed": ("order", [r"time 0\.6 ms"]),
        "order reversed": ("order", [r"time 0\.5 ms", r"pool:"]),
        "a line that must not be there": ("absent", r"NV_ESC_RM_ALLOC"),
        "a line outside its section": ("section", r"cuMemAlloc_v2", r"└─ = ", [r"ioctl"], []),
        "a line inside its section": ("section", r"cuMemAlloc_v2", r"ioctl", [], [r"CUDA_SUCCESS"]),
        "a section that is not there": ("section", r"cuMemFree", r"└─ = ", [], []),
        "a GPU thread's line taken as the program's": ("section", r"cuMemAlloc_v2", r"ioctl", [r"ce0: copy"], []),
    }
    failures = [f"the faithful output was flagged: {kind}" for kind, *spec in good if check(kind, out, spec)]
    failures += [f"not flagged: {what}" for what, (kind, *spec) in planted.items() if check(kind, out, spec) is None]
    if run("X_LAB=7 sh -c 'echo $X_LAB'", ".", ".").strip() != "7":
        failures.append("run() did not pass the command line's variable")
    for f in failures:
        print(f)
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if argv[1:] == ["--list"]:
        print("\n".join(LABS))
        return 0
    name, root, build = argv[1], argv[argv.index("--root") + 1], argv[argv.index("--build") + 1]
    page, runs = LABS[name]
    failures = 0
    pages = [os.path.join(root, "docs", "labs", page), os.path.join(root, "docs", "zh", "labs", page)]
    texts = {}
    for path in pages:
        try:
            with open(path, encoding="utf-8") as f:
                texts[path] = f.read()
        except OSError:
            print(f"{path}: missing")
            failures += 1
    for command, checks in runs:
        for path, text in texts.items():
            if command not in text:
                print(f"{path}: does not show the command the test runs: {command}")
                failures += 1
        out = run(command, root, build, TIMEOUTS.get(name, 60))
        for kind, *spec in checks:
            problem = check(kind, out, spec)
            if problem is not None:
                print(f"$ {command}\n  {kind}: {problem}")
                failures += 1
    if failures == 0:
        print(f"lab {name}: {sum(len(c) for _, c in runs)} checks of {len(runs)} runs hold")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
