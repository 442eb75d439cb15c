"""Gen9 (Skylake) instruction set: model, encoding, assembler, disassembler, simulator."""
