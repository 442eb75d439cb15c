"""The one exception type for bad input: the command line prints it as a single line and exits 1."""


class CompileError(Exception):
    """Bad input (malformed IR, unsupported instruction, invalid OpenCL C, ...).

    The message is one line and names the file, function, block or instruction at fault.
    """

    def __init__(self, message: str):
        super().__init__(" ".join(message.split("\n")).strip())
