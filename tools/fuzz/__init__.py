"""`reconverge fuzz`: a CLsmith-style differential fuzzer over every target.

    generator.py   random OpenCL C kernels free of undefined behaviour by construction (and the LLVM IR
                   CFGs of tools/testing/cfggen.py), each with its launch and its arguments
    runner.py      one program through every configuration (target x -O level x SIMD width x --cf mode),
                   compiled once per pipeline, compared lane by lane with the llvm -O0 reference
    pool.py        worker processes that survive a crashing or hanging target (one timeout per configuration)
    ubcheck.py     the program compiled as C with clang's sanitizers and run natively: the judge of
                   "free of undefined behaviour" for the generator's tests and the reducer
    reducer.py     C-Vise with an interestingness test that keeps the mismatch and the program UB-free;
                   the result saved as a regression test under tests/fuzz_regressions/
    command.py     the command line: progress line, summary table, exit status
"""

# The names the command line offers, here so that `reconverge --help` reads them without importing the
# generator and the runner (tests/test_startup.py): generator.py and runner.py take them from here.
MODES = ("basic", "vector", "barrier", "atomic", "goto", "subgroup", "all", "cfg", "convergence")  # program kinds
TARGETS = ("llvm", "ir", "spirv", "gen", "opencl")                                   # besides the reference
FAILURES = ("mismatch", "invalid", "refused", "crash", "timeout")                    # outcomes that fail
