"""tools/compile_argv.py reads the common compile command lines as argparse does (the same namespace), and
leaves every other one, with its error message, to argparse."""
import pytest

from reconverge.tools.cli import _compile, build_parser
from reconverge.tools.compile_argv import quick_compile_args

READ = [
    ["compile", "k.cl"],
    ["compile", "k.cl", "-O2", "--emit", "spirv", "-o", "k.spv"],
    ["compile", "-O3", "--emit=spirv-asm", "k.cl", "-o", "-"],
    ["compile", "k.cl", "-Os", "-O1", "--kernel", "main", "--validate", "--target-env", "vulkan1.2",
     "--spirv-version", "1.5", "--local", "8,8", "--maximal-reconvergence", "-o", "out.spv"],
    ["compile", "k.ll", "--emit", "gen", "--cf", "hybrid", "-x", "ll", "--pipeline", "gen", "-v", "-g"],
    ["compile", "k.cl", "--verify-each", "--divergence", "--emit", "nir", "--convergence", "scopes", "--debug"],
    ["compile", "k.cl", "--emit", "nir", "--emit", "spirv", "-o", "a", "-o", "b"],
    ["compile", "k.cl", "--convergence=cfg", "--kernel=k", "-Oz"],
]

LEFT_TO_ARGPARSE = [
    ["compile"],                                        # no input
    ["compile", "-"],                                   # standard input
    ["compile", "a.cl", "b.cl"],                        # a second input
    ["compile", "k.cl", "--emit", "bogus"],             # not a choice
    ["compile", "k.cl", "--emi", "spirv"],              # an abbreviation
    ["compile", "k.cl", "--emit"],                      # no value
    ["compile", "k.cl", "-o"],
    ["compile", "k.cl", "--kernel", "-x"],              # a value that looks like an option
    ["compile", "k.cl", "-ok.spv"],                     # an attached value
    ["compile", "k.cl", "-O9"],
    ["compile", "k.cl", "-D", "X=1"],                   # options read by argparse alone
    ["compile", "k.cl", "--dump-after", "all"],
    ["compile", "k.cl", "--simd", "8"],
    ["compile", "k.cl", "--help"],
    ["compile", "k.cl", "--", "x"],
    ["--debug", "compile", "k.cl"],
    ["run", "k.cl"],
]


@pytest.mark.parametrize("argv", READ, ids=" ".join)
def test_the_same_namespace_as_argparse(argv):
    quick = quick_compile_args(argv, _compile)
    assert quick is not None
    assert vars(quick) == vars(build_parser("compile", every_command=False).parse_args(argv))


@pytest.mark.parametrize("argv", LEFT_TO_ARGPARSE, ids=" ".join)
def test_anything_else_is_left_to_argparse(argv):
    assert quick_compile_args(argv, _compile) is None


def test_argparse_still_words_the_errors(capsys):
    from reconverge.tools.cli import main
    assert main(["compile", "k.cl", "--emit", "bogus"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "reconverge: error: argument --emit: invalid choice: 'bogus' (choose from 'nir', 'dot-cfg', 'dot-tree', "
        "'spirv', 'spirv-asm', 'dot-spirv', 'gen', 'gen-bin', 'gen-asm', 'gen-mir', 'llvm')"]


def test_no_option_is_taken_for_a_longer_one_it_begins(capsys):
    """As in clang, an option is spelled whole: `compile --target gen` is no --target-env (argparse's
    abbreviations made it one, with an error about --target-env), and it says how compile picks a target."""
    from reconverge.tools.cli import main
    assert main(["compile", "k.cl", "--target", "gen", "--emit", "gen-asm"]) == 2
    assert main(["compile", "k.cl", "--emi", "spirv"]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "reconverge: error: unrecognized arguments: --target gen (compile picks its target by --emit: spirv, "
        "gen-asm, gen-bin, ...; run takes --target)",
        "reconverge: error: unrecognized arguments: --emi spirv"]
