"""The pass registry (lowering/passes/__init__.py) against the pass modules: every module is registered
under the NAME it gives itself, with a FORM the registry knows; every pipeline names registered passes in
an order whose forms fit; and a pass run on a function in the wrong form is refused with one line."""
from __future__ import annotations

import importlib
import os

import pytest

import reconverge.lowering.passes
from reconverge.lowering.ir.parser import parse_module
from reconverge.lowering.passes import FORMS, PASS_MODULES, PASSES, WrongFormError
from reconverge.lowering.target import CAPS, PIPELINES

CFG_KERNEL = """\
kernel @k(ptr1 %out, i32 %n) {
  block b0 "entry":
    %c = icmp.slt i32 %n, 3
    cbr i1 %c, b1, b2
  block b1 "small":
    br b2
  block b2 "done":
    %r = phi i32 [b0: 0], [b1: 1]
    store i32 %r, %out
    ret
}
"""


def test_every_pass_module_is_registered_under_its_own_name():
    folder = os.path.dirname(reconverge.lowering.passes.__file__)
    files = sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".py") and f != "__init__.py")
    assert sorted(PASS_MODULES) == files
    assert list(PASSES) == list(PASS_MODULES)
    for name in PASS_MODULES:
        module = importlib.import_module(f"reconverge.lowering.passes.{name}")
        assert module.NAME == name == PASSES[name].name
        assert module.FORM in FORMS and PASSES[name].form == module.FORM
        assert PASSES[name].body is module.run
        assert PASSES[name].doc                     # the module's docstring says what it does


@pytest.mark.parametrize("pipeline", sorted(PIPELINES))
def test_every_pipeline_runs_registered_passes_on_the_form_they_need(pipeline):
    assert pipeline in CAPS
    form = "cfg"                                    # what the reader gives
    for name in PIPELINES[pipeline]:
        assert name in PASSES, f"{pipeline}: unknown pass {name}"
        assert PASSES[name].form in ("any", form), f"{pipeline}: {name} needs the {PASSES[name].form} form"
        if name == "structurize":
            form = "structured"


def _function():
    return next(iter(parse_module(CFG_KERNEL, "k.nir").functions.values()))


def test_a_pass_on_the_wrong_form_is_a_one_line_error():
    func = _function()
    with pytest.raises(WrongFormError) as caught:
        PASSES["promote"].run(func, CAPS["generic"])
    assert str(caught.value) == "@k: pass 'promote' works on the structured form, but the function is in the cfg form"
    assert not func.is_structured                    # refused before it touched the function
    assert PASSES["structurize"].run(func, CAPS["generic"]) is not None
    assert func.is_structured
    with pytest.raises(WrongFormError, match="pass 'structurize' works on the cfg form"):
        PASSES["structurize"].run(func, CAPS["generic"])
    PASSES["promote"].run(func, CAPS["generic"])     # now in the form it needs
