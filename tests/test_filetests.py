"""Every IR filetest in tests/filetests gives the output its `; expect:` block holds (tools/filetest.py;
`python -m tools.filetest --bless FILE` rewrites the block after an intended change)."""
import difflib
import glob
import os
import shutil

import pytest

from tools import filetest

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = sorted(glob.glob(os.path.join(HERE, "filetests", "*.nir")))


def test_there_are_filetests_of_every_kind():
    kinds = {filetest.split(open(path).read())[0].split(" ")[0] for path in FILES}
    assert kinds >= {"validate", "pass", "spirv-asm"}
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
