"""reconverge/regex_code.py (tools/regex_table.py) holds what re's compiler makes of each pattern on this
Python, and the one-kernel compile of issue 26 finds every pattern it compiles there (re's compiler, Python
code, does not run for it)."""
import _sre
import json
import os
import re
import subprocess
import sys

import pytest

from reconverge import regex_code
from reconverge.tools.regex_table import ROOT

THIS_PYTHON = regex_code.MAGIC == _sre.MAGIC and regex_code.VERSION == tuple(sys.version_info[:2])
needs_this_python = pytest.mark.skipif(not THIS_PYTHON, reason="regex_code.py was written for another Python "
                                       "(not used here): python -m reconverge.tools.regex_table")


@needs_this_python
def test_each_stored_pattern_is_what_re_compiles_now():
    import re._compiler as compiler
    handed = []
    real = _sre.compile
    try:
        _sre.compile = lambda *args: handed.append(args) or real(*args)
        for pattern, flags, final, code, groups, groupindex, indexgroup in regex_code.PATTERNS:
            handed.clear()
            compiler.compile(pattern, flags)
            assert handed == [(pattern, final, list(code), groups, groupindex, indexgroup)], (
                f"{pattern!r} compiles otherwise now: python -m reconverge.tools.regex_table")
    finally:
        _sre.compile = real


@needs_this_python
def test_a_preloaded_pattern_is_the_compiled_one():
    """Pattern objects compare equal when their pattern, flags and compiled code are (sre's richcompare)."""
    from reconverge.lazy_regex import preload_patterns
    try:
        for pattern, flags, *_ in regex_code.PATTERNS:
            re.purge()
            preload_patterns()
            stored = re.compile(pattern, flags)
            re.purge()
            fresh = re.compile(pattern, flags)
            assert stored is not fresh and stored == fresh
            assert (stored.groups, stored.groupindex) == (fresh.groups, fresh.groupindex)
    finally:
        re.purge()


_PROBE = """
import json, sys
import re._compiler as compiler
compiled = []
real = compiler.compile
compiler.compile = lambda pattern, flags=0: compiled.append(pattern) or real(pattern, flags)
from reconverge.tools.cli import main
code = main(["compile", "examples/bench/private_array.cl", "-O2", "--emit", "spirv", "-o", sys.argv[1]])
print(json.dumps({"code": code, "compiled": compiled}))
"""


@needs_this_python
def test_the_one_kernel_compile_runs_no_regular_expression_compiler(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(tmp_path / "k.spv")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    answer = json.loads(proc.stdout.splitlines()[-1])
    assert answer["code"] == 0, proc.stderr
    assert answer["compiled"] == [], "patterns not in reconverge/regex_code.py: python -m reconverge.tools.regex_table"
