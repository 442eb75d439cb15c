"""Each command imports only what it uses (issue 26: `reconverge --help` took 9x `clang-22 --version`, a Gen
compile imported numpy and the simulator it never runs). Behaviour, not timing: a fresh interpreter runs the
commands and reports what sys.modules holds afterwards. The times are tools/bench_compile_speed.py's."""
import ast
import importlib.util
import json
import os
import subprocess
import sys

from reconverge.tools.commands import COMMANDS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "examples", "nested_break.cl")

# what no compile needs: numpy, the Gen simulator and its dispatch, the IR interpreter, the run targets,
# importlib.metadata (only --version reads the installed version), and dataclasses with the inspect it
# imports (the compiler's classes are reconverge.records)
NOT_FOR_A_COMPILE = ("numpy", "reconverge.isa.gen9.simulator", "reconverge.isa.gen9.dispatch",
                     "reconverge.lowering.interp", "reconverge.tools.targets", "importlib.metadata", "construct",
                     "dataclasses", "inspect")
# what --help needs even less: LLVM, the compiler's IR, either backend
NOT_FOR_HELP = (*NOT_FOR_A_COMPILE, "llvmlite", "reconverge.lowering.ir", "reconverge.lowering.pipeline",
                "reconverge.backend", "reconverge.isa.gen9.model", "typing", "threading",
                *(module for module, _ in COMMANDS.values() if module != "reconverge.tools.cli"))

_PROBE = """
import json, sys
from reconverge.tools.cli import main
codes = []
for argv in json.loads(sys.argv[1]):
    try:
        codes.append(main(argv))
    except SystemExit as exc:
        codes.append(exc.code)
print(json.dumps({"codes": codes, "modules": sorted(sys.modules)}))
"""


def _modules_after(*commands: list[str]) -> set[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(commands)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout.splitlines()[-1])
    assert answer["codes"] == [0] * len(commands), proc.stderr
    return set(answer["modules"])


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_help_imports_no_compiler():
    modules = _modules_after(["--help"])
    assert "reconverge.tools.cli" in modules                   # the probe ran the command line
    assert _loaded(modules, NOT_FOR_HELP) == []


def test_a_command_builds_its_own_parser_and_lists_the_others(tmp_path):
    """`reconverge disasm` imports the module of disasm (and of asm and diff, its neighbours there), not those
    of check or fuzz; the parser still knows every command by name."""
    from reconverge.tools.cli import build_parser
    modules = _modules_after(["disasm", "--help"])
    assert "reconverge.tools.isa_commands" in modules
    assert _loaded(modules, ("reconverge.tools.check_command", "reconverge.tools.fuzz")) == []
    assert set(build_parser("disasm", every_command=False)._subparsers._group_actions[0].choices) == set(COMMANDS)


def test_a_command_builds_no_parser_it_does_not_run():
    """A parser costs argparse's set-up and gettext's look-ups (the seven other commands' stub parsers and run's
    full one were 3% of a one-kernel compile's instructions): `compile` builds its own alone and knows the
    others by name; `--help` still has every command's parser for its listing."""
    from reconverge.tools.cli import build_parser
    for command, built in (("compile", {"compile"}), ("run", {"run"}), ("disasm", {"asm", "disasm", "diff"})):
        choices = build_parser(command, every_command=False)._subparsers._group_actions[0].choices
        assert set(choices) == set(COMMANDS)
        assert {name for name, parser in choices.items() if parser is not None} == built
    listed = build_parser(None, every_command=False)._subparsers._group_actions[0].choices
    assert all(parser is not None for parser in listed.values())


def test_compiling_to_spirv_and_gen_imports_no_numpy_nor_simulator(tmp_path):
    out = str(tmp_path / "k")
    modules = _modules_after(
        ["compile", SOURCE, "-O2", "--emit", "spirv", "-o", out + ".spv"],
        *(["compile", SOURCE, "-O2", "--emit", "gen", "--cf", cf, "-o", f"{out}-{cf}.krn"]
          for cf in ("auto", "structured", "blockip", "hybrid")),
        ["compile", SOURCE, "--emit", "gen-asm", "--simd", "8", "-o", out + ".s"])
    assert "reconverge.backend.gen.regalloc" in modules and "reconverge.backend.spirv" in modules
    assert _loaded(modules, NOT_FOR_A_COMPILE) == []
    assert os.path.getsize(out + ".spv") > 0 and os.path.getsize(out + "-auto.krn") > 0


def test_the_probe_sees_numpy_when_a_command_uses_it(tmp_path):
    """The check above could pass by looking in the wrong place: `run` on the gen target does import the
    simulator and numpy, and the same probe finds them."""
    modules = _modules_after(["run", SOURCE, "--target", "gen", "--global", "8", "--out", str(tmp_path),
                              "--arg", "out=zeros:8:int32", "--arg", "grid=zeros:256:int32"])
    assert "numpy" in modules and "reconverge.isa.gen9.simulator" in modules


def test_compiling_to_spirv_loads_no_gen_backend(tmp_path):
    """A SPIR-V compile has no use for the Gen backend (its import was 3% of compiling the control-flow
    file: the compile command asked it for the --cf modes and machine pass names it never checks)."""
    out = str(tmp_path / "k.spv")
    modules = _modules_after(["compile", SOURCE, "-O2", "--emit", "spirv", "--validate", "-o", out])
    assert "reconverge.backend.spirv" in modules                # the probe saw the compile
    assert _loaded(modules, ("reconverge.backend.gen",)) == []
    # nor ctypes (9M instructions): setpriv gives clang and spirv-val their parent-death signal
    # (lowering/child_process.py), and the reader of clang's text needs it only for llvmlite's values
    assert _loaded(modules, ("ctypes",)) == []
    assert os.path.getsize(out) > 0


_ENTRY_PROBE = """
import gc, sys
from reconverge.tools import cli
def fake_main(argv=None):
    print(gc.isenabled())
    return int(sys.argv[-1])
cli.main = fake_main
cli.entry()
"""


def test_the_program_turns_the_collector_off_for_compile_only_and_keeps_main_s_exit_code():
    """cli.entry (the `reconverge` script, `python -m reconverge.tools.cli`) runs a compile without the cyclic
    collector and every other command with it, and leaves with main()'s exit code (os._exit, no teardown)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    for command, collector, code in (("compile", "False", 0), ("compile", "False", 3), ("check", "True", 1)):
        proc = subprocess.run([sys.executable, "-c", _ENTRY_PROBE, command, str(code)], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)
        assert (proc.stdout.strip(), proc.returncode) == (collector, code), proc.stderr


def _runtime_imports_of(path: str, module: str) -> list[int]:
    """Lines importing `module` outside `if TYPE_CHECKING:` blocks (at any depth: a function's import
    runs too when the function does)."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    type_only = {id(n) for block in ast.walk(tree) if isinstance(block, ast.If)
                 and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
                 for stmt in block.body for n in ast.walk(stmt)}
    return [n.lineno for n in ast.walk(tree) if id(n) not in type_only and (
        (isinstance(n, ast.Import) and any(a.name == module for a in n.names))
        or (isinstance(n, ast.ImportFrom) and n.module == module and not n.level))]


def test_no_module_of_a_compile_imports_typing_at_run_time(tmp_path):
    """`import typing` is about 4 ms of a one-kernel compile: the compile path takes cast and Protocol from
    reconverge.typing_free and everything else under `if TYPE_CHECKING:`. Read from the source of every
    module a SPIR-V and a Gen compile load, as llvmlite (still loaded for LLVM IR input) imports typing
    itself; dataclasses likewise (reconverge.records)."""
    out = str(tmp_path / "k")
    modules = _modules_after(["compile", SOURCE, "-O2", "--emit", "spirv", "-o", out + ".spv"],
                             ["compile", SOURCE, "-O2", "--emit", "gen", "--cf", "hybrid", "-o", out + ".krn"])
    ours = sorted(m for m in modules if m.startswith("reconverge."))
    assert "reconverge.lowering.ir.core" in ours and "reconverge.backend.gen.regalloc" in ours
    bad = []
    for name in ours:
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.origin is not None
        bad += [f"{spec.origin}:{line}: {name} imports {stdlib}"
                for stdlib in ("typing", "dataclasses") for line in _runtime_imports_of(spec.origin, stdlib)]
    assert bad == []


def test_help_keeps_the_terminal_width_argparse_would_use():
    """The parsers work out HelpFormatter's width once, without shutil (cli._help_width): $COLUMNS still
    sets it, as shutil.get_terminal_size made it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    lines = {}
    for columns in ("50", "200"):
        proc = subprocess.run([sys.executable, "-m", "reconverge.tools.cli", "compile", "--help"], cwd=ROOT,
                              env={**env, "COLUMNS": columns}, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        lines[columns] = proc.stdout.splitlines()
    narrow, wide = lines["50"], lines["200"]
    assert len(narrow) > 3 * len(wide)                   # the help wrapped at 48 columns, then at 198
    assert max(len(line) for line in wide) > 100 and all(len(line) <= 198 for line in wide)
    assert sum(len(line) > 48 for line in narrow) < len(narrow) // 10     # only unbreakable words stick out
