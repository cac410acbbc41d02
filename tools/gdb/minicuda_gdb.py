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
import gdb
import gdb.printing

# The H200 preset's UVA window (docs/architecture.md); a pointer outside it is not asked about.
UVA_BASE = 0x580000000000
UVA_SIZE = 512 << 30


def _call_text(expression):
    """Calls a minicuda_gdb_* function in the stopped program and returns its text, or None."""
    try:
        value = gdb.parse_and_eval(expression)
        return value.string() if int(value) != 0 else None
    except gdb.error:
        return None


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


StackCommand()
RmCommand()
MemCommand()
gdb.printing.register_pretty_printer(gdb.current_objfile(), _lookup, replace=True)
