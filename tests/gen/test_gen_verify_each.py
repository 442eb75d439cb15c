"""The machine-IR verifier is a debug check on the command line, as the IR's validator after every pass:
`compile --emit gen` runs it after selection and allocation under --verify-each only, and the binary is
the same either way. The emitted code is checked against the PRM's restrictions on every compile."""
from reconverge.backend.gen import mir_verify
from reconverge.isa.gen9 import validate
from reconverge.tools import cli

KERNEL = ("kernel void k(global int *out, global const int *in, int n) {\n"
          "  int i = get_global_id(0), s = 0;\n  for (int j = 0; j < n; j++) { if (in[j] > i) break; s += in[j]; }\n"
          "  out[i] = s;\n}\n")


def _compile(tmp_path, monkeypatch, *flags: str) -> tuple[bytes, int, int]:
    """The container `compile` writes, and how many times the verifier and the code validator ran."""
    calls = {"verify": 0, "validate": 0}
    verify, validate_program = mir_verify.verify, validate.validate_program

    def counted_verify(func):
        calls["verify"] += 1
        return verify(func)

    def counted_validate(insts, *args, **kwargs):
        calls["validate"] += 1
        return validate_program(insts, *args, **kwargs)
    monkeypatch.setattr(mir_verify, "verify", counted_verify)
    monkeypatch.setattr(validate, "validate_program", counted_validate)
    source, out = tmp_path / "k.cl", tmp_path / f"k{len(flags)}.krn"
    source.write_text(KERNEL)
    assert cli.main(["compile", str(source), "-O2", "--emit", "gen", "--cf", "structured", "-o", str(out),
                     *flags]) == 0
    return out.read_bytes(), calls["verify"], calls["validate"]


def test_the_machine_ir_verifier_runs_under_verify_each_only(tmp_path, monkeypatch):
    plain, verified, validated = _compile(tmp_path, monkeypatch)
    assert (verified, validated) == (0, 1)
    checked, verified, validated = _compile(tmp_path, monkeypatch, "--verify-each")
    assert (verified, validated) == (2, 1)           # after selection and after allocation
    assert checked == plain
