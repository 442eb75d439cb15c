"""The Gen9 backend (in construction): structured IR -> Gen9 kernels that the simulator runs.

Now: the machine IR (`mir.py`: virtual registers with a type and a shape, Gen opcodes, blocks in layout
order), its text form (`mir_printer.py`), its verifier (`mir_verify.py`) and liveness (`mir_liveness.py`).
Next: instruction selection from the `gen` pipeline's IR, register allocation over the 128 GRFs,
structured branches from the tree, emission through isa/gen9 into a kernel container, and the
`run --target gen` launcher over isa/gen9/dispatch.py's thread payload.
"""
