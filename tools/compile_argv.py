"""The common `reconverge compile` command lines read without argparse (issue 26: a one-kernel compile's own
process spent ~8% importing argparse, gettext and locale, building compile's parser of ~70 arguments and
looking its messages up in gettext's catalogues).

quick_compile_args reads a compile command line made only of the options below, each spelt in full: the
input, `-o FILE` (or `-o -`), -O0..-Oz, the value options as `--name VALUE` or `--name=VALUE`, and the
flags. It answers the namespace argparse would (tools/cli_parser.py's compile parser: the same names,
defaults and values; tests/test_compile_argv.py compares the two), or None for anything else: another
option, an abbreviation, a value that starts with '-' or is not among an option's choices, a second input,
help. The caller then parses with argparse, which gives every error message as before.
"""
from __future__ import annotations

from types import SimpleNamespace

from reconverge.tools.compile_outputs import CF_CHOICES, EMIT_KINDS
from reconverge.tools.source_args import CONVERGENCE, OPT_CHOICES

TYPE_CHECKING = False                   # typing is not imported at run time
if TYPE_CHECKING:
    from typing import Any, Callable

# argparse's defaults of the compile parser (tools/cli_parser.py _add_compile, source_args'
# add_build_options and add_opt_option; the main parser's --debug, which compile's own --debug overrides)
DEFAULTS: dict[str, Any] = {
    "debug": False, "command": "compile", "input": None, "output": "-", "emit": None, "opt": "0",
    "divergence": False, "kernel": None, "verify_each": False, "dump_after": None, "dump_dir": "reconverge-dump",
    "stop_after": None, "pipeline": None, "simd": None, "cf": None, "print_after": None, "print_before": None,
    "spirv_version": None, "target_env": None, "local_size": None, "validate": False,
    "maximal_reconvergence": False, "x": None, "verbose": False, "define": None, "include": None,
    "debug_info": False, "convergence": "auto", "clang_arg": None}

FLAGS = {"--validate": "validate", "--verify-each": "verify_each", "--maximal-reconvergence": "maximal_reconvergence",
         "--divergence": "divergence", "-v": "verbose", "-g": "debug_info", "--debug": "debug"}

# value options: (dest, choices or None for any value)
VALUES: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "-o": ("output", None), "--emit": ("emit", EMIT_KINDS), "--kernel": ("kernel", None),
    "--target-env": ("target_env", None), "--spirv-version": ("spirv_version", None),
    "--local": ("local_size", None), "--cf": ("cf", CF_CHOICES),
    "--pipeline": ("pipeline", None), "-x": ("x", ("cl", "ll", "bc", "nir")),
    "--convergence": ("convergence", CONVERGENCE)}


def quick_compile_args(argv: list[str], func: Callable[..., Any]) -> SimpleNamespace | None:
    """argparse's namespace of `argv` (['compile', ...], its -cl-* options already taken out), with
    func=`func`, when every word is one this reader knows; else None (argparse reads it)."""
    if not argv or argv[0] != "compile":
        return None
    values: dict[str, Any] = dict(DEFAULTS)
    words = iter(argv[1:])
    for word in words:
        if word in FLAGS:
            values[FLAGS[word]] = True
            continue
        if word.startswith("-O") and word[2:] in OPT_CHOICES:
            values["opt"] = word[2:]
            continue
        name: str | None = None
        value: str | None = None
        if word in VALUES:
            name, value = word, next(words, None)
            if value is None:
                return None
        elif word.startswith("--") and word.partition("=")[0] in VALUES:
            name, _, value = word.partition("=")
        if name is not None and value is not None:
            dest, choices = VALUES[name]
            if not value or (value.startswith("-") and not (name == "-o" and value == "-")) or \
                    (choices is not None and value not in choices):
                return None
            values[dest] = value
            continue
        if word.startswith("-") or values["input"] is not None:
            return None                                     # another option, '-' (stdin), or a second input
        values["input"] = word
    if values["input"] is None:
        return None
    return SimpleNamespace(**values, func=func)
