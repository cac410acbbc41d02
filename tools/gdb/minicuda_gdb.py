# minicuda's gdb helpers (docs/debugging.md, "gdb helpers"). gdb loads this file into every
# program built in this tree (the trace library names it in .debug_gdb_scripts) once the tree is
# in gdb's auto-load safe-path, or by hand: `source tools/gdb/minicuda_gdb.py`.
#
# Pretty-printers:
#   CUresult, cudaError_t    the name and the number: CUDA_ERROR_INVALID_VALUE (1)
#   dim3, uint3              (x, y, z)
#   NvHandle                 an RM handle with its class and parent
#   pointers into the GPU's UVA window: the allocation they fall in
# Commands (they call functions the libraries keep for the debugger, minicuda_gdb_*):
#   mc-stack   the call chain by layer, from the trace's open scopes (needs MINICUDA_TRACE)
#   mc-rm      the RM object tree of every client
#   mc-mem     the device allocations of every context
#   mc-block   the thread block this host thread runs: its mode and each CUDA thread's state
import gdb
import gdb.printing

# The H200 preset's UVA window (docs/architecture.md); a pointer outside it is not asked about.
UVA_BASE = 0x580000000000
UVA_SIZE = 512 << 30


# The x86 flags' alignment-check bit: a thread that runs CUDA threads on fibers keeps it set (the
# SM's check of misaligned accesses, sm_signals.cpp), and the C library's string functions, which
# read unaligned words, would take SIGBUS inside a call the debugger makes.
ALIGNMENT_CHECK = 1 << 18


def _call_text(expression):
    """Calls a minicuda_gdb_* function in the stopped program and returns its text, or None.
    The call runs with the alignment check off; the thread's flags are put back after it."""
    flags = None
    try:
        flags = int(gdb.parse_and_eval("$eflags"))
        if flags & ALIGNMENT_CHECK:
            gdb.execute(f"set $eflags = {flags & ~ALIGNMENT_CHECK}", to_string=True)
        value = gdb.parse_and_eval(expression)
        return value.string() if int(value) != 0 else None
    except gdb.error:
        return None
    finally:
        if flags is not None and flags & ALIGNMENT_CHECK:
            try:
                gdb.execute(f"set $eflags = {flags}", to_string=True)
            except gdb.error:
                pass


class ErrorPrinter:
    """CUresult and cudaError_t: gdb already knows the enumerator's name; add the number."""

    def __init__(self, value):
        self.value = value

    def to_string(self):
        number = int(self.value)
        name = str(self.value.cast(self.value.type.strip_typedefs()))
        return f"{name} ({number})" if not name.lstrip("-").isdigit() else f"unknown ({number})"


class Dim3Printer:
    def __init__(self, value):
        self.value = value

    def to_string(self):
        return "({}, {}, {})".format(int(self.value["x"]), int(self.value["y"]), int(self.value["z"]))


class HandlePrinter:
    """An RM handle (NvHandle): what RM knows of it, asked from the stopped program."""

    def __init__(self, value):
        self.value = value

    def to_string(self):
        handle = int(self.value) & 0xFFFFFFFF
        text = _call_text(f"(const char*)minicuda_gdb_rm_handle({handle}u)")
        return text if text else f"{handle:#010x}"


class DevicePointerPrinter:
    """A pointer into the UVA window: its value, then the allocation it falls in."""

    def __init__(self, value):
        self.value = value

    def to_string(self):
        address = int(self.value)
        text = _call_text(f"(const char*)minicuda_gdb_pointer({address}ul)")
        shown = f"({self.value.type}) {address:#x}"
        return f"{shown} <device: {text}>" if text else shown


def _lookup(value):
    type_ = value.type
    name = type_.name or ""
    if name in ("CUresult", "cudaError_t"):
        return ErrorPrinter(value)
    if name == "NvHandle":
        return HandlePrinter(value)
    basic = type_.strip_typedefs()
    if basic.code == gdb.TYPE_CODE_STRUCT and basic.tag in ("dim3", "uint3"):
        return Dim3Printer(value)
    if basic.code == gdb.TYPE_CODE_PTR:
        try:
            address = int(value)
        except gdb.error:
            return None
        if UVA_BASE <= address < UVA_BASE + UVA_SIZE:
            return DevicePointerPrinter(value)
    return None


class Command(gdb.Command):
    """A command that prints the text a minicuda_gdb_* function returns."""

    def __init__(self, name, function, what):
        super().__init__(name, gdb.COMMAND_DATA)
        self.function = function
        self.what = what

    def invoke(self, argument, from_tty):
        text = _call_text(f"(const char*){self.function}()")
        if text is None:
            raise gdb.GdbError(f"{self.what}: the program is not running, or does not link minicuda")
        gdb.write(text)


class StackCommand(Command):
    """mc-stack: the call chain by layer (cudart, libcuda, kernel, nvidia, uvm, gpu) of this thread,
from the trace's open scopes. Run the program with MINICUDA_TRACE set (e.g. MINICUDA_TRACE=1 and
MINICUDA_TRACE_FILE=/dev/null to keep the terminal quiet)."""

    def __init__(self):
        super().__init__("mc-stack", "minicuda_gdb_stack", "mc-stack")


class RmCommand(Command):
    """mc-rm: the RM object tree of every client (handles, classes, sizes, channels)."""

    def __init__(self):
        super().__init__("mc-rm", "minicuda_gdb_rm_tree", "mc-rm")


class MemCommand(Command):
    """mc-mem: the live device allocations of every context, with the chunk each lies in."""

    def __init__(self):
        super().__init__("mc-mem", "minicuda_gdb_allocations", "mc-mem")


class BlockCommand(Command):
    """mc-block: the thread block the selected host thread runs (an SM's thread, or the program's
with CUDA_LAUNCH_BLOCKING=1): the kernel, the block's index, whether it runs in the loop, on
fibers or in regions, and each CUDA thread's state (runnable, at a barrier, at a warp operation,
done)."""

    def __init__(self):
        super().__init__("mc-block", "minicuda_gdb_block", "mc-block")


StackCommand()
RmCommand()
MemCommand()
BlockCommand()
gdb.printing.register_pretty_printer(gdb.current_objfile(), _lookup, replace=True)
