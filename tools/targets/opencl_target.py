"""The `opencl` run target: the original OpenCL C source on an installed OpenCL platform (pyopencl).

Why: an oracle that shares nothing with us. The llvm target runs the LLVM module our front end made
with clang-22; this one hands the .cl text to somebody else's compiler and runtime (PoCL on the CPU in
CI, a user's GPU driver elsewhere), with the same arguments and results layout as the other targets:
buffers are copied in and back, `LocalArg` becomes `__local` memory of its size, scalars get the
parameter's exact type, a by-value vector its lanes (a 3-vector padded to 4, as OpenCL lays it out), a
by-value struct its bytes. Build options are clBuildProgram's (`Program.build_options`, plus
-cl-kernel-arg-info and the source's directory for #include); our -O level does not apply.
"""
from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass

import numpy as np

from reconverge.lowering.errors import CompileError
from reconverge.tools.targets.oracle_guards import canary


@dataclass(frozen=True)
class OpenCLOptions:
    """Which platform and device (a name substring or an index; None: the first)."""
    platform: str | None = None
    device: str | None = None


def _pick(items, choice: str | None, kind: str, describe):
    if choice is None:
        return items[0]
    if choice.isdigit() and int(choice) < len(items):
        return items[int(choice)]
    matches = [i for i in items if choice.lower() in describe(i).lower()]
    if not matches:
        listing = "; ".join(f"{n}: {describe(i)}" for n, i in enumerate(items))
        raise CompileError(f"--{kind} {choice}: no such OpenCL {kind} (available: {listing})")
    return matches[0]


def choose_device(options: OpenCLOptions | None):
    try:
        import pyopencl as cl
    except ImportError as exc:
        raise CompileError(f"the opencl target needs pyopencl ({exc})") from None
    options = options or OpenCLOptions()
    try:
        platforms = cl.get_platforms()
    except cl.Error:
        platforms = []
    if not platforms:
        raise CompileError("the opencl target found no OpenCL platform (install one, e.g. Debian's pocl-opencl-icd)")
    platform = _pick(platforms, options.platform, "platform", lambda p: p.name)
    devices = platform.get_devices()
    if not devices:
        raise CompileError(f"OpenCL platform {platform.name!r} has no device")
    return _pick(devices, options.device, "device", lambda d: d.name)


OPENCL_OPTION_PREFIXES = ("-D", "-I", "-cl-", "-w", "-Werror")


@contextlib.contextmanager
def _quiet_stderr():
    """Point file descriptor 2 at /dev/null for a while (the driver writes to it directly)."""
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def _first_error(log: str) -> str:
    """The first diagnostic of a pyopencl build failure (the lines after 'Build on ...:'), temp paths cut."""
    lines = [line.strip() for line in log.splitlines()]
    after = [line for line in lines[next((i for i, x in enumerate(lines) if x.startswith("Build on")), 0) + 1:]
             if line and not line.startswith(("Device ", "(options:"))]
    first = next((line for line in after if "error" in line.lower()), after[0] if after else lines[0])
    return re.sub(r"\S*tempfile_\w+\.cl:", "line ", first)


def _numpy_type(t) -> np.dtype:
    if t.is_float:
        return np.dtype(f"float{t.bits}")
    if t.is_ptr:
        return np.dtype(np.uint64)
    return np.dtype(f"int{max(8, t.bits)}")


# One work-group of the launch's shape reports, per linear local id L: the sub-group position it ran at
# (sub-group id * max size + local id), the sub-group's size, and the count and max size.
_LAYOUT_PROBE = """#pragma OPENCL EXTENSION cl_khr_subgroups : enable
kernel void reconverge_subgroup_layout(global uint *out) {
    uint lx = get_local_size(0), ly = get_local_size(1);
    uint l = (get_local_id(2) * ly + get_local_id(1)) * lx + get_local_id(0);
    out[3 * l] = get_sub_group_id() * get_max_sub_group_size() + get_sub_group_local_id();
    out[3 * l + 1] = get_sub_group_size();
    out[3 * l + 2] = get_num_sub_groups() * 65536 + get_max_sub_group_size();
}
"""


def _uses_subgroups(program, kernel: str) -> bool:
    from reconverge.lowering.ir.opcodes import OPCODES
    return any(OPCODES[ins.opcode].kind == "subgroup" for ins in program.function(kernel).instructions())


def _require_subgroups(program, kernel: str, device) -> None:
    if "cl_khr_subgroups" not in device.extensions.split():
        raise CompileError(f"{program.path}: @{kernel}: the OpenCL device {device.name!r} does not report "
                           "cl_khr_subgroups, so it cannot run sub-group built-ins (the spirv, gen and ir targets can)")


def _check_subgroups(program, kernel: str, knl, device, context, queue, local: tuple[int, ...]) -> None:
    """A kernel with sub-group built-ins runs only where the device reports cl_khr_subgroups and its sub-groups
    are OpenCL's as our other targets define them (sub-group k: linear local ids [k*S, (k+1)*S), the last one
    partial, S the kernel's max sub-group size): a probe kernel of the same shape shows the layout."""
    import pyopencl as cl
    what = f"{program.path}: @{kernel}"
    shape = local + (1,) * (3 - len(local))
    total = shape[0] * shape[1] * shape[2]
    probe = cl.Program(context, _LAYOUT_PROBE).build().reconverge_subgroup_layout
    out = np.zeros(3 * total, np.uint32)
    buf = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    probe.set_arg(0, buf)
    cl.enqueue_nd_range_kernel(queue, probe, shape, shape)
    cl.enqueue_copy(queue, out, buf)
    queue.finish()
    lanes, sizes, counts = out.reshape(-1, 3).T
    width = int(counts[0] & 0xFFFF)
    kernel_width = knl.get_sub_group_info(device, cl.kernel_sub_group_info.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, shape)
    linear = np.arange(total)
    if not width or kernel_width != width or (lanes != linear).any() or \
            (sizes != np.minimum(width, total - linear // width * width)).any() or \
            (counts != (-(-total // width) << 16) + width).any():
        raise CompileError(f"{what}: the OpenCL device {device.name!r} does not form sub-groups as OpenCL's "
                           f"linear layout for a work-group of {shape} (max size {width}, the kernel's "
                           f"{kernel_width}; sizes or counts differ), so its sub-group results would not be ours")


def run_opencl(program, kernel: str, args: list, global_size, local_size, options, global_offset) -> None:
    """Launch `kernel` of program.path (OpenCL C) with `args` (updated in place, as the other targets)."""
    import pyopencl as cl
    if not program.path.lower().endswith(".cl"):
        raise CompileError(f"{program.path}: the opencl target runs OpenCL C source (.cl) only")
    with open(program.path, encoding="utf-8", errors="replace") as f:
        source = f.read()
    subgroups = _uses_subgroups(program, kernel)
    if not subgroups:
        _check_bounds_on_llvm(program, kernel, args, global_size, local_size, global_offset)
    device = choose_device(options)
    if subgroups:
        _require_subgroups(program, kernel, device)
    context = cl.Context([device])
    queue = cl.CommandQueue(context)
    build = ["-cl-kernel-arg-info", f"-I{os.path.dirname(os.path.abspath(program.path))}"]
    build += [o for o in program.build_options if o.startswith(OPENCL_OPTION_PREFIXES)]
    try:
        with _quiet_stderr():        # drivers print their compiler's diagnostics; we report the first
            built = cl.Program(context, source).build(options=build)
    except cl.RuntimeError as exc:
        raise CompileError(f"{program.path}: the OpenCL driver cannot build it: {_first_error(str(exc))}") from None
    try:
        knl = getattr(built, kernel)
    except (AttributeError, cl.LogicError):
        raise CompileError(f"{program.path}: the OpenCL driver has no kernel {kernel!r}") from None
    loc = tuple(local_size) if isinstance(local_size, tuple) else (local_size,)
    if subgroups:
        _check_subgroups(program, kernel, knl, device, context, queue, loc)
    params = program.params(kernel)
    buffers: list[_GuardedBuffer] = []
    for param, value in zip(params, args):
        if param.is_local:                     # a LocalArg: only its size reaches the driver
            knl.set_arg(param.index, cl.LocalMemory(max(1, value.nbytes)))
        elif param.is_buffer:
            guarded = _GuardedBuffer(cl, context, device, value, param.name)
            buffers.append(guarded)
            knl.set_arg(param.index, guarded.kernel_buffer)
        elif param.is_byval:
            knl.set_arg(param.index, np.frombuffer(np.ascontiguousarray(value).tobytes(), np.uint8))
        elif param.is_vector:
            lanes = np.asarray(value, _numpy_type(param.types[0])).reshape(-1)
            if lanes.size == 3:
                lanes = np.append(lanes, lanes.dtype.type(0))
            knl.set_arg(param.index, lanes)
        else:
            knl.set_arg(param.index, np.asarray(value, _numpy_type(param.types[0])).reshape(()))
    dims = len(global_size) if isinstance(global_size, tuple) else 1
    g = tuple(global_size) if isinstance(global_size, tuple) else (global_size,)
    offset = tuple(global_offset) if isinstance(global_offset, tuple) else (global_offset,) * dims
    def launch(pattern: int) -> list[np.ndarray]:
        for guarded in buffers:
            guarded.fill(queue, pattern)
        try:
            cl.enqueue_nd_range_kernel(queue, knl, g, loc,       # (pyopencl's stub calls it global_offset)
                                       global_work_offset=offset if any(offset) else None)  # type: ignore[call-arg]
            for guarded in buffers:
                guarded.read(queue)
            queue.finish()
        except cl.Error as exc:
            message = " ".join(str(exc).split())
            raise CompileError(f"{program.path}: @{kernel}: the OpenCL driver failed: {message}") from None
        for guarded in buffers:
            guarded.check_guards(program.path, kernel, pattern)
        return [guarded.contents() for guarded in buffers]

    first = launch(0)
    # a read outside a buffer reads the guards: a second launch with other guard bytes must answer the same
    # (not where atomics may order the work-items differently from one launch to the next)
    # (by their bytes: a NaN is not equal to itself, so a kernel writing one read as out of bounds)
    if buffers and "atomic" not in source and any(a.tobytes() != b.tobytes() for a, b in zip(first, launch(1))):
        raise CompileError(f"{program.path}: @{kernel}: opencl target: out-of-bounds read (the results change "
                           "with the bytes around the buffers)")
    for guarded, contents in zip(buffers, first):
        guarded.value[...] = contents


def _check_bounds_on_llvm(program, kernel: str, args: list, global_size, local_size, global_offset) -> None:
    """An out-of-bounds access to private or __local memory as this target's one-line error. PoCL guards
    neither (the buffers' guard bytes below see only the buffers), so the kernel first runs on the llvm
    reference: clang's -O0 module of the same source, on copies of the arguments, in a child process,
    with every buffer, __local block and private variable guarded (jit_oracle.py). Before the device is
    opened: a child forked from a process running an OpenCL driver's threads may wait for them forever.
    A kernel the reference cannot run (a by-value struct or vector argument, a missing built-in) and one
    that uses sub-groups (whose size the reference would have to guess) are launched unchecked."""
    from reconverge.lowering.frontend.clang import compile_opencl
    from reconverge.tools.targets.isolate import call_in_child
    from reconverge.tools.targets.jit_oracle import OracleError, OutOfBounds, run_llvm_kernel
    if any(p.is_byval or p.is_vector for p in program.params(kernel)):
        return
    text = program.llvm_text if program.opt_level == "-O0" else \
        compile_opencl(program.path, "-O0", program.build_options)
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    what = f"{program.path}: @{kernel}: opencl target: its bounds check (the kernel on the llvm reference)"
    try:
        call_in_child(lambda: run_llvm_kernel(text, kernel, copies, global_size, local_size, global_offset), what)
    except OutOfBounds as exc:
        found = str(exc).removeprefix(f"@{kernel}: ").removesuffix(" (out of bounds)")
        raise CompileError(f"{program.path}: @{kernel}: opencl target: {found} (out of bounds; found by its "
                           f"bounds check on the llvm reference)") from None
    except OracleError:
        return


GUARD_BYTES = 4096
"""Bytes of a known pattern on each side of a buffer (rounded up to the device's base address alignment)."""


class _GuardedBuffer:
    """A buffer argument inside a larger device buffer: the kernel gets the sub-buffer of its bytes, with
    a pattern before and after it; a write outside it changes the pattern (an error after the run)."""

    def __init__(self, cl, context, device, value: np.ndarray, name: str):
        align = max(1, int(device.mem_base_addr_align) // 8)
        self.value, self.name, self.nbytes = value, name, int(value.nbytes)
        self.pad = -(-GUARD_BYTES // align) * align
        self.host = np.zeros(self.pad + max(self.nbytes, 1) + GUARD_BYTES, np.uint8)
        self.buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, size=self.host.nbytes)
        self.kernel_buffer = self.buffer.get_sub_region(self.pad, max(self.nbytes, 1))
        self.initial = np.frombuffer(value.tobytes(), np.uint8)
        self.cl = cl

    def fill(self, queue, pattern: int) -> None:
        self.host[:] = canary(pattern, self.host.size)
        self.host[self.pad:self.pad + self.nbytes] = self.initial
        self.cl.enqueue_copy(queue, self.buffer, self.host)

    def read(self, queue) -> None:
        self.cl.enqueue_copy(queue, self.host, self.buffer)

    def check_guards(self, path: str, kernel: str, pattern: int) -> None:
        expected = canary(pattern, self.host.size)
        end = self.pad + self.nbytes
        if not (np.array_equal(self.host[:self.pad], expected[:self.pad])
                and np.array_equal(self.host[end:], expected[end:])):
            raise CompileError(f"{path}: @{kernel}: opencl target: out-of-bounds write to buffer '{self.name}'")

    def contents(self) -> np.ndarray:
        raw = self.host[self.pad:self.pad + self.nbytes].copy()
        return raw.view(self.value.dtype).reshape(self.value.shape)
