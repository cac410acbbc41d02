#!/usr/bin/env python3
"""Writes the region-fission stress set: randomised CUDA kernels, and a main that runs each one.

    gen_stress.py OUT.cu [--kernels N] [--seed S]

Every kernel is a random mix of what makes region fission delicate (docs/tools/cu2cxx.md,
"Region fission"): locals read through pointers (with casts, through macros, through aliasing
parameters) and pure ones, references, shared memory, loops around barriers under block-uniform
bounds, early returns, one thread writing what other threads read between barriers, and barriers
under uniform conditions, and barrier reductions. The suite runs the program with MINICUDA_FISSION=check, where the GPU
runs every split kernel with fibers and as regions and compares the bytes they leave, and again
with fission on and off, comparing the checksums it prints (tests/fission/CMakeLists.txt).

The kernels are race-free (Kernel says how), so fibers and regions must leave the same bytes
even where region fission changes the order in which the threads run: a region boundary that is
no barrier (the start of a loop) lets every thread finish the code before it first. Arithmetic
is unsigned (no undefined overflow), every index is reduced modulo its buffer, and no kernel
waits on another thread, so each one terminates. The same seed always writes the same file.
"""
import argparse
import random

BLOCK_SHAPES = [(32, 1), (64, 1), (96, 1), (16, 4), (8, 8), (128, 1)]
SHARED = 128  # the largest block of BLOCK_SHAPES


class Kernel:
    """One random kernel. Between two barriers each memory space - global (a and b, which may
    alias: the launches pass b = a, b = a + 16 and b apart) and shared (s) - is used in one way
    only: each thread touching its own slots (a's even words, b's odd ones, s[t]), or every thread
    reading any word, or one thread writing. So no two threads touch one word between barriers,
    and the kernel is race-free: its result does not depend on the order its threads run in.
    Wherever a statement would break that, a barrier goes before it."""

    def __init__(self, rng, index):
        self.rng = rng
        self.name = f"stress_{index:03d}"
        self.lines = []
        self.locals = []       # names of unsigned locals in scope at the current level
        self.mutable = set()   # those that may be changed
        self.counter = 0
        self.loop_depth = 0
        self.modes = {}        # space ("global", "shared") -> "own", "read" or "write"
        self.accesses = []     # of the statement being written
        # A shape that keeps a kernel on fibers, in a few kernels only: a function-like macro
        # (a call cu2cxx cannot see into).
        self.function_macro = rng.random() < 0.15
        # Barriers inside __device__ functions the kernel calls (helpers(), cu2cxx inlines them):
        # through a reference and a pointer parameter, nested calls, a result in an expression.
        self.calls = rng.random() < 0.4
        # Barrier reductions (__syncthreads_count/and/or), each a statement of its own.
        self.reductions = rng.random() < 0.5

    # --- expressions -------------------------------------------------------------------------
    def leaf(self):
        r = self.rng
        choices = ["t", "g", "blockIdx.x", "n", "m", str(r.randint(1, 97)) + "u", "threadIdx.x", "blockDim.x"]
        if self.locals:
            choices += self.locals * 2
        return r.choice(choices)

    def pure(self, depth=0):
        r = self.rng
        if depth > 2 or r.random() < 0.35:
            return self.leaf()
        op = r.choice(["+", "-", "*", "^", "|", "&"])
        form = r.randrange(4)
        a, b = self.pure(depth + 1), self.pure(depth + 1)
        if form == 0:
            return f"({a} {op} {b})"
        if form == 1:
            return f"({a}) {op} {b}"          # parentheses, then a binary operator
        if form == 2:
            return f"(unsigned)({a}) {op} {b}"
        return f"min({a}, {b})"

    def index(self, size):
        return f"({self.pure()}) % {size}"

    def memory_read(self):
        """An expression that reads any word of a or b, s, or c (which nothing writes), spelled
        in one of the ways fission must see through."""
        r = self.rng
        form = r.randrange(10)
        if form == 4:
            return f"(unsigned)(*c) * {self.pure()}"
        if form == 5:
            self.accesses.append(("shared", "read"))
            return f"s[{self.index(SHARED)}]"
        self.accesses.append(("global", "read"))
        if form == 0:
            return "(unsigned)*a"
        if form == 1:
            return f"(unsigned)*(b + {self.index('n')})"
        if form == 2:
            return f"a[{self.index('n')}]"
        if form == 3:
            return "FIRST_OF_B"
        if form == 6 and self.function_macro:
            return f"ELEM_OF_A({self.index('n')})"
        if form == 7:
            return f"({self.pure()}) * *b"
        if form == 8:
            return f"(unsigned)*a + (unsigned)(*c)"
        return f"(unsigned)b[{self.index('n')}] + {self.pure()}"

    def value(self):
        return self.memory_read() if self.rng.random() < 0.5 else self.pure()

    # --- statements --------------------------------------------------------------------------
    def emit(self, text):
        self.lines.append("  " * (1 + self.loop_depth) + text)

    def barrier(self):
        self.emit("__syncthreads();")
        self.modes = {}

    def place(self, text):
        """Emits a statement whose accesses are in self.accesses, after a barrier if they do
        not fit the ways the spaces are used since the last one. False (nothing emitted) if the
        statement conflicts with itself."""
        if not self.fit():
            return False
        self.emit(text)
        return True

    def fit(self):
        """What place() does before it emits: a barrier if self.accesses do not fit the ways
        the spaces are used since the last one, and those ways updated. False if the accesses
        conflict with each other."""
        wanted = {}
        for space, how in self.accesses:
            if wanted.get(space, how) != how or (how == "write" and space in wanted):
                return False
            wanted[space] = how
        fits = all(self.modes.get(space, how) == how and not (how == "write" and space in self.modes)
                   for space, how in wanted.items())
        if not fits:
            self.barrier()
        self.modes.update(wanted)
        return True

    def new_local(self):
        self.counter += 1
        return f"v{self.counter}"

    def statement(self, allow_loop=True):
        for _ in range(10):
            self.accesses = []
            if self.try_statement(allow_loop):
                return

    def try_statement(self, allow_loop):
        r = self.rng
        kinds = ["local", "local", "pure_local", "shared_write", "one_writer", "own_a", "own_b", "barrier",
                 "barrier"]
        if allow_loop:
            kinds += ["loop", "uniform_if"]
        if self.locals:
            kinds += ["reference", "update"]
        if self.loop_depth == 0:
            kinds += ["early_return"]
        if self.calls:
            kinds += ["call", "call"]
        if self.reductions:
            kinds += ["reduction", "reduction"]
            if allow_loop:
                kinds += ["reduction_loop"]
        kind = r.choice(kinds)
        if kind in ("local", "pure_local"):
            name = self.new_local()
            const = kind == "pure_local" or r.random() < 0.5
            init = self.pure() if kind == "pure_local" else self.value()
            if not self.place(f"{'const ' if const else ''}unsigned {name} = {init};"):
                return False
            self.locals.append(name)
            if not const:
                self.mutable.add(name)
            return True
        if kind == "shared_write":
            value = self.value()
            self.accesses.append(("shared", "own"))
            return self.place(f"s[t % {SHARED}] = {value};")
        if kind == "one_writer":
            space, target = r.choice([("global", "*a"), ("global", "*b"), ("global", f"a[{self.index('n')}]"),
                                      ("shared", "s[0]"), ("global", f"b[{self.index('n')}]")])
            value = self.value()
            self.accesses.append((space, "write"))
            return self.place(f"if (t == {r.randrange(64)}u % threads) {target} = {value};")
        if kind == "own_a":
            value = self.value()
            self.accesses.append(("global", "own"))
            return self.place(f"a[(2u * g) % n] ^= {value};")
        if kind == "own_b":
            value = self.value()
            self.accesses.append(("global", "own"))
            return self.place(f"b[(2u * g + 1u) % n] = {value};")
        if kind == "update":
            mutable = [v for v in self.locals if v in self.mutable]
            if not mutable:
                return False
            return self.place(f"{r.choice(mutable)} += {self.value()};")
        if kind == "reference":
            mutable = [v for v in self.locals if v in self.mutable]
            if not mutable:
                return False
            self.counter += 1
            ref = f"r{self.counter}"
            self.emit(f"unsigned& {ref} = {r.choice(mutable)};")
            self.accesses = []
            return self.place(f"{ref} += {self.value()};")
        if kind == "barrier":
            self.barrier()
            return True
        if kind == "call":
            return self.call()
        if kind == "reduction":
            return self.reduction()
        if kind == "reduction_loop":
            return self.reduction_loop()
        if kind == "uniform_if":
            return self.uniform_if()
        if kind == "early_return":
            self.emit(f"if (t >= threads - {r.randrange(1, 9)}u && m > {r.randrange(4)}u) return;")
            return True
        # A loop around barriers, its bound the same in every thread of the block. Its first
        # iteration continues what came before it (no barrier between), and the code after it
        # does too if it runs no iteration; each iteration ends at a barrier.
        self.counter += 1
        var = f"i{self.counter}"
        bound = r.choice(["m", "3u", "n % 4u", "blockIdx.x % 3u + 1u"])
        self.emit(f"for (unsigned {var} = 0; {var} < {bound}; ++{var}) {{")
        before_locals, before_modes = list(self.locals), dict(self.modes)
        self.loop_depth += 1
        self.locals.append(var)
        for _ in range(r.randint(1, 4)):
            self.statement(allow_loop=self.loop_depth < 2)
        self.barrier()
        self.loop_depth -= 1
        self.locals, self.modes = before_locals, before_modes
        self.emit("}")
        return True

    def reduction(self):
        """A barrier reduction as a statement of its own, a seam as a barrier is: its predicate
        (which may read memory) runs before the seam, in the spaces' ways since the last barrier;
        its result is declared, assigned to a local or written to the thread's own word of b
        after the seam, or dropped."""
        r = self.rng
        function = r.choice(["__syncthreads_count", "__syncthreads_and", "__syncthreads_or"])
        value = self.value()
        predicate = r.choice([f"({value}) % {r.randint(2, 5)}u == 0u", f"({value}) & 1u",
                              f"t < {r.randrange(1, 129)}u", value])
        if not self.fit():
            return False
        call = f"{function}({predicate})"
        mutable = [v for v in self.locals if v in self.mutable]
        form = r.randrange(4)
        self.modes = {}
        if form == 0:
            name = self.new_local()
            const = r.random() < 0.5
            self.emit(f"{'const ' if const else ''}unsigned {name} = {call};")
            self.locals.append(name)
            if not const:
                self.mutable.add(name)
        elif form == 1 and mutable:
            self.emit(f"{r.choice(mutable)} {r.choice(['=', '+=', '^='])} {call};")
        elif form == 2:
            self.emit(f"{call};")
        else:
            self.emit(f"b[(2u * g + 1u) % n] = {call};")
            self.modes = {"global": "own"}
        return True

    def reduction_loop(self):
        """A loop whose condition holds a barrier reduction, `while (__syncthreads_or(w > 0u))`,
        `while (__syncthreads_count(w > 0u) + k > 1u)` or a do-while on `!__syncthreads_and(w ==
        0u)`: w counts down a per-thread number of rounds
        (0 to 3) that no other statement touches, so every thread of the block goes round until
        the last one is done. The condition is a barrier: a while's body starts after one, and
        either loop ends at one; a do's first round continues what came before it."""
        r = self.rng
        self.counter += 1
        w = f"w{self.counter}"
        self.emit(f"unsigned {w} = ({self.pure()}) % 4u;")
        do = r.random() < 0.5
        before_locals = list(self.locals)
        if do:
            self.emit("do {")
        else:
            self.emit(r.choice([f"while (__syncthreads_or({w} > 0u)) {{",
                                f"while (__syncthreads_count({w} > 0u) + {r.randrange(2)}u > 1u) {{"]))
            self.modes = {}
        self.loop_depth += 1
        for _ in range(r.randint(1, 3)):
            self.statement(allow_loop=False)
        self.emit(f"{w} -= {w} > 0u;")
        self.loop_depth -= 1
        self.locals = before_locals
        self.emit(f"}} while (!__syncthreads_and({w} == 0u));" if do else "}")
        self.modes = {}
        return True

    def call(self):
        """A call of one of helpers(): each starts and ends with a barrier, so it fits after
        anything and leaves the spaces unused; its arguments read no memory."""
        r = self.rng
        h = self.name
        form = r.randrange(4)
        mutable = [v for v in self.locals if v in self.mutable]
        if form == 0 and mutable:
            target = r.choice(mutable)
            self.emit(f"{target} = {h}_exchange(s, {self.pure()}, {r.choice(mutable)});")
        elif form == 1:
            name = self.new_local()
            rest = r.choice(["", f" + {self.leaf()}", f" ^ ({self.pure()})"])
            self.emit(f"unsigned {name} = {h}_rounds(s, {self.pure()}, m){rest};")
            self.locals.append(name)
            self.mutable.add(name)
        elif form == 2 and mutable:
            self.emit(f"{r.choice(mutable)} += {h}_rounds(s, {self.pure()}, {r.choice(['2u', 'm', 'n % 3u'])});")
        else:
            self.emit(f"{h}_own(a, g, n, {self.pure()});")
        self.modes = {}
        return True

    def helpers(self):
        """The __device__ functions call() uses, race-free as the kernel is: between two
        barriers each thread writes only its own slot of s (or of a), or every thread reads."""
        h = self.name
        return "\n".join([
            f"__device__ unsigned {h}_exchange(unsigned* s, unsigned x, unsigned& acc) {{",
            "  const unsigned t = threadIdx.x + blockDim.x * threadIdx.y;",
            "  const unsigned threads = blockDim.x * blockDim.y;",
            "  __syncthreads();",
            f"  s[t % {SHARED}] = x * 3u + acc;",
            "  __syncthreads();",
            f"  unsigned v = s[(t + 1u) % threads % {SHARED}];",
            "  acc += v;",
            "  __syncthreads();",
            "  return v ^ x;",
            "}",
            f"__device__ unsigned {h}_rounds(unsigned* s, unsigned x, unsigned rounds) {{",
            "  unsigned acc = x;",
            "  for (unsigned i = 0; i < rounds; ++i) {",
            f"    x += {h}_exchange(s, x + i, acc);",
            "  }",
            f"  unsigned last = {h}_exchange(s, x, acc);",
            "  return last + acc;",
            "}",
            f"__device__ void {h}_own(unsigned* a, unsigned g, unsigned n, unsigned v) {{",
            "  __syncthreads();",
            "  a[(2u * g) % n] ^= v;",
            "  __syncthreads();",
            "}",
        ])

    def uniform_if(self):
        """An if around barriers whose condition is the same in the whole block, with an else
        half of the time: a block-uniform expression, or (in kernels with reductions) a barrier
        reduction of a per-thread predicate, which is a barrier before the branches. A branch
        that does not run leaves the spaces as they were, so each branch starts from them and the
        code after the if must fit all that came before."""
        r = self.rng
        cond = r.choice(["blockIdx.x % 2u == 0u", "m > 1u", "n % 3u != 1u", "(blockIdx.x + m) % 3u == 0u"])
        if self.reductions and r.random() < 0.4:
            cond = r.choice([
                f"{r.choice(['', '!'])}{r.choice(['__syncthreads_or', '__syncthreads_and'])}(({self.pure()}) % 3u == 0u)",
                f"__syncthreads_count(({self.pure()}) % 3u == 0u) * 3u > threads"])
            self.modes = {}
        before_locals, before_modes = list(self.locals), dict(self.modes)
        after_modes = dict(before_modes)
        branches = ["if (" + cond + ") {"] + (["} else {"] if r.random() < 0.5 else [])
        for opening in branches:
            self.emit(opening)
            self.loop_depth += 1
            self.modes = dict(before_modes)
            for _ in range(r.randint(1, 3)):
                self.statement(allow_loop=False)
            if r.random() < 0.7:
                self.barrier()
            for space, how in self.modes.items():
                after_modes.setdefault(space, how)
                if after_modes[space] != how:
                    after_modes[space] = "conflict"
            self.loop_depth -= 1
            self.locals = list(before_locals)
        self.emit("}")
        self.modes = after_modes
        return True

    def generate(self):
        for _ in range(self.rng.randint(4, 12)):
            self.statement()
        used = " + ".join(self.locals) if self.locals else "0u"
        self.accesses = [("global", "own")]
        self.place(f"a[(2u * g) % n] += {used};")
        head = [f"__global__ void {self.name}(unsigned* a, unsigned* b, const unsigned* c, unsigned n, unsigned m) {{",
                f"  __shared__ unsigned s[{SHARED}];",
                "  const unsigned threads = blockDim.x * blockDim.y;",
                "  const unsigned t = threadIdx.x + blockDim.x * threadIdx.y;",
                "  const unsigned g = blockIdx.x * threads + t;",
                f"  s[t % {SHARED}] = t;",
                "  __syncthreads();"]
        return "\n".join(([self.helpers()] if self.calls else []) + head + self.lines + ["}"])


MAIN = r'''
// Runs every kernel on fresh data, with b distinct from a, equal to a, and overlapping it, and
// prints one checksum per launch (FNV-1a over a and b afterwards).
struct Launch {
  void (*launch)(unsigned blocks, dim3 block, unsigned* a, unsigned* b, const unsigned* c, unsigned n, unsigned m);
  const char* name;
  unsigned bx, by, blocks;
};

static unsigned next_random(unsigned long long& state) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return static_cast<unsigned>(state >> 33);
}

static unsigned long long fnv(const std::vector<unsigned>& words, unsigned long long h) {
  for (unsigned w : words) {
    for (int i = 0; i < 4; ++i) {
      h ^= (w >> (8 * i)) & 0xffu;
      h *= 1099511628211ull;
    }
  }
  return h;
}

int main() {
  constexpr unsigned kN = 4096;
  unsigned* buffer = nullptr;
  unsigned* c = nullptr;
  if (cudaMalloc(&buffer, 3 * kN * sizeof(unsigned)) != cudaSuccess || cudaMalloc(&c, sizeof(unsigned)) != cudaSuccess) {
    std::printf("FAIL: cudaMalloc\n");
    return 1;
  }
  int failures = 0;
  unsigned long long state = 0x5eed;
  for (const Launch& l : kLaunches) {
    for (int alias = 0; alias < 3; ++alias) {
      std::vector<unsigned> host(3 * kN);
      for (unsigned& w : host) w = next_random(state);
      const unsigned cv = next_random(state) % 1000u;
      cudaMemcpy(buffer, host.data(), host.size() * sizeof(unsigned), cudaMemcpyHostToDevice);
      cudaMemcpy(c, &cv, sizeof cv, cudaMemcpyHostToDevice);
      unsigned* a = buffer;
      unsigned* b = alias == 0 ? buffer + kN : alias == 1 ? buffer : buffer + 16;
      const unsigned n = kN - 64, m = 1u + next_random(state) % 3u;
      l.launch(l.blocks, dim3(l.bx, l.by), a, b, c, n, m);
      const cudaError_t e = cudaDeviceSynchronize();
      if (e != cudaSuccess) {
        std::printf("FAIL: %s alias %d: %s\n", l.name, alias, cudaGetErrorString(e));
        return 1;  // the error is sticky: the context can run nothing more
      }
      std::vector<unsigned> out(3 * kN);
      cudaMemcpy(out.data(), buffer, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
      std::printf("%s alias %d: %016llx\n", l.name, alias, fnv(out, 1469598103934665603ull));
    }
  }
  std::printf("%s: %zu kernels, %d failures\n", failures == 0 ? "PASS" : "FAIL", sizeof kLaunches / sizeof kLaunches[0],
              failures);
  return failures == 0 ? 0 : 1;
}
'''


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--kernels", type=int, default=120)
    parser.add_argument("--seed", type=int, default=12)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    kernels, launches = [], []
    for i in range(args.kernels):
        k = Kernel(rng, i)
        kernels.append(k.generate() + "\n"
                       f"static void launch_{k.name}(unsigned blocks, dim3 block, unsigned* a, unsigned* b, "
                       f"const unsigned* c, unsigned n, unsigned m) {{\n"
                       f"  {k.name}<<<blocks, block>>>(a, b, c, n, m);\n}}")
        bx, by = rng.choice(BLOCK_SHAPES)
        launches.append(f'  {{launch_{k.name}, "{k.name}", {bx}, {by}, {rng.randint(1, 5)}}},')
    with open(args.out, "w") as f:
        f.write(f"// Generated by tests/fission/gen_stress.py --kernels {args.kernels} --seed {args.seed}: "
                "do not edit.\n")
        f.write("#include <cuda_runtime.h>\n#include <cstdio>\n#include <vector>\n\n")
        f.write("#define FIRST_OF_B (*b)\n#define ELEM_OF_A(i) (a[(i)])\n\n")
        f.write("\n\n".join(kernels))
        f.write("\n")
        f.write(MAIN.replace("int main() {", "static const Launch kLaunches[] = {\n" + "\n".join(launches) +
                              "\n};\n\nint main() {"))


if __name__ == "__main__":
    main()
