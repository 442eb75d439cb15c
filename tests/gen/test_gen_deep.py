"""Deep programs on the Gen target: nesting beyond Python's recursion limit compiles and runs in every
control-flow mode, or (the hybrid, whose region search is bounded: cf_regions.MAX_ROUNDS) gets its
stated one-line refusal, and `auto` then takes the tree. The 5,000-level programs of
test_deep_programs.py are measured by `python -m reconverge.tools.bench_deep --gen` (README); here a depth that
already broke the recursion limit keeps CI cheap."""
import numpy as np
import pytest

from reconverge.backend.gen import choose_function
from reconverge.backend.gen.cf_regions import MAX_ROUNDS
from reconverge.lowering.errors import CompileError
from reconverge.tools.targets.harness import GenRunOptions, compare, load_program, run_target
from tests.test_cli import assert_one_line_error, run
from tests.test_deep_programs import nested_ifs, nested_loops

DEPTH = 1000        # nested ifs from 1,000 levels on were a RecursionError in selection


@pytest.fixture(scope="module")
def deep(tmp_path_factory):
    d = tmp_path_factory.mktemp("deep")
    out = {}
    for shape, make in (("ifs", nested_ifs), ("loops", nested_loops)):
        path = d / f"{shape}.ll"
        path.write_text(make(DEPTH))
        out[shape] = (str(path), load_program(str(path), "-O0"))
    return out


@pytest.mark.parametrize("cf", ["structured", "blockip", "auto"])
def test_deep_ifs_run_on_gen_like_the_jit(deep, cf):
    _, program = deep["ifs"]
    data = np.array([-1, 0, 3, 100, 500, 998, 999, 123456], np.int32)
    args = [np.zeros(8, np.int32), data]
    want = run_target("llvm", program, "k", args, 8, 8)
    assert compare(want, run_target("gen", program, "k", args, 8, 8, GenRunOptions(8, cf)), ["out", "in"]) == []


@pytest.mark.parametrize("cf", ["structured", "blockip"])
def test_deep_loops_run_on_gen_like_the_jit(deep, cf):
    _, program = deep["loops"]
    for x in (0, 5, 0x7FFFFFFF):
        args = [np.zeros(1, np.int32), np.int32(x)]
        want = run_target("llvm", program, "k", args, 1, 1)
        assert compare(want, run_target("gen", program, "k", args, 1, 1, GenRunOptions(8, cf)), ["out", "x"]) == []


@pytest.mark.parametrize("shape", ["ifs", "loops"])
def test_the_hybrid_refuses_nesting_beyond_its_region_search(deep, shape, tmp_path):
    path, program = deep[shape]
    args = [np.zeros(8, np.int32), np.zeros(8, np.int32)] if shape == "ifs" else [np.zeros(1, np.int32), np.int32(1)]
    with pytest.raises(CompileError, match=rf"nests deeper than the hybrid's region search goes \({MAX_ROUNDS} "
                                           r"levels\); use --cf structured or blockip"):
        run_target("gen", program, "k", args, len(args[0]), len(args[0]), GenRunOptions(8, "hybrid"))
    if shape == "ifs":
        result = run("compile", path, "--emit", "gen", "--cf", "hybrid", "-o", str(tmp_path / "k.krn"))
        assert_one_line_error(result, 1, "@k", "hybrid's region search")
        assert not (tmp_path / "k.krn").exists()


def test_deep_ifs_compile_from_the_command_line(deep, tmp_path):
    path, _ = deep["ifs"]
    result = run("compile", path, "--emit", "gen", "-O0", "-o", str(tmp_path / "k.krn"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "k.krn").stat().st_size > DEPTH * 16


def test_auto_takes_the_tree_without_trying_a_hybrid_it_would_refuse(deep, monkeypatch):
    """Nested deeper than the hybrid's rounds allow (an if costs two), auto does not pay for those rounds."""
    import reconverge.backend.gen as gen

    def no_hybrid(func, simd=16, regions=False, **kw):
        raise AssertionError("auto tried the hybrid's region search")
    monkeypatch.setattr(gen, "selection", no_hybrid)
    _, program = deep["ifs"]
    assert choose_function(program, "k", "auto")[1].name == "structured"
