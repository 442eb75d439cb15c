"""Front ends: OpenCL C (through clang-22), LLVM IR text/bitcode and llvmlite.ir modules."""
