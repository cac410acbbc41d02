#!/usr/bin/env bash
# compat.sh: how many of NVIDIA's cuda-samples build and pass on minicuda (docs/compatibility.md).
#
#   scripts/compat.sh [options] CUDA_SAMPLES_DIR
#     -j N             samples built and run at once (default 2)
#     --nvcc PATH      the compiler (default: build/bin/minicuda-nvcc of this checkout); NVIDIA's
#                      nvcc builds with -cudart shared against minicuda's libraries (--lib)
#     --lib DIR        minicuda's libcudart.so.13 and libcuda.so.1 for nvcc (default: build/lib)
#     --module-nvcc P  NVIDIA's nvcc, for the .fatbin/.ptx files a sample's CMake makes with nvcc
#                      (default: --nvcc if it is NVIDIA's, else nvcc on PATH or /usr/local/cuda/bin;
#                      none: make no module file, and fail the samples that need one)
#     --run-timeout S  seconds a sample may run (default 120); --build-timeout S (default 600)
#     --work DIR       scratch directory (default /tmp/minicuda-compat); kept for the logs
#     --only REGEX     only the samples whose name matches
#     --scope 13|16    which issue's rule counts the samples (default 13; see below)
#     --markdown       print the tables as Markdown, ready for docs/compatibility.md
#     --classify       only print each sample's exclusion reason (empty: counted); build nothing
#     --report         only print the tables of the last run in --work (e.g. again with --markdown)
#
# CUDA_SAMPLES_DIR is a checkout of github.com/NVIDIA/cuda-samples (CUDA 13 layout: Samples/ and
# Common/). The corpus is measured, never copied into this project.
#
# Which samples count (issue 13's rule): those of Samples/0_Introduction, 1_Utilities,
# 2_Concepts_and_Techniques, 3_CUDA_Features and 6_Performance whose sources need none of:
# graphics interop, an NVIDIA library, NVRTC, several processes, textures, CUDA graphs, the
# stream-ordered allocator, tensor cores, cuda::barrier/pipeline, or modules loaded through the
# driver API. The need is found by grepping the sample's files (exclusion_reason below); the
# excluded samples are listed with their reason. With --scope 16 (issue 16's rule) the samples
# that need textures, graphs, the stream-ordered allocator, tensor cores, cuda::barrier/pipeline
# or driver API modules count too; only graphics interop, NVIDIA libraries, NVRTC and several
# processes are left out.
#
# Each counted sample: its CMakeLists' add_executable sources are compiled directly with
# minicuda-nvcc (-I Common; -fopenmp where the CMakeLists asks for OpenMP; -lcuda where it links
# CUDA::cuda_driver). A module file its CMakeLists makes with a custom nvcc command
# (CUDA_FATBIN_FILE with -fatbin, CUDA_PTX_FILE with -ptx, from CUDA_KERNEL_SOURCE) is made by
# --module-nvcc with -arch=sm_90, so that it holds PTX for the driver's JIT: minicuda-nvcc
# cannot make one (its kernels are C++, compiled into the program). The program runs with a
# timeout in a scratch directory that holds the module files and links
# the sample's data, on a simulated machine of two H200s (MINICUDA_DEVICES=2), and the verdict is
#   PASS    exit status 0 and no "FAIL"/"Test failed" in the output
#   WAIVED  the sample waived itself (exit status 2 and "waiv" in the output)
#   FAIL    anything else, with the reason: the first compiler error, the timeout, or the last
#           line of output that names an error
# Exit status: 0 when the measure ran (whatever the verdicts), 2 on bad usage.
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
jobs=2
nvcc="$here/build/bin/minicuda-nvcc"
lib="$here/build/lib"
module_nvcc=""
run_timeout=120
build_timeout=600
work=/tmp/minicuda-compat
only=""
scope=13
markdown=0
classify=0
report_only=0
categories=(0_Introduction 1_Utilities 2_Concepts_and_Techniques 3_CUDA_Features 6_Performance)

usage() { sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# ---------------------------------------------------------------------------------------------
# One sample (the worker that -j runs in parallel): writes <work>/<name>/result, one line
#   category<TAB>name<TAB>builds<TAB>runs<TAB>verdict<TAB>reason
# ---------------------------------------------------------------------------------------------

# The first reason the sample in directory $1 is outside the measure, or nothing.
exclusion_reason() {
  local dir=$1
  local files
  files=$(find "$dir" -type f \( -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.c' \
            -o -name '*.h' -o -name '*.hpp' -o -name '*.cxx' -o -name 'CMakeLists.txt' \) | sort)
  [ -z "$files" ] && { echo "no sources"; return; }
  has() { grep -lE "$1" $files >/dev/null 2>&1; }
  # Order: the most specific need first, so a sample reads as what it is about.
  if has 'nvrtc'; then echo "NVRTC"; return; fi
  if has '\b(GL|GLES[0-9]*)/|\bglut|GLFW|\bEGL|\b[Vv]ulkan|\b[Vv]k[A-Z]|\b[Dd]3[Dd]1[0-2]|cudaGraphics|cuda_gl_interop|\bNvSci|\bnvsci|X11/'; then
    echo "graphics interop (GL/EGL/Vulkan/D3D/NvSci)"; return; fi
  local libraries='\b(cublas|cufft|curand|cusparse|cusolver|npp[a-z]*\.h|nvjpeg|nvJPEG|thrust/|cub/|cudla|nvml)'
  if has "$libraries"; then
    echo "NVIDIA library ($(grep -ohE "$libraries" $files | sed 's|/$||' | sort -u | head -3 | tr '\n' ' ' | sed 's/ $//'))"
    return; fi
  if has 'helper_multiprocess|cudaIpc|cuIpc|MPI_Init|<mpi\.h>|ExportToShareableHandle'; then
    echo "several processes (IPC/MPI)"; return; fi
  [ "$scope" = 16 ] && return
  if has '\btexture<|cudaTextureObject|CUtexObject|cudaSurfaceObject|CUsurfObject|tex[123]D|texCubemap|surf[123]D|cudaMallocArray|cudaMalloc3DArray|cuArrayCreate'; then
    echo "textures/surfaces"; return; fi
  if has 'cudaGraph|cuGraph|cudaStreamBeginCapture'; then echo "CUDA graphs"; return; fi
  if has 'cudaMallocAsync|cudaFreeAsync|cudaMemPool|cuMemPool|cuMemAllocAsync'; then
    echo "stream-ordered allocator"; return; fi
  if has '\bwmma|<mma\.h>|\bmma\.sync|mma_sync|__hmma'; then echo "tensor cores (wmma/mma)"; return; fi
  if has 'cuda/barrier|cuda/pipeline|cuda::barrier|cuda::pipeline|cuda_pipeline|__pipeline_|cuda_awbarrier'; then
    echo "cuda::barrier/pipeline"; return; fi
  if has 'cuModuleLoad|cuLinkCreate|cuLibraryLoad'; then echo "modules through the driver API (PTX/cubin)"; return; fi
}

# The module files the sample's CMakeLists makes with nvcc, one line each: kind (fatbin, ptx or
# cubin), file name, kernel source (relative to the sample). Nothing when there are none.
module_files() {
  local cml=$1/CMakeLists.txt kind file src
  src=$(grep -oE 'set\(CUDA_KERNEL_SOURCE +"[^"]*"' "$cml" 2>/dev/null | head -1 | sed -E 's|.*/([^/"]+)"$|\1|')
  for kind in fatbin ptx cubin; do
    file=$(grep -oiE "set\\(CUDA_${kind}_FILE +\"[^\"]*\"" "$cml" 2>/dev/null | head -1 | sed -E 's|.*/([^/"]+)"$|\1|')
    [ -n "$file" ] && [ -n "$src" ] && printf '%s\t%s\t%s\n' "$kind" "$file" "$src"
  done
}

# The sources of the executable the sample's CMakeLists builds (its first add_executable),
# absolute; every source of the directory when there is none.
sample_sources() {
  local dir=$1 name=$2
  local spec
  spec=$(tr '\n' ' ' < "$dir/CMakeLists.txt" 2>/dev/null | grep -oE "add_executable\( *$name [^)]*\)" | head -1)
  if [ -z "$spec" ]; then
    find "$dir" -maxdepth 2 -type f \( -name '*.cu' -o -name '*.cpp' -o -name '*.c' \) | sort
    return
  fi
  local word
  for word in $(echo "$spec" | sed -e "s/^add_executable( *$name //" -e 's/)$//'); do
    case "$word" in
      *.cu|*.cpp|*.c|*.cc) (cd "$dir" && realpath -m "$word") ;;
    esac
  done
}

reason_of_build() {
  grep -m1 -E 'error|Error' "$1" | sed -e 's|^[^ ]*/Samples/|Samples/|' -e 's|^minicuda-nvcc: ||' | cut -c1-200
}

reason_of_run() {
  local log=$1 status=$2
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then echo "timeout after ${run_timeout}s"; return; fi
  local line
  line=$(grep -aiE 'error|fail|abort|illegal|not supported|terminate|assert' "$log" | grep -avE '^ *$' | tail -1 | cut -c1-200)
  [ -z "$line" ] && line=$(grep -av '^ *$' "$log" | tail -1 | cut -c1-200)
  echo "exit $status: $line"
}

run_one() {
  local dir=$1
  local name category out
  name=$(basename "$dir")
  category=$(basename "$(dirname "$dir")")
  out="$work/$name"
  rm -rf "$out" && mkdir -p "$out"
  local result="$out/result"
  local reason
  reason=$(exclusion_reason "$dir")
  if [ -n "$reason" ]; then
    printf '%s\t%s\t-\t-\tEXCLUDED\t%s\n' "$category" "$name" "$reason" > "$result"
    return
  fi
  mapfile -t sources < <(sample_sources "$dir" "$name")
  local common="$samples/Common"
  local includes=(-I"$common" -I"$dir")
  [ -d "$dir/inc" ] && includes+=(-I"$dir/inc")
  [ -d "$dir/src" ] && includes+=(-I"$dir/src")
  # What the sample's CMakeLists links beyond CUDA that the host compiler provides.
  local extra=()
  grep -q 'OpenMP' "$dir/CMakeLists.txt" && extra+=(-Xcompiler -fopenmp)
  grep -q 'CUDA::cuda_driver' "$dir/CMakeLists.txt" && extra+=(-lcuda)
  # NVIDIA's nvcc: the shared runtime, and minicuda's libraries in place of NVIDIA's.
  [ "$mode" = nvcc ] && extra+=(-cudart shared -L"$lib" -Xlinker "-rpath,$lib")
  local kind file src
  while IFS=$'\t' read -r kind file src; do
    [ -n "$kind" ] || continue
    if [ -z "$module_nvcc" ]; then
      printf '%s\t%s\tno\t-\tFAIL\t%s\n' "$category" "$name" \
        "needs $file (nvcc -$kind), which minicuda-nvcc cannot make, and no NVIDIA nvcc is given or found (--module-nvcc)" > "$result"
      return
    fi
    if ! timeout -k 5 "$build_timeout" "$module_nvcc" -arch=sm_90 -Wno-deprecated-gpu-targets "${includes[@]}" \
        "-$kind" -o "$out/$file" "$dir/$src" >> "$out/build.log" 2>&1 </dev/null; then
      reason=$(reason_of_build "$out/build.log")
      printf '%s\t%s\tno\t-\tFAIL\t%s\n' "$category" "$name" "$file: ${reason:-nvcc -$kind failed}" > "$result"
      return
    fi
  done < <(module_files "$dir")
  if ! timeout -k 5 "$build_timeout" "$nvcc" -O2 -std=c++17 -arch=sm_90 -Wno-deprecated-gpu-targets \
      "${includes[@]}" "${extra[@]}" -o "$out/$name" "${sources[@]}" >> "$out/build.log" 2>&1 </dev/null; then
    reason=$(reason_of_build "$out/build.log")
    [ -z "$reason" ] && reason="build failed (see $out/build.log)"
    printf '%s\t%s\tno\t-\tFAIL\t%s\n' "$category" "$name" "$reason" > "$result"
    return
  fi
  # The sample's data files are found relative to the working directory.
  local entry
  for entry in "$dir"/*; do
    [ -e "$out/$(basename "$entry")" ] || ln -s "$entry" "$out/$(basename "$entry")"
  done
  local status=0
  # A two-GPU machine (MINICUDA_DEVICES=2), so that the multi-GPU samples run instead of waiving.
  (cd "$out" && LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" MINICUDA_DEVICES=2 \
     timeout -k 5 "$run_timeout" "./$name" > run.log 2>&1 </dev/null) || status=$?
  local verdict=FAIL
  if [ "$status" -eq 0 ] && ! grep -aqE 'FAIL|[Tt]est failed' "$out/run.log"; then
    verdict=PASS; reason=""
  elif [ "$status" -eq 2 ] && grep -aqi 'waiv' "$out/run.log"; then
    verdict=WAIVED; reason=$(grep -ai -m1 'waiv' "$out/run.log" | cut -c1-200)
  else
    reason=$(reason_of_run "$out/run.log" "$status")
  fi
  printf '%s\t%s\tyes\t%s\t%s\t%s\n' "$category" "$name" "$([ "$status" -eq 0 ] && echo yes || echo "exit $status")" \
    "$verdict" "$reason" > "$result"
}

# ---------------------------------------------------------------------------------------------
# The command line and the report.
# ---------------------------------------------------------------------------------------------
if [ "${1:-}" = "--one" ]; then
  # Internal: the worker for one sample directory, with the settings the parent exported.
  samples=$COMPAT_SAMPLES nvcc=$COMPAT_NVCC run_timeout=$COMPAT_RUN_TIMEOUT
  build_timeout=$COMPAT_BUILD_TIMEOUT work=$COMPAT_WORK scope=$COMPAT_SCOPE
  mode=$COMPAT_MODE lib=$COMPAT_LIB module_nvcc=$COMPAT_MODULE_NVCC
  run_one "$2"
  exit 0
fi

samples=""
while [ $# -gt 0 ]; do
  case "$1" in
    -j) jobs=$2; shift 2 ;;
    -j*) jobs=${1#-j}; shift ;;
    --nvcc) nvcc=$2; shift 2 ;;
    --lib) lib=$2; shift 2 ;;
    --module-nvcc) module_nvcc=$2; shift 2 ;;
    --run-timeout) run_timeout=$2; shift 2 ;;
    --build-timeout) build_timeout=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --scope) scope=$2; shift 2; case "$scope" in 13|16) ;; *) usage ;; esac ;;
    --markdown) markdown=1; shift ;;
    --classify) classify=1; shift ;;
    --report) report_only=1; shift ;;
    -h|--help) usage ;;
    -*) echo "compat.sh: unknown option $1" >&2; usage ;;
    *) samples=$1; shift ;;
  esac
done
[ -n "$samples" ] || usage
samples=$(cd "$samples" && pwd) || exit 2
[ -d "$samples/Samples" ] && [ -d "$samples/Common" ] || { echo "compat.sh: $samples has no Samples/ and Common/" >&2; exit 2; }
[ -x "$nvcc" ] || { echo "compat.sh: no minicuda-nvcc at $nvcc (build it, or pass --nvcc)" >&2; exit 2; }
# minicuda-nvcc says so in its --version; anything else is taken for NVIDIA's nvcc.
mode=minicuda
"$nvcc" --version 2>/dev/null | grep -q minicuda || mode=nvcc
if [ "$module_nvcc" = none ]; then module_nvcc=""
elif [ -z "$module_nvcc" ]; then
  if [ "$mode" = nvcc ]; then module_nvcc=$nvcc
  else module_nvcc=$(command -v nvcc || { [ -x /usr/local/cuda/bin/nvcc ] && echo /usr/local/cuda/bin/nvcc; } || true)
  fi
fi
[ "$mode" = nvcc ] && ! [ -e "$lib/libcudart.so.13" ] && { echo "compat.sh: no libcudart.so.13 in $lib (build minicuda_abi_libraries, or pass --lib)" >&2; exit 2; }
lib=$(cd "$lib" 2>/dev/null && pwd || echo "$lib")
mkdir -p "$work"
export COMPAT_MODE=$mode COMPAT_LIB=$lib COMPAT_MODULE_NVCC=$module_nvcc
export COMPAT_SAMPLES=$samples COMPAT_NVCC=$nvcc COMPAT_RUN_TIMEOUT=$run_timeout
export COMPAT_BUILD_TIMEOUT=$build_timeout COMPAT_WORK=$work COMPAT_SCOPE=$scope

dirs=()
for category in "${categories[@]}"; do
  for dir in "$samples/Samples/$category"/*/; do
    dir=${dir%/}
    [ -f "$dir/CMakeLists.txt" ] || continue
    [ -n "$only" ] && ! [[ $(basename "$dir") =~ $only ]] && continue
    dirs+=("$dir")
  done
done
if [ "$classify" -eq 1 ]; then
  for dir in "${dirs[@]}"; do
    printf '%-48s %s\n' "$(basename "$(dirname "$dir")")/$(basename "$dir")" "$(exclusion_reason "$dir")"
  done
  exit 0
fi
echo "compat.sh: ${#dirs[@]} samples, $jobs at a time, with $("$nvcc" --version | tail -2 | head -1) ($mode mode; module files: ${module_nvcc:-none})" >&2
if [ "$report_only" -eq 0 ]; then
  printf '%s\0' "${dirs[@]}" | xargs -0 -n1 -P "$jobs" "$0" --one
fi

results=$(for dir in "${dirs[@]}"; do
  r="$work/$(basename "$dir")/result"
  if [ -f "$r" ]; then cat "$r"; else printf '%s\t%s\t?\t?\tFAIL\tno result (worker died)\n' "$(basename "$(dirname "$dir")")" "$(basename "$dir")"; fi
done | sed -e "s|$samples/||g" -e "s|$here/||g")  # paths relative to the corpus and to minicuda
counted=$(awk -F'\t' '$5 != "EXCLUDED"' <<< "$results")
excluded=$(awk -F'\t' '$5 == "EXCLUDED"' <<< "$results")
n_counted=$(grep -c . <<< "$counted")
n_pass=$(awk -F'\t' '$5 == "PASS"' <<< "$counted" | grep -c .)
n_waived=$(awk -F'\t' '$5 == "WAIVED"' <<< "$counted" | grep -c .)
n_fail=$(awk -F'\t' '$5 == "FAIL"' <<< "$counted" | grep -c .)
n_built=$(awk -F'\t' '$3 == "yes"' <<< "$counted" | grep -c .)
n_excluded=$(grep -c . <<< "$excluded")

if [ "$markdown" -eq 1 ]; then
  echo "| sample | builds | runs | result | reason |"
  echo "| --- | --- | --- | --- | --- |"
  awk -F'\t' 'NF > 1 { gsub(/\|/, "\\|", $6); gsub(/</, "\\&lt;", $6); gsub(/>/, "\\&gt;", $6); printf "| %s/%s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }' <<< "$counted"
  echo
  echo "**Totals:** $n_counted samples counted: $n_pass PASS, $n_waived WAIVED, $n_fail FAIL ($n_built of $n_counted build). $n_excluded excluded."
  echo
  echo "| excluded sample | reason |"
  echo "| --- | --- |"
  awk -F'\t' 'NF > 1 { printf "| %s/%s | %s |\n", $1, $2, $6 }' <<< "$excluded"
else
  printf '%-48s %-6s %-8s %-7s %s\n' SAMPLE BUILDS RUNS RESULT REASON
  awk -F'\t' 'NF > 1 { printf "%-48s %-6s %-8s %-7s %s\n", $1 "/" $2, $3, $4, $5, $6 }' <<< "$counted"
  echo
  echo "TOTAL: $n_counted counted: $n_pass PASS, $n_waived WAIVED, $n_fail FAIL ($n_built build); $n_excluded excluded"
  echo
  printf '%-48s %s\n' EXCLUDED REASON
  awk -F'\t' 'NF > 1 { printf "%-48s %s\n", $1 "/" $2, $6 }' <<< "$excluded"
fi
