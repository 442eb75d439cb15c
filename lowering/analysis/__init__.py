"""Analyses of a function in either IR form: liveness (also the solver the Gen machine IR uses) and
pointer provenance. The integer-graph algorithms they build on (order, dominance, loops) live in
`lowering/graph.py`, below the IR, so that the IR's validator can use them without importing an analysis.
"""
