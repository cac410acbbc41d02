#!/usr/bin/env python3
"""The differential gate of region fission: every split kernel runs both ways, compared.

    fission_gate.py --translator PATH --sources A.cu B.cu ... --run 'PROGRAM [ARGS]' ... \
                    [--compare-output 'PROGRAM [ARGS]' ...] [--not-run KERNEL=REASON ...]

1. Asks the translator (MINICUDA_CU2CXX_FISSION=1) which kernels of the given .cu files it splits
   into regions.
2. Runs each --run program with MINICUDA_FISSION=check and MINICUDA_ENGINE_THREADS=0: the GPU runs
   every launch of a split kernel with fibers, then as regions over the same memory, and compares
   the bytes the two left (device_sim/src/fission_check.h). Each program must exit 0, and the
   checked launches are logged (MINICUDA_FISSION_CHECK_LOG).
3. Runs each --compare-output program with fission on and with MINICUDA_FISSION=0 (on one SM
   thread, so that the blocks run in the same order), and compares the two standard outputs bit
   for bit.

Fails when a launch differed, a program failed, two outputs differ, or a split kernel was never
checked (unless --not-run names it with a reason). Prints the counts docs/reliability.md quotes.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile


def split_kernels(translator, sources):
    kernels, kept = {}, 0
    env = dict(os.environ, MINICUDA_CU2CXX_FISSION="1")
    with tempfile.TemporaryDirectory() as tmp:
        for source in sources:
            out = os.path.join(tmp, "out.cpp")
            done = subprocess.run([translator, source, out], env=env, capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"fission_gate: the translator failed on {source}:\n{done.stderr}")
            for line in done.stderr.splitlines():
                m = re.search(r"kernel ::(\S+) split into regions", line)
                if m:
                    kernels[m.group(1)] = source
                elif "keeps fibers" in line:
                    kept += 1
    return kernels, kept


def run(command, extra_env):
    env = dict(os.environ)
    env.update(extra_env)
    return subprocess.run(shlex.split(command), env=env, capture_output=True, text=True, timeout=900)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--translator", required=True)
    parser.add_argument("--sources", nargs="+", required=True)
    parser.add_argument("--run", action="append", default=[])
    parser.add_argument("--compare-output", action="append", default=[])
    parser.add_argument("--not-run", action="append", default=[])
    args = parser.parse_args()

    kernels, kept = split_kernels(args.translator, args.sources)
    not_run = dict(item.split("=", 1) for item in args.not_run)
    failures = []
    checked = {}
    launches = different = 0
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "check.log")
        for command in args.run:
            open(log, "w").close()
            done = run(command, {"MINICUDA_FISSION": "check", "MINICUDA_ENGINE_THREADS": "0",
                                 "MINICUDA_FISSION_CHECK_LOG": log, "MINICUDA_TRACE": ""})
            if done.returncode != 0:
                failures.append(f"{command} exited {done.returncode} under MINICUDA_FISSION=check:\n"
                                f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
            for line in open(log):
                kernel, verdict = line.rsplit(None, 1)
                # An instantiation of a template kernel counts for the template the translator split.
                kernel = kernel.split("<", 1)[0]
                launches += 1
                checked.setdefault(kernel, 0)
                checked[kernel] += 1
                if verdict != "same":
                    different += 1
                    failures.append(f"{command}: a launch of {kernel} left different bytes as regions and as fibers")
    for command in args.compare_output:
        # One SM thread: the blocks run in one order, so that blocks reading what other blocks
        # write give the same bytes on every run.
        on = run(command, {"MINICUDA_TRACE": "", "MINICUDA_SM_THREADS": "1"})
        off = run(command, {"MINICUDA_FISSION": "0", "MINICUDA_TRACE": "", "MINICUDA_SM_THREADS": "1"})
        if on.returncode != 0 or off.returncode != 0:
            failures.append(f"{command} failed: exit {on.returncode} with fission, {off.returncode} without")
        elif on.stdout != off.stdout:
            failures.append(f"{command}: the output with fission differs from the output with fibers")
    missing = sorted(k for k in kernels if k not in checked and k not in not_run)
    for kernel in missing:
        failures.append(f"split kernel {kernel} ({kernels[kernel]}) was never launched under the check")
    print(f"fission gate: {len(kernels)} split kernels in {len(args.sources)} files ({kept} kept fibers); "
          f"{len(checked)} checked in {launches} launches, {different} differed; {len(not_run)} not run "
          f"({', '.join(sorted(not_run))}); {len(args.compare_output)} outputs compared")
    for kernel, reason in sorted(not_run.items()):
        print(f"  not run: {kernel}: {reason}")
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
