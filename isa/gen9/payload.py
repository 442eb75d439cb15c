"""Where the thread payload of a Gen compute kernel puts things (dispatch.py's docstring draws the layout,
after Intel's compute runtime and IGC): what the code generator reads and what the simulator writes.
Apart from dispatch.py so that compiling a kernel does not import the simulator and numpy
(tests/test_startup.py)."""
from __future__ import annotations

HEADER_GRF, LOCAL_ID_GRF, CROSS_THREAD_GRF = 0, 1, 4
BARRIER_ID_MASK = 0x8F000000        # the bits of r0.2 the barrier gateway reads (27:24 and 31)
# byte offsets in the cross-thread data (from r4.0)
GLOBAL_OFFSET, LOCAL_SIZE, NUM_GROUPS, WORK_DIM, ARGUMENTS = 0x00, 0x0C, 0x18, 0x24, 0x40
