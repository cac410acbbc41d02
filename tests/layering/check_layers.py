#!/usr/bin/env python3
"""The layering check: every #include and every CMake link points down the stack.

minicuda is a stack of layers (docs/architecture.md). A file may include a header of its own
layer or of a layer its layer is allowed to use; it may not include a header of a layer above it
or beside it. The same holds for the CMake targets: a layer's target links only the targets of
the layers it may use, and passes on (PUBLIC / INTERFACE) only what its own public headers need.

Usage:
  check_layers.py ROOT        check the source tree at ROOT; exit 1 and list every violation
  check_layers.py --self-test check that the checker flags planted violations (a negative test)
"""
import os
import re
import sys
import tempfile

# The layers, bottom first: the folders (or single files) that belong to each, and the layers it
# may use. A path's layer is that of its longest matching prefix.
LAYERS = {
    # Beside the chain, usable by every layer.
    "support": {"paths": ["support/"], "uses": []},
    "trace": {"paths": ["trace/"], "uses": ["support"]},
    # fault names RM status codes in MINICUDA_FAULT plans (nvstatus.h).
    "fault": {"paths": ["fault/"], "uses": ["support", "trace", "uapi", "hw"]},
    # The chain, bottom up.
    "hw": {"paths": ["hw/"], "uses": ["support"]},
    # The machine's I/O bus: routes a CPU store in a mapped device page to the device (the
    # CPU's memory system on real hardware). Routes are function pointers: it knows no layer.
    "bus": {"paths": ["device_sim/bus/"], "uses": ["support"]},
    # The kernel language: what compiled kernels see (the toolkit's device headers). The SM
    # implements it; the compiler side and libcuda's loader use its entry types.
    "device_code": {"paths": ["device_sim/include/"], "uses": ["support"]},
    "device_sim": {"paths": ["device_sim/src/", "device_sim/CMakeLists.txt",
                             "device_sim/include/minicuda/device.h"],
                   "uses": ["hw", "bus", "device_code", "trace", "fault", "support"]},
    "uapi": {"paths": ["driver/uapi/"], "uses": ["hw", "support"]},
    # The system-call interface: all that user mode sees of the kernel (minicuda/syscall.h).
    "syscall": {"paths": ["driver/kernel/os/uapi/"], "uses": ["support"]},
    "kernel": {"paths": ["driver/kernel/os/", "driver/kernel/nvidia_ko/"],
               "uses": ["syscall", "uapi", "device_sim", "bus", "hw", "device_code", "trace", "fault", "support"]},
    # libcuda's PTX JIT compiler (docs/ptx.md): PTX text to the simulator's SASS (hw/nv_sass.h).
    "jit": {"paths": ["driver/ptx/"], "uses": ["hw", "trace", "support"]},
    "libcuda": {"paths": ["driver/user/"],
                "uses": ["jit", "syscall", "uapi", "bus", "hw", "device_code", "trace", "fault", "support"]},
    "libc": {"paths": ["runtime/libc/", "runtime/include/minicuda/libc.h"],
             "uses": ["syscall", "trace", "support"]},
    "runtime": {"paths": ["runtime/"],
                "uses": ["libcuda", "syscall", "device_code", "trace", "fault", "support"]},
}

# What each layer's target may pass on to its users (PUBLIC / INTERFACE links): only what its
# public headers include.
PASSES_ON = {
    "support": [], "trace": [], "fault": [],
    "hw": ["support"], "bus": [], "device_code": [], "device_sim": [],
    "uapi": ["hw"], "syscall": ["kernel"], "jit": [], "kernel": [], "libcuda": ["device_code"],
    "libc": [], "runtime": ["libcuda"],
}

# CMake target -> layer.
TARGETS = {
    "minicuda_support": "support", "minicuda_trace": "trace", "minicuda_fault": "fault",
    "minicuda_hw": "hw", "minicuda_bus": "bus", "minicuda_device_code": "device_code", "minicuda_device": "device_sim",
    "minicuda_uapi": "uapi", "minicuda_syscall": "syscall", "minicuda_kernel": "kernel", "minicuda_cuda": "libcuda",
    "minicuda_libc": "libc", "minicuda_cudart": "runtime", "minicuda_ptx": "jit",
}

# Where an #include "x" is looked for after the including file's own folder: every include
# directory of the layers (public and private), as the compiler sees them.
INCLUDE_ROOTS = [
    "support/include", "trace/include", "trace/src", "fault/include", "fault/src",
    "hw/include", "device_sim/bus/include", "device_sim/include", "device_sim/src", "driver/uapi/include",
    "driver/ptx/include", "driver/ptx/src", "driver/kernel/os/uapi", "driver/kernel/os/include", "driver/kernel/os/src", "driver/kernel/nvidia_ko/src", "driver/user/include",
    "driver/user/src", "runtime/include", "runtime/src", "runtime/libc",
]

SOURCE_EXTENSIONS = (".h", ".hpp", ".cpp", ".cc", ".cu")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*["<]([^">]+)[">]')
LINK_RE = re.compile(r"target_link_libraries\s*\(\s*([\w:]+)([^)]*)\)", re.S)


def layer_of(rel):
    best, best_len = None, -1
    for name, layer in LAYERS.items():
        for p in layer["paths"]:
            if (rel == p or rel.startswith(p)) and len(p) > best_len:
                best, best_len = name, len(p)
    return best


def allowed(user, used):
    return used == user or used in LAYERS[user]["uses"]


def resolve(root, rel_dir, name):
    """The tree-relative path of the header `name` as included from rel_dir, or None (a system
    or third-party header)."""
    for base in [rel_dir] + INCLUDE_ROOTS:
        candidate = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate.replace(os.sep, "/")
    return None


def check_includes(root):
    errors = []
    for top in sorted({p["paths"][0].split("/")[0] for p in LAYERS.values()}):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(SOURCE_EXTENSIONS):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")
                user = layer_of(rel)
                if user is None:
                    continue
                with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as src:
                    for lineno, line in enumerate(src, 1):
                        m = INCLUDE_RE.match(line)
                        if not m:
                            continue
                        header = resolve(root, os.path.dirname(rel), m.group(1))
                        if header is None:
                            continue
                        used = layer_of(header)
                        if used is not None and not allowed(user, used):
                            errors.append(f"{rel}:{lineno}: {user} includes {m.group(1)} "
                                          f"({header}, layer {used}), which it may not use")
    return errors


def check_links(root):
    errors = []
    for dirpath, _, files in os.walk(root):
        if "CMakeLists.txt" not in files:
            continue
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        with open(os.path.join(dirpath, "CMakeLists.txt"), encoding="utf-8") as cm:
            text = re.sub(r"#[^\n]*", "", cm.read())
        for m in LINK_RE.finditer(text):
            target = m.group(1).replace("minicuda::", "minicuda_")
            user = TARGETS.get(target)
            if user is None:
                continue
            scope = "PUBLIC"
            for word in m.group(2).split():
                if word in ("PUBLIC", "PRIVATE", "INTERFACE"):
                    scope = word
                    continue
                used = TARGETS.get(word.replace("minicuda::", "minicuda_"))
                if used is None or used == user:
                    continue
                where = f"{rel_dir}/CMakeLists.txt"
                if not allowed(user, used):
                    errors.append(f"{where}: {target} links {word} (layer {used}), "
                                  f"which layer {user} may not use")
                elif scope != "PRIVATE" and used not in PASSES_ON[user]:
                    errors.append(f"{where}: {target} links {word} {scope}, passing layer "
                                  f"{used} on to its users; link it PRIVATE")
    return errors


def check(root):
    return check_includes(root) + check_links(root)


def plant(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def self_test():
    """Plants a tree with one allowed include and one violation of each kind; the checker must
    flag exactly the violations."""
    with tempfile.TemporaryDirectory() as root:
        plant(root, "hw/include/class/clc86f.h", "#pragma once\n")
        plant(root, "driver/uapi/include/nvos.h", '#include "class/clc86f.h"\n')  # allowed
        plant(root, "driver/kernel/os/include/minicuda/kernel.h", "#pragma once\n")
        plant(root, "runtime/include/cuda_runtime.h", "#pragma once\n")
        # Upward: the GPU includes the ioctl ABI, and the driver includes the runtime.
        plant(root, "device_sim/src/pbdma.cpp", '#include <vector>\n#include "nvos.h"\n')
        plant(root, "driver/user/src/memory.cpp", '#include "cuda_runtime.h"\n')
        # Beside: libc includes libcuda's private header.
        plant(root, "driver/user/src/libcuda.h", "#pragma once\n")
        plant(root, "runtime/libc/malloc.cpp", '#include "libcuda.h"\n')
        # Across the user/kernel boundary: libcuda includes the kernel's inside, not syscall.h.
        plant(root, "driver/kernel/os/include/minicuda/kernel.h", "#pragma once\n")
        plant(root, "driver/user/src/init.cpp", '#include "minicuda/kernel.h"\n')
        # Links: the GPU links uapi; libcuda passes the system-call interface on.
        plant(root, "device_sim/CMakeLists.txt",
              "target_link_libraries(minicuda_device PRIVATE minicuda::uapi minicuda::hw)\n")
        plant(root, "driver/user/CMakeLists.txt",
              "target_link_libraries(minicuda_cuda PUBLIC minicuda::syscall PRIVATE minicuda::uapi)\n")
        errors = check(root)
        expected = [
            "device_sim/src/pbdma.cpp:2: device_sim includes nvos.h",
            "driver/user/src/memory.cpp:1: libcuda includes cuda_runtime.h",
            "runtime/libc/malloc.cpp:1: libc includes libcuda.h",
            "driver/user/src/init.cpp:1: libcuda includes minicuda/kernel.h",
            "device_sim/CMakeLists.txt: minicuda_device links minicuda::uapi",
            "driver/user/CMakeLists.txt: minicuda_cuda links minicuda::syscall PUBLIC",
        ]
        missing = [e for e in expected if not any(err.startswith(e) for err in errors)]
        extra = [err for err in errors if not any(err.startswith(e) for e in expected)]
        for e in missing:
            print(f"self-test: the checker missed: {e}")
        for e in extra:
            print(f"self-test: the checker flagged an allowed include or link: {e}")
        if missing or extra:
            return 1
        print(f"self-test: {len(errors)} planted violations flagged, the allowed include passed")
        return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print(__doc__)
        return 2
    errors = check(argv[1])
    for e in errors:
        print(e)
    if errors:
        print(f"{len(errors)} layering violation(s); the layers are in tests/layering/check_layers.py")
        return 1
    print("layering: every include and every link points down")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
