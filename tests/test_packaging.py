"""Packaging: the wheel installs one top-level package, `reconverge`, and nothing named `tools`, `backend`,
`isa` or `lowering` (generic names that collide with anything else in site-packages). The folders stay at
the repository root; reconverge/lowering, backend, isa and tools are links to them, so a checkout imports
`reconverge.lowering...` with the work tree on sys.path and setuptools packs the files under reconverge/.

Every import says `reconverge.<package>`: one bare `import lowering...` in a process that also imported
`reconverge.lowering...` would load a second copy of each module (two CompileError classes, isinstance
failing across them), so no file may use the bare names."""
from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINKED = ("lowering", "backend", "isa", "tools")
SKIP_DIRS = {".git", ".venv", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis", "build",
             "out", "fuzz-failures", "reconverge"}   # reconverge/: its links lead back to the folders walked here
BARE_MODULE = re.compile(rf"(?:{'|'.join(LINKED)})(?:\.\w+)+")
BARE_DASH_M = re.compile(rf"-m\s+(?:{'|'.join(LINKED)})\.")


def _python_files() -> list[str]:
    out = [os.path.join(ROOT, "reconverge", "__init__.py")]
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info")
                         and not d.startswith("."))            # hidden: tool caches, local replay bundles
        out += [os.path.join(folder, f) for f in sorted(files) if f.endswith(".py")]
    return out


def _bare_uses(path: str) -> list[str]:
    """Imports of the bare names, and strings naming a bare module: a whole string "tools.cli" (an
    importlib or mock target) or a `python -m` of one anywhere in a string (argv, usage, docstrings)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if BARE_MODULE.fullmatch(node.value) or BARE_DASH_M.search(node.value):
                bad.append(f"{path}:{node.lineno}: {node.value[:60]!r}")
            continue
        else:
            continue
        bad += [f"{path}:{node.lineno}: import {n}" for n in names if n.split(".")[0] in LINKED]
    return bad


def test_no_file_imports_the_bare_package_names():
    files = _python_files()
    assert os.path.join(ROOT, "tools", "cli.py") in files and os.path.join(ROOT, "tests", "test_api.py") in files
    bad = [b for path in files for b in _bare_uses(path)]
    assert not bad, "use reconverge.<package>:\n" + "\n".join(bad)


def test_the_scan_finds_a_bare_import(tmp_path):
    sample = tmp_path / "m.py"
    sample.write_text('import os\nfrom tools.cli import main\nimport isa.gen9 as g\nfrom . import x\n'
                      'def f():\n    from lowering import errors\n'
                      'run([python, "-m", "tools.cli"])\nimportlib.import_module("backend.spirv")\n'
                      'from reconverge.tools import cli\n"tools.cli is prose"\n')
    found = {b.split(": ", 1)[1] for b in _bare_uses(str(sample))}
    assert found == {"import tools.cli", "import isa.gen9", "import lowering", "'tools.cli'", "'backend.spirv'"}


@pytest.mark.parametrize("package", LINKED)
def test_reconverge_links_to_the_root_folders(package):
    link = os.path.join(ROOT, "reconverge", package)
    assert os.path.islink(link) and os.readlink(link) == os.path.join("..", package)
    assert os.path.samefile(link, os.path.join(ROOT, package))


def _copy_tree(dest: str) -> None:
    """The work tree without caches, venvs and build output: building writes build/ and *.egg-info into
    the tree it builds."""
    def ignore(folder: str, names: list[str]) -> set[str]:
        top = os.path.samefile(folder, ROOT)
        return {n for n in names if n in {"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis"}
                or n.endswith(".egg-info") or (top and n in {".git", ".venv", "build", "out", "fuzz-failures"})}
    shutil.copytree(ROOT, dest, symlinks=True, ignore=ignore)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    base = tmp_path_factory.mktemp("wheel")
    src, dist = str(base / "src"), str(base / "dist")
    _copy_tree(src)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", dist,
                           src], capture_output=True, text=True, timeout=300, cwd=str(base))
    assert done.returncode == 0, done.stdout + done.stderr
    (name,) = os.listdir(dist)
    return os.path.join(dist, name)


def test_the_wheel_installs_only_reconverge(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        entry_points = z.read(f"{dist_info}/entry_points.txt").decode()
        top_level = z.read(f"{dist_info}/top_level.txt").decode().split() if f"{dist_info}/top_level.txt" in names \
            else ["reconverge"]
    assert {n.split("/")[0] for n in names} == {"reconverge", dist_info}, sorted({n.split("/")[0] for n in names})
    assert top_level == ["reconverge"]
    for module in ("reconverge/__init__.py", "reconverge/tools/cli.py", "reconverge/lowering/ir/core.py",
                   "reconverge/backend/spirv/emit.py", "reconverge/isa/gen9/simulator.py",
                   "reconverge/tools/targets/harness.py", "reconverge/lowering/passes/__init__.py"):
        assert module in names, module
    assert not [n for n in names if "/tests/" in n or n.startswith("reconverge/reconverge")]
    assert re.search(r"^reconverge = reconverge\.tools\.cli:entry$", entry_points, re.M), entry_points


def test_the_unpacked_wheel_runs_without_the_checkout(wheel, tmp_path):
    """The wheel's files alone (no work tree on sys.path: cwd elsewhere) import and compile an example."""
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    example = os.path.join(ROOT, "examples", "nested_break.cl")
    code = ("import reconverge, reconverge.tools.cli as cli, reconverge.lowering.errors as e; "
            "print(reconverge.__file__); print(cli.__file__); print(e.CompileError is reconverge.CompileError); "
            f"import sys; sys.exit(cli.main(['compile', {example!r}, '--emit', 'nir', '-o', 'k.nir']))")
    env = dict(os.environ, PYTHONPATH=str(site))
    done = subprocess.run([sys.executable, "-c", code], cwd=elsewhere, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    first, second, same = done.stdout.split()[:3]
    assert first == str(site / "reconverge" / "__init__.py") and second == str(site / "reconverge" / "tools" / "cli.py")
    assert same == "True"
    assert "nested_break" in (elsewhere / "k.nir").read_text()
