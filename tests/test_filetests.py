"""Every filetest in tests/filetests (IR text .nir, Gen machine-IR text .mir) gives the output its
`; expect:` block holds (tools/filetest.py; `python -m reconverge.tools.filetest --bless FILE` rewrites the block
after an intended change)."""
import difflib
import glob
import os
import shutil

import pytest

from reconverge.tools import filetest

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = sorted(glob.glob(os.path.join(HERE, "filetests", "*.nir")) + glob.glob(os.path.join(HERE, "filetests", "*.mir")))


def test_there_are_filetests_of_every_kind():
    kinds = {filetest.split(open(path).read())[0].split(" ")[0] for path in FILES}
    assert kinds >= {"validate", "pass", "spirv-asm", "gen-mir", "gen-asm", "regalloc", "emit"}
    assert any(filetest.split(open(path).read())[1] for path in FILES)       # run: lines


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(p) for p in FILES])
def test_filetest(path):
    _, expected, out = filetest.actual_output(path)
    assert expected, f"{path} has no '; expect:' block (bless it)"
    diff = "".join(difflib.unified_diff(expected.splitlines(True), out.splitlines(True), "expected", "actual"))
    assert out == expected, diff


def test_bless_rewrites_a_wrong_expectation_and_only_that(tmp_path):
    source = next(p for p in FILES if "structurize" in p)
    path = str(tmp_path / "copy.nir")
    shutil.copy(source, path)
    assert not filetest.bless(path)                          # right already: the file is left alone
    text = open(path).read().replace("%s1 = add i32 %s, %k", "%s1 = add i32 %s, 7", 1)
    text = text[:text.index("; expect:")] + "; expect:\n; nothing\n"
    open(path, "w").write(text)
    assert filetest.main([path]) == 1
    assert filetest.bless(path)
    assert filetest.main([path]) == 0
    assert "; expect:\n; kernel @multi_exit" in open(path).read()


def test_a_gen_test_names_its_mistakes_in_one_line(tmp_path):
    source = next(p for p in FILES if p.endswith("gen_asm_loop_exits.nir"))
    path = str(tmp_path / "copy.nir")
    text = open(source).read()
    for test, message in (("gen-asm simd 32", "unknown setting 'simd 32'"),
                          ("gen-mir cf blockip", "cf blockip compiles CFG IR; this function is not"),
                          ("regalloc first", "'first' has no value")):
        open(path, "w").write(text.replace("; test: gen-asm simd 16 cf structured", f"; test: {test}"))
        with pytest.raises(Exception) as caught:
            filetest.actual_output(path)
        assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_malformed_file_is_one_line_not_a_traceback(tmp_path, capsys):
    path = tmp_path / "bad.nir"
    path.write_text("kernel @k(ptr1 %out) {\n  block b0:\n    %p = phi ptr0 [%x, b1]\n}\n; test: print\n; expect:\n")
    assert filetest.main([str(path), str(tmp_path / "absent.nir")]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"FAIL {path}: {path}:3: expected a block name bN, found '%x' (in `%p = phi ptr0 [%x, b1]`)"
    assert lines[1].startswith(f"FAIL {tmp_path / 'absent.nir'}: ") and len(lines) == 2
