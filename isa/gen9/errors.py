"""The Gen9 layer's own error type.

Why its own: `isa` is a leaf package (the compiler imports it, never the reverse), so it cannot raise the
compiler's CompileError. The command line turns an IsaError into its one-line error.
"""


class IsaError(Exception):
    """Assembly text that does not parse, an instruction that cannot be encoded, bytes that do not decode."""
