"""Running a kernel: the run targets (llvm on the CPU JIT, ir on the interpreter, spirv on Vulkan, opencl on
an OpenCL driver) behind one interface (harness), the JIT oracle, the OpenCL target and the child process
that bounds a run in time. The command line (tools.cli) and the tests use them; they never import the
command line."""
