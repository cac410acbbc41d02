#!/usr/bin/env python3
"""Docs that cannot drift: every trace excerpt and every gdb backtrace in README.md and docs/.

Trace excerpts. A fenced block that holds trace lines ("#1   cudart   cudaMalloc(...)") must name
its source on the line before its fence, e.g.

    <!-- excerpt: tests/golden/data/first_cudamalloc.txt -->
    <!-- excerpt: $ MINICUDA_TRACE=1 ./build/bin/stream_overlap 2 -->

the first a file the suite keeps true (a golden trace), the second a command line as a reader
types it, which the check runs (./build/ is the build tree given with --build) and whose output
(stdout and stderr) is the source. The excerpt's lines must be lines of the source, in the same
order, where the order is kept per host thread: lines of the program's threads ("#12") are matched
among those, lines of the simulated GPU's threads ("t2#40") among those, and the call numbers are
not compared (they depend on what ran before). An excerpt may leave lines out (a line that holds
only "…", after the "#N   layer   " prefix and the tree's rules, says so, and may carry a comment
in parentheses: "…  (6 more controls)"), but every line it shows is a line of the source, after
the lines shown before it; "…" inside a line stands for any text, and a note after "←" at the end
of a line ("← libc::malloc") is the page's annotation, not compared.

RM object trees. A fenced block after <!-- rm-tree: SOURCE --> draws RM objects as a text tree
("│  └─ 0x5c000004 HOPPER_USERMODE_A"); each object must have been allocated in SOURCE (a golden
trace) with that class and, as its parent in the drawing, the parent it was allocated under.

Backtraces. A fenced block that holds gdb frames ("#3  minicuda::kernel::sys_ioctl (...) at
driver/kernel/os/src/syscalls.cpp") quotes no line numbers of minicuda's own sources (they move
with every edit), and each frame's file exists and defines or declares the frame's function (its
last name component). The programs a page debugs (under tests/gdb/ and samples/) keep their line
numbers, which the reader needs ("at tests/gdb/gdb_launch_target.cu:8"), and gdb's listing of such
a line ("8\t  int i = ...") must be that line of the file the frame before it named.

    check_excerpts.py ROOT [--build DIR]  check README.md and docs/**/*.md under ROOT (a command
                                    source needs --build: the tree whose bin/ it runs)
    check_excerpts.py --self-test   plant each kind of drift in a scratch tree; fail unless every
                                    one is reported and the faithful page passes
Exit status: 0 when nothing drifted, 1 otherwise (each finding on stderr as file:line: what).
"""
import os
import pathlib
import re
import shlex
import subprocess
import sys

import check_cli
import tempfile

ELLIPSIS = "…"
TRACE_LINE = re.compile(r"^(?:t\d+)?#\d+\s+(cudart|libcuda|kernel|nvidia|uvm|gpu\d*|libc|gpu\d+:\w+|warp)\s")
TRACE_PREFIX = re.compile(r"^#\d+\s+\S+\s+")
RM_TREE_MARKER = re.compile(r"^<!--\s*rm-tree:\s*(\S+)\s*-->\s*$")
RM_ALLOC = re.compile(r"rm_alloc(?:_memory)?\(hRoot=(0x[0-9a-f]+), hParent=(0x[0-9a-f]+), hObject=(0x[0-9a-f]+), hClass=(\w+)")
RM_CLIENT = re.compile(r"rm: new client (0x[0-9a-f]+)")
TREE_NODE = re.compile(r"^(?P<indent>[│ ]*(?:[├└]─ )?)(?:client )?(?P<handle>0x[0-9a-f]+) \(?(?P<cls>\w+)\)?")
MARKER = re.compile(r"^<!--\s*excerpt:\s*(.+?)\s*-->\s*$")
CALL_NUMBER = re.compile(r"^(t\d+)?#\d+(\s)")
# "#3  func (args) at path[:line]" or "#3  0x... in func (args) at path[:line]"; "Breakpoint N, func (...) at path[:line]"
FRAME = re.compile(r"^(?:#\d+\s+(?:0x[0-9a-f]+ in )?|(?:Thread \d+ \"[^\"]*\" hit )?Breakpoint \d+, )?(?P<func>.+?) \(.*\) at (?P<path>[\w./+-]+?)(?::(?P<line>\d+))?\s*$")
LISTING = re.compile(r"^(\d+)\t(.*)$")  # gdb's source listing after step/next: "120\t  code"
PROGRAMS = ("tests/gdb/", "samples/")  # the debugged programs: their line numbers may be quoted


def fenced_blocks(lines):
    """(index of the opening fence, body lines) for each fenced block."""
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            yield i, lines[i + 1:j]
            i = j + 1
        else:
            i += 1


def is_skip(line):
    rest = TRACE_PREFIX.sub("", line.strip(), count=1) if TRACE_LINE.match(line) else line.strip()
    return re.fullmatch(ELLIPSIS + r"(\s+\(.*\))?", rest.strip("│├└─ ")) is not None


def line_pattern(line):
    line = re.sub(r"\s+←.*$", "", line)
    return re.compile(".*".join(re.escape(part) for part in line.rstrip().split(ELLIPSIS)) + r"\s*")


def thread_group(line):
    """Which order a line keeps: the program's threads, the simulated GPU's, or plain output."""
    if re.match(r"^t\d+#\d+\s", line):
        return "gpu"
    return "host" if TRACE_LINE.match(line) else "plain"


def without_call_number(line):
    return CALL_NUMBER.sub("", line.rstrip(), count=1).lstrip() if CALL_NUMBER.match(line) else line.rstrip()


def find_in_order(patterns, source):
    """None if the patterns match lines of source in order; else the excerpt index of the first that does not."""
    at = 0
    for k, pattern in patterns:
        while at < len(source) and not pattern.fullmatch(source[at]):
            at += 1
        if at == len(source):
            return k
        at += 1
    return None


def find_excerpt(body, source):
    """None if body's lines occur in source as the module doc says; else the first bad line's index."""
    groups = {}
    for line in source:
        groups.setdefault(thread_group(line), []).append(without_call_number(line))
    patterns = {}  # group -> [(excerpt index, pattern)]
    for k, line in enumerate(body):
        if not is_skip(line):
            patterns.setdefault(thread_group(line), []).append((k, line_pattern(without_call_number(line))))
    bad = [find_in_order(p, groups.get(group, [])) for group, p in patterns.items()]
    bad = [b for b in bad if b is not None]
    return min(bad) if bad else None


def run_command(command, build):
    """The output of a command line from the docs ("$ VAR=1 ./build/bin/prog args")."""
    words = shlex.split(command.removeprefix("$").strip())
    env = dict(os.environ)
    while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    if not words:
        return None
    words = [str(pathlib.Path(build).resolve() / w[len("./build/"):]) if w.startswith("./build/") else w for w in words]
    with tempfile.TemporaryDirectory() as scratch:
        try:
            done = subprocess.run(words, env=env, cwd=scratch, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            return None
    return done.stdout.decode("utf-8", errors="replace").split("\n")


def check_file(root, md, findings, build, outputs):
    text = md.read_text(encoding="utf-8")
    lines = text.split("\n")
    rel = md.relative_to(root)
    for fence, body in fenced_blocks(lines):
        k = fence - 1
        while k >= 0 and lines[k].strip() == "":
            k -= 1
        tree = RM_TREE_MARKER.match(lines[k].strip()) if k >= 0 else None
        if tree:
            check_rm_tree(root, rel, fence, body, tree.group(1), findings)
        if any(TRACE_LINE.match(l) for l in body):
            marker = None
            k = fence - 1
            while k >= 0 and lines[k].strip() == "":
                k -= 1
            if k >= 0:
                m = MARKER.match(lines[k].strip())
                marker = m.group(1) if m else None
            if marker is None:
                findings.append(f"{rel}:{fence + 1}: a trace excerpt without <!-- excerpt: SOURCE --> before it")
                continue
            if marker.startswith("$"):
                if build is None:
                    findings.append(f"{rel}:{fence + 1}: the excerpt's source is a command; give --build")
                    continue
                if marker not in outputs:
                    outputs[marker] = run_command(marker, build)
                source = outputs[marker]
                if source is None:
                    findings.append(f"{rel}:{fence + 1}: the excerpt's command did not run: {marker}")
                    continue
            else:
                source_path = root / marker
                if not source_path.is_file():
                    findings.append(f"{rel}:{fence + 1}: the excerpt's source {marker} does not exist")
                    continue
                source = [l.rstrip() for l in source_path.read_text(encoding="utf-8").split("\n")]
            bad = find_excerpt(body, source)
            if bad is not None:
                findings.append(f"{rel}:{fence + 2 + bad}: not in {marker} (in this order): {body[bad].strip()}")
        listed = None  # the program file the last frame named, for a listing after it
        for k, line in enumerate(body):
            at = f"{rel}:{fence + 2 + k}"
            listing = LISTING.match(line)
            if listing:
                if listed is None:
                    findings.append(f"{at}: a gdb source listing with its line number: {line.strip()}")
                else:
                    program_lines = listed.read_text(encoding="utf-8", errors="replace").split("\n")
                    n = int(listing.group(1))
                    if n > len(program_lines) or program_lines[n - 1].strip() != listing.group(2).strip():
                        findings.append(f"{at}: line {n} of {listed.relative_to(root)} is not: {listing.group(2).strip()}")
                continue
            m = FRAME.match(line.strip())
            if not m:
                continue
            path = root / m.group("path")
            if not path.is_file():
                findings.append(f"{at}: the frame's file {m.group('path')} does not exist")
                continue
            program = m.group("path").startswith(PROGRAMS)
            if program and m.group("line"):
                listed = path
            if m.group("line") and not program:
                findings.append(f"{at}: a backtrace frame with a line number: {line.strip()}")
            name = re.sub(r"<.*>", "", m.group("func")).split("::")[-1].strip()
            if name and name != "main" and not re.search(r"\b" + re.escape(name) + r"\b", path.read_text(encoding="utf-8", errors="replace")):
                findings.append(f"{at}: {m.group('path')} has no function {name}")


def check_rm_tree(root, rel, fence, body, source, findings):
    """The tree's objects, classes and parents against the golden trace's rm_alloc lines."""
    allocated = {}  # handle -> (parent, class)
    text = (root / source).read_text(encoding="utf-8")
    for m in RM_CLIENT.finditer(text):
        allocated[m.group(1)] = (None, "NV01_ROOT_CLIENT")
    for m in RM_ALLOC.finditer(text):
        if m.group(3) != "0x00000000":
            allocated[m.group(3)] = (m.group(2), m.group(4))
    stack = []  # (indent width, handle)
    for k, line in enumerate(body):
        m = TREE_NODE.match(line)
        if not m:
            continue
        width = len(m.group("indent"))
        while stack and stack[-1][0] >= width:
            stack.pop()
        parent = stack[-1][1] if stack else None
        handle, cls = m.group("handle"), m.group("cls")
        at = f"{rel}:{fence + 2 + k}"
        if handle not in allocated:
            findings.append(f"{at}: {handle} is not allocated in {source}")
        elif allocated[handle][1] != cls:
            findings.append(f"{at}: {handle} is a {allocated[handle][1]} in {source}, not a {cls}")
        elif parent is not None and allocated[handle][0] != parent:
            findings.append(f"{at}: {handle}'s parent is {allocated[handle][0]} in {source}, not {parent}")
        stack.append((width, handle))


def check(root, build=None):
    root = pathlib.Path(root)
    findings = []
    outputs = {}  # command -> its output lines, each command run once
    pages = [root / "README.md"] + sorted((root / "docs").rglob("*.md"))
    for md in pages:
        if md.is_file():
            check_file(root, md, findings, build, outputs)
    return findings


def self_test():
    golden = "#1   cudart   cudaMalloc(devPtr=<host>, size=4)\n#1   libcuda  ├─ cuMemAlloc_v2(dptr=<host>, bytesize=4)\n" \
             "#1   libcuda  │  ├─ pool: hit\n#1   libcuda  │  └─ = CUDA_SUCCESS\n#1   cudart   └─ = cudaSuccess\n"
    source = "void grow() {}\n"
    program_source = "int main() {\n  grow();\n}\n"
    good = ("<!-- excerpt: g.txt -->\n```\n#1   cudart   cudaMalloc(devPtr=…, size=4)\n#1   libcuda  ├─ cuMemAlloc_v2(…)   ← the driver\n"
            "…\n#1   cudart   └─ = cudaSuccess\n```\n```\n#5  minicuda::Pool::grow (this=...) at src/pool.cpp\n```\n")
    # A program whose GPU thread's lines interleave with the caller's differently from run to run.
    program = ("#!/bin/sh\necho 'hello'\necho \"#7   cudart   cudaMemcpy(count=$COUNT)\"\n"
               "echo 't2#9 gpu      ce0: copy'\necho '#7   cudart   └─ = cudaSuccess'\n")
    good += ("<!-- excerpt: $ COUNT=4 ./build/bin/prog -->\n```\n#1   cudart   cudaMemcpy(count=4)\n"
             "t3#2 gpu      ce0: copy\n#1   cudart   └─ = cudaSuccess\n```\n")
    golden_rm = ("#1   nvidia   │  │  │  ├─ rm: new client 0xc1d00001 for pid <pid>\n"
                 "#1   nvidia   │  │  ├─ rm_alloc(hRoot=0xc1d00001, hParent=0xc1d00001, hObject=0x5c000001, hClass=NV01_DEVICE_0, paramsSize=56)\n"
                 "#1   nvidia   │  │  ├─ rm_alloc(hRoot=0xc1d00001, hParent=0x5c000001, hObject=0x5c000002, hClass=NV20_SUBDEVICE_0, paramsSize=4)\n")
    good += ("<!-- rm-tree: rm.txt -->\n```\nclient 0xc1d00001 (NV01_ROOT_CLIENT)\n└─ 0x5c000001 NV01_DEVICE_0\n"
             "   └─ 0x5c000002 NV20_SUBDEVICE_0\n```\n")
    planted = {
        "tree: wrong class": "<!-- rm-tree: rm.txt -->\n```\n└─ 0x5c000001 NV01_DEVICE_1\n```\n",
        "tree: wrong parent": "<!-- rm-tree: rm.txt -->\n```\nclient 0xc1d00001 (NV01_ROOT_CLIENT)\n└─ 0x5c000002 NV20_SUBDEVICE_0\n```\n",
        "tree: unknown object": "<!-- rm-tree: rm.txt -->\n```\n└─ 0x5c000009 NV20_SUBDEVICE_0\n```\n",
        "command output changed": "<!-- excerpt: $ COUNT=8 ./build/bin/prog -->\n```\n#1   cudart   cudaMemcpy(count=4)\n```\n",
        "gpu line changed": "<!-- excerpt: $ COUNT=4 ./build/bin/prog -->\n```\n#1   cudart   cudaMemcpy(count=4)\n"
                            "t3#2 gpu      ce1: copy\n```\n",
        "command missing": "<!-- excerpt: $ ./build/bin/nothing -->\n```\n#1   cudart   cudaMemcpy(count=4)\n```\n",
        "GPU lines without marker": "```\nt2#5 gpu      ce0: copy\n```\n",
        "no marker": "```\n#1   cudart   cudaMalloc(devPtr=<host>, size=4)\n```\n",
        "missing source": "<!-- excerpt: nope.txt -->\n```\n#1   cudart   cudaMalloc(devPtr=<host>, size=4)\n```\n",
        "changed value": "<!-- excerpt: g.txt -->\n```\n#1   cudart   cudaMalloc(devPtr=<host>, size=8)\n```\n",
        "line left out twice": "<!-- excerpt: g.txt -->\n```\n#1   libcuda  │  ├─ pool: hit\n#1   libcuda  │  ├─ pool: hit\n```\n",
        "wrong order": "<!-- excerpt: g.txt -->\n```\n#1   cudart   └─ = cudaSuccess\n…\n#1   cudart   cudaMalloc(devPtr=<host>, size=4)\n```\n",
        "frame line number": "```\n#5  minicuda::Pool::grow (this=...) at src/pool.cpp:12\n```\n",
        "frame renamed": "```\n#5  minicuda::Pool::shrink (this=...) at src/pool.cpp\n```\n",
        "frame file moved": "```\n#5  minicuda::Pool::grow (this=...) at src/old_pool.cpp\n```\n",
        "listing line number": "```\n(gdb) next\n120\t  grow();\n```\n",
        "listing moved": "```\nBreakpoint 1, main () at tests/gdb/t.cpp:1\n1\t  grow();\n```\n",
    }
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        root = pathlib.Path(scratch)
        (root / "docs").mkdir()
        (root / "src").mkdir()
        (root / "g.txt").write_text(golden, encoding="utf-8")
        (root / "rm.txt").write_text(golden_rm, encoding="utf-8")
        (root / "src" / "pool.cpp").write_text(source, encoding="utf-8")
        (root / "tests" / "gdb").mkdir(parents=True)
        (root / "tests" / "gdb" / "t.cpp").write_text(program_source, encoding="utf-8")
        (root / "build" / "bin").mkdir(parents=True)
        (root / "build" / "bin" / "prog").write_text(program, encoding="utf-8")
        (root / "build" / "bin" / "prog").chmod(0o755)
        (root / "README.md").write_text(good, encoding="utf-8")
        build = root / "build"
        if check(root, build):
            failures.append(f"the faithful page was flagged: {check(root, build)}")
        for what, page in planted.items():
            (root / "docs" / "page.md").write_text(page, encoding="utf-8")
            if not check(root, build):
                failures.append(f"not flagged: {what}")
    return failures



if __name__ == "__main__":
    sys.exit(check_cli.run(sys.argv, __doc__, check, self_test, ("--build",)))
