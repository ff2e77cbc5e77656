"""How large a block each kernel of a program can be launched with, read after device link.

With `-rdc=true` ptxas allocates a kernel's registers when nvlink links the device code, not when a file
is compiled: `-Xptxas -v` at compile time shows 24-40 registers where the linked kernel needs 78, and a
host launch of 1024 threads then fails with `too many resources requested for launch`. So this module
links the device code as a user's build does (`nvcc -dlink ... -lcudadevrt`, kept as a cubin) and reads
each kernel's registers and launch bounds from that cubin (`kernels`, CPU only), or asks the driver
about the same cubin (`driver_kernels`, on a GPU). Used by tests/test_launchable.py.
"""

from __future__ import annotations

import ctypes
import re
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

ARCH = "sm_90"
MAX_BLOCK = 1024                # threads per block of every NVIDIA GPU since sm_20
REGISTERS_PER_BLOCK = 65536     # sm_90: the register file a block may use
REGISTER_UNIT = 256             # sm_90: registers are allocated per warp in units of 256
WARP_UNIT = 4                   # ... and to warps in groups of 4 (seen on the H200: 102 registers -> 512 threads)
WARP = 32

# The cubin's ELF: symbols marked STO_CUDA_ENTRY are kernels; the section .nv.info holds each function's
# EIATTR_REGCOUNT (symbol index, registers), .nv.info.<symbol> its EIATTR_MAX_THREADS (__launch_bounds__).
STO_CUDA_ENTRY = 0x10
EIATTR_MAX_THREADS = 0x05
EIATTR_REGCOUNT = 0x2F
EIFMT_SVAL = 0x04
DEVICE_RUNTIME = "cuda_device_runtime"  # cudadevrt's own kernels (memcpy/memset), linked into every program


class LinkError(Exception):
    """The program did not compile or link; the message holds the command and nvcc's errors."""


@dataclass(frozen=True)
class Kernel:
    symbol: str          # the mangled name in the cubin
    registers: int
    max_threads: int     # the largest block a launch may have (registers and __launch_bounds__)

    @property
    def function(self) -> str:
        """The unqualified function name, as written in the source (`add_to__pdcc_agg_per_warp_0`)."""
        mangled = re.sub(r"^__nv_static_\w*?_(?=_Z)", "", self.symbol)  # a `static` kernel's file prefix
        if not mangled.startswith("_Z"):
            return mangled  # extern "C"
        names, position = [], 3 if mangled.startswith("_ZN") else 2
        while (match := re.match(r"\d+", mangled[position:])) is not None:
            length = int(match.group())
            names.append(mangled[position + len(match.group()):position + len(match.group()) + length])
            position += len(match.group()) + length
            if not mangled.startswith("_ZN"):
                break
        return names[-1] if names else mangled


def max_threads(registers: int, bound: int | None) -> int:
    """The driver's CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK on sm_90: as many warps as the register file
    holds at `registers` per thread (in whole groups of warps), at most 1024 threads and at most the
    kernel's launch bound."""
    per_warp = -(-registers * WARP // REGISTER_UNIT) * REGISTER_UNIT
    warps = REGISTERS_PER_BLOCK // per_warp // WARP_UNIT * WARP_UNIT if per_warp else MAX_BLOCK // WARP
    by_registers = warps * WARP
    return min(MAX_BLOCK, by_registers, bound or MAX_BLOCK)


def device_link(relocatable: Path, linked: Path) -> bytes:
    """The device link of a user's build (`-lcudadevrt`), written as a cubin: the code the driver loads."""
    command = ["nvcc", f"-arch={ARCH}", "-dlink", str(relocatable), "-lcudadevrt", "-cubin", "-o", str(linked)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise LinkError(" ".join(command) + "\n" + done.stderr)
    return linked.read_bytes()


def compile_and_link(source: Path, workdir: Path, *flags: str) -> bytes:
    """nvcc's relocatable device code of `source` (`-rdc=true`), device-linked: see `device_link`."""
    relocatable = workdir / f"{source.stem}.rdc.cubin"
    command = ["nvcc", f"-arch={ARCH}", "-rdc=true", "-cubin", *flags, str(source), "-o", str(relocatable)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise LinkError(" ".join(command) + "\n" + done.stderr)
    return device_link(relocatable, workdir / f"{source.stem}.linked.cubin")


def kernels(cubin: bytes) -> list[Kernel]:
    """Every kernel of a linked cubin but the device runtime's, with the registers and launch bound that
    nvlink wrote for the driver."""
    section_offset, = struct.unpack_from("<Q", cubin, 0x28)
    entry_size, count, names_index = struct.unpack_from("<HHH", cubin, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", cubin, section_offset + i * entry_size) for i in range(count)]

    def string(table: int, offset: int) -> str:
        start = sections[table][4] + offset
        return cubin[start:cubin.index(b"\0", start)].decode()

    def records(section: tuple) -> list[tuple[int, bytes]]:
        """The (attribute, value) pairs of an .nv.info section with a value of its own size (EIFMT_SVAL);
        the others are four bytes long."""
        found, position, end = [], section[4], section[4] + section[5]
        while position < end:
            form, attribute, size = struct.unpack_from("<BBH", cubin, position)
            if form == EIFMT_SVAL:
                found.append((attribute, cubin[position + 4:position + 4 + size]))
                position += 4 + size
            else:
                position += 4
        return found

    named = {string(names_index, s[0]): s for s in sections}
    symbol_table = next(s for s in sections if s[1] == 2)  # SHT_SYMTAB
    symbols = [struct.unpack_from("<IBBHQQ", cubin, symbol_table[4] + i * 24) for i in range(symbol_table[5] // 24)]
    registers = {}
    for attribute, value in records(named[".nv.info"]):
        if attribute == EIATTR_REGCOUNT:
            index, used = struct.unpack("<II", value)
            registers[index] = used
    found = []
    for index, (name, _info, other, *_rest) in enumerate(symbols):
        symbol = string(symbol_table[6], name)
        if not other & STO_CUDA_ENTRY or DEVICE_RUNTIME in symbol:
            continue
        bound = None
        for attribute, value in records(named[".nv.info." + symbol]) if ".nv.info." + symbol in named else []:
            if attribute == EIATTR_MAX_THREADS:
                x, y, z = struct.unpack("<III", value)
                bound = x * y * z
        found.append(Kernel(symbol, registers[index], max_threads(registers[index], bound)))
    return found


CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0
CU_FUNC_ATTRIBUTE_NUM_REGS = 4


def driver_kernels(cubin: bytes, symbols: list[str]) -> list[Kernel]:
    """The same kernels as the driver sees them: the cubin loaded as a module on GPU 0, each kernel's
    CU_FUNC_ATTRIBUTE_NUM_REGS and CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (beyond which a launch fails)."""
    cuda = ctypes.CDLL("libcuda.so.1")

    def check(status: int, call: str) -> None:
        if status != 0:
            name = ctypes.c_char_p()
            cuda.cuGetErrorName(status, ctypes.byref(name))
            raise RuntimeError(f"{call}: {(name.value or b'?').decode()} ({status})")

    device, context, module = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_void_p()
    check(cuda.cuInit(0), "cuInit")
    check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device), "cuDevicePrimaryCtxRetain")
    check(cuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(cubin)), "cuModuleLoadData")
    try:
        found = []
        for symbol in symbols:
            function, threads, registers = ctypes.c_void_p(), ctypes.c_int(), ctypes.c_int()
            check(cuda.cuModuleGetFunction(ctypes.byref(function), module, symbol.encode()), f"cuModuleGetFunction {symbol}")
            check(cuda.cuFuncGetAttribute(ctypes.byref(threads), CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, function),
                  "cuFuncGetAttribute")
            check(cuda.cuFuncGetAttribute(ctypes.byref(registers), CU_FUNC_ATTRIBUTE_NUM_REGS, function),
                  "cuFuncGetAttribute")
            found.append(Kernel(symbol, registers.value, threads.value))
        return found
    finally:
        cuda.cuModuleUnload(module)

