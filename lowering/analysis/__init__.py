"""CFG analyses on integer graphs (nodes 0..n-1, successor lists): order, dominance, loops.

They work on plain lists so that both the CFG form and the structured form (and the Gen backend's
instruction-level CFG later) can use them: `lowering.analysis.blocks` maps Blocks to integers.
"""
