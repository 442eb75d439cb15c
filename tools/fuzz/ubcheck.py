"""Is a generated (or reduced) OpenCL C program free of undefined behaviour? Compiled as C by clang-22 with
UndefinedBehaviorSanitizer's checks in trapping mode (no runtime library needed) and run natively over the
program's NDRange, each work-group's items as threads (barriers are pthread barriers, __local arrays are
shared statics, atomics the compiler's __atomic built-ins), on the program's own arguments: a signed
overflow, a division by zero, a shift out of range, a float-to-int conversion out of range or an index
outside a fixed-size array traps; every buffer ends at an inaccessible guard page, so reading or writing
past its end faults.

This is how Csmith's and CLsmith's users keep reductions honest (C-Reduce's interestingness tests ask the
sanitizers, or a checking interpreter, before anything else). Only the OpenCL C the generator writes is
supported: its built-ins are defined here, its vector literals `(uint4)(...)` rewritten to a macro.
"""
from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile

from reconverge.tools.fuzz.generator import FuzzProgram

CLANG = os.environ.get("RECONVERGE_CLANG", "clang-22")

# The vector types a program may name (the generator's uint4 and int4, int_builtin's types of two and four
# elements; the built-ins below are defined for three, eight and sixteen as well), as clang's C vectors.
_ELEMENTS = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double")
_VECTOR_TYPES = "".join(f"typedef {e} {e}{n} __attribute__((ext_vector_type({n})));\n"
                        for e in _ELEMENTS for n in (2, 3, 4, 8, 16))
# `(T4)(a, b, c, d)` and `(T4)(a)`, OpenCL C's vector literals, as calls of a maker (a macro picks it by its count)
_MAKERS = "".join(
    f"#define MK_{e}{n}(...) UB_PICK5(__VA_ARGS__, ub_bad, {'ub_mk4' if n == 4 else 'ub_bad'}_{e}{n}, ub_bad, "
    f"{'ub_mk2' if n == 2 else 'ub_bad'}_{e}{n}, ub_mk1_{e}{n})(__VA_ARGS__)\n"
    f"static inline {e}{n} ub_mk{n}_{e}{n}({', '.join(f'{e} a{i}' for i in range(n))}) "
    f"{{ {e}{n} v = {{{', '.join(f'a{i}' for i in range(n))}}}; return v; }}\n"
    f"static inline {e}{n} ub_mk1_{e}{n}({e} a) {{ {e}{n} v = {{{', '.join('a' for _ in range(n))}}}; return v; }}\n"
    for e in _ELEMENTS for n in (2, 4))
_VECTOR_LITERAL = re.compile(r"\(((?:u?(?:char|short|int|long)|float|double)[24])\)\s*\(")

C_PRELUDE = r"""
#include <math.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef unsigned int uint; typedef unsigned char uchar; typedef unsigned short ushort;
typedef unsigned long ulong;
#define OV static inline __attribute__((overloadable))
#define abs(x) ub_abs(x)
#define fma(a, b, c) fmaf(a, b, c)
#define fmod(a, b) fmodf(a, b)
#define fabs(a) fabsf(a)
#define ldexp(a, k) ldexpf(a, k)
""" + _VECTOR_TYPES + r"""#define __kernel
#define __global
#define __local static
#define CLK_LOCAL_MEM_FENCE 1
static __thread uint ub_gid, ub_lid, ub_lsize;
static pthread_barrier_t ub_barrier;
#define get_global_id(d) ((ulong)ub_gid)
#define get_local_id(d) ((ulong)ub_lid)
#define get_local_size(d) ((ulong)ub_lsize)
#define barrier(f) pthread_barrier_wait(&ub_barrier)
#define UB_BITCAST(T, x) ({ __typeof__(x) ub_v = (x); T ub_r; _Static_assert(sizeof(ub_v) == sizeof(T), "size"); \
                            memcpy(&ub_r, &ub_v, sizeof(T)); ub_r; })
#define as_uint(x) UB_BITCAST(uint, x)
#define as_int(x) UB_BITCAST(int, x)
#define as_long(x) UB_BITCAST(long, x)
#define as_uint2(x) UB_BITCAST(uint2, x)
#define as_int2(x) UB_BITCAST(int2, x)
#define as_uint4(x) UB_BITCAST(uint4, x)
#define as_int4(x) UB_BITCAST(int4, x)
#define UB_PICK5(a, b, c, d, e, NAME, ...) NAME
""" + _MAKERS + r"""
static inline uint4 vload4(ulong i, const uint *p) { uint4 v = {p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]};
                                                    return v; }
#define select ub_select
static inline uint4 ub_select(uint4 a, uint4 b, uint4 c) {
    for (int i = 0; i < 4; i++) a[i] = (c[i] >> 31) ? b[i] : a[i];
    return a;
}
#define atomic_add(p, v) __atomic_fetch_add(p, v, __ATOMIC_RELAXED)
#define atomic_sub(p, v) __atomic_fetch_sub(p, v, __ATOMIC_RELAXED)
#define atomic_inc(p) __atomic_fetch_add(p, 1u, __ATOMIC_RELAXED)
#define atomic_dec(p) __atomic_fetch_sub(p, 1u, __ATOMIC_RELAXED)
#define atomic_or(p, v) __atomic_fetch_or(p, v, __ATOMIC_RELAXED)
#define atomic_and(p, v) __atomic_fetch_and(p, v, __ATOMIC_RELAXED)
#define atomic_xor(p, v) __atomic_fetch_xor(p, v, __ATOMIC_RELAXED)
#define atomic_min(p, v) __atomic_fetch_min(p, v, __ATOMIC_RELAXED)
#define atomic_max(p, v) __atomic_fetch_max(p, v, __ATOMIC_RELAXED)
"""

C_MAIN = r"""
struct ub_args { uint *out; const uint *in; uint *cnt; float *fapprox; uint n; uint gid, lid, lsize; };
static void *ub_item(void *p) {
    struct ub_args *a = p;
    ub_gid = a->gid; ub_lid = a->lid; ub_lsize = a->lsize;
    k(a->out, a->in, a->cnt, a->fapprox, a->n);
    return 0;
}
static void *ub_alloc(size_t bytes) {      /* zeroed, and the byte after the last one is on a PROT_NONE page */
    size_t page = (size_t)sysconf(_SC_PAGESIZE), span = (bytes + page - 1) / page * page;
    char *base = mmap(0, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED || mprotect(base + span, page, PROT_NONE)) { perror("mmap"); exit(3); }
    return base + span - bytes;
}
int main(void) {
    uint *out = ub_alloc(GLOBAL * sizeof(uint)), *in = ub_alloc(IN_COUNT * sizeof(uint));
    uint *cnt = ub_alloc(CNT_COUNT * sizeof(uint));
    float *fapprox = ub_alloc(GLOBAL * APPROX * sizeof(float));
    memcpy(in, IN_DATA, sizeof(IN_DATA));
    memcpy(cnt, CNT_DATA, sizeof(CNT_DATA));
    for (uint g = 0; g < GLOBAL / LOCAL; g++) {
        pthread_t threads[LOCAL];
        struct ub_args args[LOCAL];
        pthread_barrier_init(&ub_barrier, 0, LOCAL);
        for (uint l = 0; l < LOCAL; l++) {
            args[l] = (struct ub_args){out, in, cnt, fapprox, N_ARG, g * LOCAL + l, l, LOCAL};
            if (pthread_create(&threads[l], 0, ub_item, &args[l])) { perror("pthread_create"); return 3; }
        }
        for (uint l = 0; l < LOCAL; l++) pthread_join(threads[l], 0);
        pthread_barrier_destroy(&ub_barrier);
    }
    for (uint i = 0; i < GLOBAL; i++) printf("%u\n", out[i]);
    for (uint i = 0; i < CNT_COUNT; i++) printf("%u\n", cnt[i]);
    return 0;
}
"""

SANITIZERS = ("-fsanitize=undefined,bounds,float-cast-overflow", "-fsanitize-trap=all")


def builtin_definitions(source: str) -> str:
    """C definitions (clang's overloadable functions) of the integer, conversion and shuffle built-ins
    `source` calls: the execution oracle's own (tools/targets/oracle_builtins.py, written without undefined
    behaviour of their own), each built-in with every overload and what it calls."""
    from reconverge.tools.targets.oracle_builtins import portable_builtin_lines
    lines = portable_builtin_lines()
    by_name: dict[str, list[str]] = {}
    for line in lines:
        name = line.split("(", 1)[0].rsplit(" ", 1)[-1]
        by_name.setdefault(name, []).append(line)
    calls = re.compile(r"\b(" + "|".join(sorted(by_name, key=len, reverse=True)) + r")\s*\(")
    ordered: list[str] = []                 # callees before their callers (C wants a declaration first)
    seen: set[str] = set()

    def want(name: str) -> None:
        if name not in seen:
            seen.add(name)
            for callee in sorted({c for line in by_name[name] for c in calls.findall(line.split("{", 1)[1])}):
                want(callee)
            ordered.append(name)
    for name in sorted(set(calls.findall(source))):
        want(name)
    return "".join(line + "\n" for name in ordered for line in by_name[name])


def c_translation(program: FuzzProgram, source: str | None = None) -> str:
    """The program as a C file with its arguments, ready for clang."""
    from reconverge.tools.fuzz.generator import APPROX_SLOTS
    source = program.source if source is None else source
    body = re.sub(r"^\s*#pragma OPENCL.*$", "", source, flags=re.M)
    body = _VECTOR_LITERAL.sub(r"MK_\1(", body)
    args = program.make_args()
    data = ", ".join(f"{int(x)}u" for x in args[1])
    counters = ", ".join(f"{int(x)}u" for x in args[2])
    defines = (f"#define GLOBAL {program.global_size}u\n#define LOCAL {program.local_size}u\n"
               f"#define APPROX {APPROX_SLOTS}u\n#define N_ARG {int(args[4])}u\n"
               f"#define IN_COUNT {len(args[1])}u\n#define CNT_COUNT {len(args[2])}u\n"
               f"static const uint IN_DATA[] = {{{data}}};\nstatic const uint CNT_DATA[] = {{{counters}}};\n")
    return C_PRELUDE + builtin_definitions(body) + defines + body + C_MAIN


class UBFound(Exception):
    """The program is not free of undefined behaviour (or does not compile as the C we check)."""


def check_program(program: FuzzProgram, source: str | None = None, timeout: float = 60.0) -> list[int]:
    """Compile and run the sanitized C; its out[] and cnt[] values. UBFound on a sanitizer report, a
    compile error or a time-out."""
    with tempfile.TemporaryDirectory(prefix="reconverge-ub-") as tmp:
        c_path, exe = os.path.join(tmp, "prog.c"), os.path.join(tmp, "prog")
        with open(c_path, "w", encoding="utf-8") as f:
            f.write(c_translation(program, source))
        cc = subprocess.run([CLANG, "-std=gnu11", "-O0", "-g", "-w", "-Werror=uninitialized",
                             "-Werror=sometimes-uninitialized", *SANITIZERS, "-pthread", "-lm", "-o", exe, c_path],
                            capture_output=True, text=True)
        if cc.returncode != 0:
            raise UBFound(f"as C: {_first_error(cc.stderr)}")
        try:
            run = subprocess.run([exe], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise UBFound(f"the sanitized run did not end within {timeout:g} s") from None
        if run.returncode < 0:
            sig = signal.Signals(-run.returncode).name
            what = {"SIGILL": "a UBSan check trapped (overflow, shift, division, conversion or array bound)",
                    "SIGSEGV": "an access outside a buffer"}.get(sig, "the run died")
            raise UBFound(f"{what} ({sig})")
        if run.returncode != 0:
            raise UBFound(_first_error(run.stderr) or f"exit status {run.returncode}")
        return [int(x) for x in run.stdout.split()]


def _first_error(text: str) -> str:
    for line in text.splitlines():
        if "error" in line or "runtime error" in line or "ERROR" in line:
            return " ".join(line.split())[:300]
    return " ".join(text.split())[:300]
