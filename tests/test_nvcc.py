"""Tests of the nvcc command-line model (pragmadp/nvcc.py).

The tests marked ``nvcc`` check the model against the installed nvcc itself (its --help, its
-dryrun plans and the dependency files it really writes); the rest pin the behaviour that was
observed with nvcc 13.0, so they run anywhere.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pragmadp import nvcc as nv
from pragmadp.nvcc import parse_nvcc_args as parse

nvcc_on_path = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")


def only(cmd, name):
    """The single occurrence of option `name`."""
    (arg,) = cmd.options(name)
    return arg


# ---- value forms -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, name, value, form",
    [
        (["-o", "x.o"], "--output-file", "x.o", "separate"),
        (["-o=x.o"], "--output-file", "x.o", "="),
        (["--output-file", "x.o"], "--output-file", "x.o", "separate"),
        (["--output-file=x.o"], "--output-file", "x.o", "="),
        (["-Ifoo"], "--include-path", "foo", "glued"),
        (["-I", "foo"], "--include-path", "foo", "separate"),
        (["-I=foo"], "--include-path", "foo", "="),
        (["--include-path=foo"], "--include-path", "foo", "="),
        (["-DX=1"], "--define-macro", "X=1", "glued"),
        (["-D=X"], "--define-macro", "X", "="),  # nvcc drops the '=' (-D "X")
        (["-D", "X=1"], "--define-macro", "X=1", "separate"),
        (["-UX"], "--undefine-macro", "X", "glued"),
        (["-L/opt/lib"], "--library-path", "/opt/lib", "glued"),
        (["-lcudadevrt"], "--library", "cudadevrt", "glued"),
        (["-O3"], "--optimize", "3", "glued"),
        (["-O", "3"], "--optimize", "3", "separate"),
        (["-t4"], "--threads", "4", "glued"),
        (["-rdc=true"], "--relocatable-device-code", "true", "="),
        (["-rdc", "true"], "--relocatable-device-code", "true", "separate"),
        (["--relocatable-device-code=false"], "--relocatable-device-code", "false", "="),
        (["-x", "cu"], "--x", "cu", "separate"),
        (["--x=cu"], "--x", "cu", "="),
        (["-arch=sm_90"], "--gpu-architecture", "sm_90", "="),
        (["-arch", "sm_90"], "--gpu-architecture", "sm_90", "separate"),
        (["-gencode=arch=compute_90,code=sm_90"], "--generate-code", "arch=compute_90,code=sm_90", "="),
        (["-gencode", "arch=compute_90,code=sm_90"], "--generate-code", "arch=compute_90,code=sm_90", "separate"),
        (["-MF", "d.d"], "--dependency-output", "d.d", "separate"),
        (["-MF=d.d"], "--dependency-output", "d.d", "="),
        (["--dependency-output", "d.d"], "--dependency-output", "d.d", "separate"),
        (["-MT", "tgt"], "--dependency-target-name", "tgt", "separate"),
        (["-optf", "none.txt"], "--options-file", "none.txt", "separate"),
        (["--options-file=none.txt"], "--options-file", "none.txt", "="),
        (["-Xcompiler", "-fPIC"], "--compiler-options", "-fPIC", "separate"),
        (["-Xcompiler=-fPIC,-Wall"], "--compiler-options", "-fPIC,-Wall", "="),
        (["--compiler-options", "-fPIC"], "--compiler-options", "-fPIC", "separate"),
        (["-Xlinker", "-rpath,/x"], "--linker-options", "-rpath,/x", "separate"),
        (["-Xptxas", "-v"], "--ptxas-options", "-v", "separate"),
        (["-Xcudafe", "--diag_suppress=1"], "--cudafe-options", "--diag_suppress=1", "separate"),
        (["-ccbin", "g++-12"], "--compiler-bindir", "g++-12", "separate"),
        (["-std=c++17"], "--std", "c++17", "="),
        (["-isystem", "/sys"], "--system-include", "/sys", "separate"),
        (["-include", "pre.h"], "--pre-include", "pre.h", "separate"),
        (["-odir", "objs"], "--output-directory", "objs", "separate"),
        (["-ldir", "nvvm"], "--libdevice-directory", "nvvm", "separate"),  # not -l "dir"
        (["-time", "t.csv"], "--time", "t.csv", "separate"),  # not -t "ime"
        (["-Ofc=max"], "--Ofast-compile", "max", "="),  # not -O "fc=max"
        (["-Ofcmax"], "--optimize", "fcmax", "glued"),  # what nvcc does too ('fcmax': expected a number)
        (["-libfoo"], "--library", "ibfoo", "glued"),  # -lib is exact only
        (["-l=foo,bar"], "--library", "foo,bar", "="),
    ],
)
def test_value_forms(argv, name, value, form):
    cmd = parse(argv + ["k.cu"])
    arg = only(cmd, name)
    assert (arg.value, arg.form, arg.tokens) == (value, form, tuple(argv))
    assert cmd.inputs == [(len(argv), "k.cu")]


@pytest.mark.parametrize(
    "flag, name",
    [
        ("-c", "--compile"), ("--compile", "--compile"), ("-dc", "--device-c"),
        ("-dw", "--device-w"), ("-dlink", "--device-link"), ("-lib", "--lib"),
        ("-link", "--link"), ("-E", "--preprocess"), ("-M", "--generate-dependencies"),
        ("-MM", "--generate-nonsystem-dependencies"), ("-MD", "--generate-dependencies-with-compile"),
        ("-MMD", "--generate-nonsystem-dependencies-with-compile"), ("-MP", "--generate-dependency-targets"),
        ("-G", "--device-debug"), ("-g", "--debug"), ("-lineinfo", "--generate-line-info"),
        ("-m64", "--m64"), ("-v", "--verbose"), ("-w", "--disable-warnings"),
        ("--no-align-double", "--no-align-double"), ("-use_fast_math", "--use_fast_math"),
        ("-ptx", "--ptx"), ("-cubin", "--cubin"), ("-fatbin", "--fatbin"), ("-optix-ir", "--optix-ir"),
        ("-cuda", "--cuda"), ("-run", "--run"), ("-V", "--version"), ("-h", "--help"),
    ],
)
def test_flags_take_no_value(flag, name):
    cmd = parse([flag, "k.cu"])
    arg = only(cmd, name)
    assert arg.value is None and arg.tokens == (flag,)
    assert cmd.inputs == [(1, "k.cu")]


@pytest.mark.parametrize(
    "token",
    [
        "-ofoo.o", "-xcu", "-MFx.d", "-isystemdir", "-includefoo.h", "-archsm_90", "-rdctrue",
        "-Xcompiler-fPIC", "-output-file=x", "--o=x", "--I=foo", "--rdc=true", "--include-pathfoo",
        "-fPIC", "-Wall", "-pthread", "-no-align-double", "--", "-Xnvvm",
    ],
)
def test_unknown_options_pass_through_as_single_tokens(token):
    """nvcc 13.0 answers "Unknown option" to each of these: a glued value only works for
    -l -D -U -I -L -O -t, long names need two dashes and short names one."""
    argv = [token, "k.cu", "-o", "k.o"]
    cmd = parse(argv)
    assert cmd.args[0].kind == "unknown" and cmd.args[0].tokens == (token,)
    assert cmd.inputs == [(1, "k.cu")]
    assert cmd.with_inputs_replaced({}) == argv


def test_value_is_taken_even_when_it_looks_like_an_option_or_input():
    cmd = parse(["-o", "a.cu", "-x", "cu", "-Xcompiler", "-fPIC", "-o", "-c", "b.cu"])
    assert cmd.inputs == [(8, "b.cu")]
    assert cmd.output_file() == "-c"
    assert not cmd.has_option("--compile")
    assert cmd.values("--compiler-options") == ["-fPIC"]
    assert cmd.language == "cu"


def test_value_missing_at_end():
    cmd = parse(["k.cu", "-o"])
    arg = only(cmd, "--output-file")
    assert arg.value is None and arg.missing_value
    assert cmd.output_file() is None


def test_flag_with_equals_keeps_value_for_nvcc_to_reject():
    cmd = parse(["-c=true", "k.cu"])
    assert only(cmd, "--compile").value == "true"


def test_stdin_dash_is_an_input():
    cmd = parse(["-x", "cu", "-c", "-"])
    assert cmd.inputs == [(3, "-")]
    assert cmd.cuda_inputs() == [(3, "-")]


def test_option_table_is_consistent():
    longs = [l for l, _, _ in nv._OPTIONS]
    shorts = [s for _, s, _ in nv._OPTIONS if s is not None]
    assert len(longs) == len(set(longs)) and len(shorts) == len(set(shorts))
    assert all(l.startswith("--") for l in longs)
    assert all(s.startswith("-") and not s.startswith("--") for s in shorts)
    for short in nv.GLUED_VALUE_SHORT:
        assert nv.TAKES_VALUE[nv._SHORT[short]]


# ---- inputs, -x, phases and cuda_inputs ----------------------------------------------------------

MIXED = ["a.cu", "b.cpp", "c.o", "sub/d.cu", "e.c", "libf.a", "g.ptx", "h.cu.cpp"]


def test_multiple_and_mixed_inputs_keep_positions():
    argv = ["-arch=sm_90", "a.cu", "-I", "inc", "b.cpp", "c.o", "-o", "app", "sub/d.cu"]
    cmd = parse(argv)
    assert cmd.inputs == [(1, "a.cu"), (4, "b.cpp"), (5, "c.o"), (8, "sub/d.cu")]
    assert cmd.cuda_inputs() == [(1, "a.cu"), (8, "sub/d.cu")]
    assert cmd.output_file() == "app"


PHASE_FLAGS = {
    "compile-link": [], "c": ["-c"], "dc": ["-dc"], "dw": ["-dw"], "dlink": ["-dlink"],
    "lib": ["-lib"], "link": ["-link"], "run": ["-run"], "E": ["-E"], "M": ["-M"], "MM": ["-MM"],
    "ptx": ["-ptx"], "cubin": ["-cubin"], "fatbin": ["-fatbin"], "optix-ir": ["-optix-ir"],
    "cuda": ["-cuda"], "ltoir": ["-ltoir", "-dlto"],
}


@pytest.mark.parametrize("phase", sorted(PHASE_FLAGS))
def test_phase_and_cuda_inputs_per_phase(phase):
    cmd = parse(["-arch=sm_90", *PHASE_FLAGS[phase], *MIXED])
    assert cmd.phase == phase
    cu = [(i, p) for i, p in cmd.inputs if p.endswith(".cu")]
    assert len(cu) == 2
    # nvcc compiles .cu inputs in every phase but -M/-MM (dryrun shows cudafe++/cicc for them,
    # -dlink and -lib included)
    assert cmd.cuda_inputs() == ([] if phase in ("M", "MM") else cu)
    assert cmd.links() == (phase in ("compile-link", "link", "run"))


@pytest.mark.parametrize(
    "flags, phase",
    [
        (["-c", "-dc"], "dc"), (["-dc", "-c"], "dc"), (["-c", "-dw"], "dw"),
        (["-c", "-dlink"], "c"), (["-dlink", "-c"], "c"), (["-c", "-lib"], "c"),
        (["-c", "-link"], "c"), (["-c", "-run"], "c"), (["-dlink", "-lib"], "dlink"),
        (["-dlink", "-link"], "dlink"), (["-link", "-run"], "run"),
        (["-E", "-c"], "E"), (["-c", "-E"], "E"), (["-M", "-E"], "M"), (["-E", "-M"], "M"),
        (["-M", "-MM"], "MM"), (["-MM", "-M"], "MM"), (["-M", "-c"], "M"),
        (["-ptx", "-c"], "ptx"), (["-cubin", "-ptx"], "ptx"), (["-cubin", "-fatbin"], "cubin"),
        (["-cuda", "-fatbin"], "fatbin"), (["-cuda", "-c"], "cuda"), (["-optix-ir", "-ptx"], "optix-ir"),
        (["-ltoir", "-dlto", "-cubin"], "ltoir"), (["-dlink", "-cubin"], "dlink"),
        (["-c", "-dlink", "-fatbin"], "dlink"), (["-dlink", "-ptx"], "ptx"),
        (["-MD", "-c"], "c"), (["-MD"], "compile-link"), (["-MD", "-M"], "M"),
        (["--compile", "--device-link"], "c"), (["--preprocess"], "E"),
    ],
)
def test_phase_precedence(flags, phase):
    """Measured with nvcc 13.0: which output a pair of phase options produces."""
    assert parse([*flags, "a.cu"]).phase == phase


@pytest.mark.parametrize(
    "argv, cuda",
    [
        (["-x", "cu", "-c", "b.cpp"], ["b.cpp"]),
        (["-c", "b.cpp", "-x", "cu"], ["b.cpp"]),  # -x applies to inputs before it too
        (["-c", "b.cpp", "-x", "cu", "c.cpp"], ["b.cpp", "c.cpp"]),
        (["-x", "cu", "-c", "b.cpp", "-x", "c++", "c.cpp"], []),  # the last -x wins, for all
        (["-x", "c++", "-x", "cu", "-c", "a.cu", "b.cpp"], ["a.cu", "b.cpp"]),
        (["-x", "c++", "-c", "a.cu"], []),
        (["-c", "a.cu", "-x", "c"], []),
        (["--x=cu", "-c", "b.o", "x.a"], ["b.o", "x.a"]),  # nvcc even runs cudafe++ on them
        (["-c", "A.CU", "a.Cu", "k.cuh", "a.cu"], ["a.cu"]),  # only lowercase .cu
    ],
)
def test_x_language_is_global_last_wins(argv, cuda):
    cmd = parse(argv)
    assert [p for _, p in cmd.cuda_inputs()] == cuda


def test_no_cuda_inputs_for_clean_and_dependencies():
    assert parse(["-clean", "a.cu"]).cuda_inputs() == []
    assert parse(["-M", "a.cu"]).cuda_inputs() == []


# ---- rdc, libraries, queries, verbose -----------------------------------------------------------


@pytest.mark.parametrize(
    "flags, rdc",
    [
        ([], False), (["-rdc=true"], True), (["-rdc", "true"], True), (["-rdc=false"], False),
        (["--relocatable-device-code=true"], True), (["--relocatable-device-code", "true"], True),
        (["-dc"], True), (["--device-c"], True), (["-dw"], False), (["--device-w"], False),
        (["-rdc=true", "-rdc=false"], False), (["-rdc=false", "-rdc=true"], True),
        (["-rdc=TRUE"], False), (["-c"], False),
    ],
)
def test_rdc_enabled(flags, rdc):
    assert parse([*flags, "a.cu"]).rdc_enabled() is rdc


@pytest.mark.parametrize(
    "flags",
    [
        ["-lcudadevrt"], ["-l", "cudadevrt"], ["-l=cudadevrt"], ["--library", "cudadevrt"],
        ["--library=cudadevrt"], ["-lcudart,cudadevrt"], ["--library=cudadevrt,m"],
    ],
)
def test_has_library_spellings(flags):
    cmd = parse(["a.cu", *flags])
    assert cmd.has_library("cudadevrt")
    assert not cmd.has_library("cudadev")


@pytest.mark.parametrize(
    "flags", [[], ["-lcudadevrtx"], ["-Xlinker", "-lcudadevrt"], ["-L", "cudadevrt"], ["-ldir", "cudadevrt"]]
)
def test_has_library_negative(flags):
    assert not parse(["a.cu", *flags]).has_library("cudadevrt")


def test_links_cudadevrt_by_default_unless_none():
    assert parse(["a.cu"]).links_cudadevrt()
    assert not parse(["a.cu", "-cudadevrt", "none"]).links_cudadevrt()
    assert parse(["a.cu", "--cudadevrt=none", "-lcudadevrt"]).links_cudadevrt()


@pytest.mark.parametrize(
    "argv",
    [
        [], ["--version"], ["-V"], ["--help"], ["-h"], ["--list-gpu-arch"], ["-arch-ls"], ["--list-gpu-code"], ["-code-ls"], ["-c", "a.cu", "-V"],
    ],
)
def test_is_query(argv):
    assert parse(argv).is_query()


@pytest.mark.parametrize(
    "argv", [["-v", "a.cu"], ["--verbose"], ["-c", "a.cu"], ["-Xcompiler", "--version", "a.cu"], ["-DV"],
             ["--dryrun", "a.cu"], ["-dryrun", "-c", "a.cu"]]
)
def test_not_query(argv):
    assert not parse(argv).is_query()


def test_a_dry_run_compiles_its_cuda_inputs_on_paper():
    """sccache runs `nvcc --dryrun` and then the steps it prints: they must be those of the file pdcc wrote."""
    assert parse(["-dryrun", "-c", "a.cu"]).is_dry_run() and not parse(["-c", "a.cu"]).is_dry_run()
    assert [path for _, path in parse(["--dryrun", "-c", "a.cu", "--keep"]).cuda_inputs()] == ["a.cu"]


def test_verbose():
    assert parse(["-v", "a.cu"]).verbose
    assert parse(["--verbose", "a.cu"]).verbose
    assert not parse(["-V"]).verbose
    assert not parse(["-Xptxas", "-v", "a.cu"]).verbose


# ---- rewriting ------------------------------------------------------------------------------------


def test_with_inputs_replaced_keeps_everything_else():
    argv = ["-arch=sm_90", "-rdc", "true", "a.cu", "-Xcompiler", "-fPIC", "b.cpp", "-o", "a.cu.o", "sub/c.cu"]
    cmd = parse(argv)
    out = cmd.with_inputs_replaced({3: "/tmp/x/a.pdcc.cu", 9: "/tmp/x/c.pdcc.cu"})
    assert out == ["-arch=sm_90", "-rdc", "true", "/tmp/x/a.pdcc.cu", "-Xcompiler", "-fPIC", "b.cpp",
                   "-o", "a.cu.o", "/tmp/x/c.pdcc.cu"]
    assert argv[3] == "a.cu"  # the model does not mutate its argv


def test_with_inputs_replaced_rejects_non_inputs():
    cmd = parse(["-o", "a.cu", "b.cu"])
    with pytest.raises(KeyError):
        cmd.with_inputs_replaced({1: "x.cu"})
    with pytest.raises(KeyError):
        cmd.with_inputs_replaced({0: "x.cu"})


def test_with_extra_args():
    cmd = parse(["-arch=sm_90", "-o", "k.o", "-c", "k.cu", "m.cu"])
    assert cmd.with_extra_args(["-I", "/src"], ["-DZ"]) == [
        "-arch=sm_90", "-o", "k.o", "-c", "-I", "/src", "k.cu", "m.cu", "-DZ"]
    assert cmd.with_extra_args() == list(cmd.argv)
    # no inputs: before_inputs goes at the end
    assert parse(["--version"]).with_extra_args(["-DX"], ["-DY"]) == ["--version", "-DX", "-DY"]
    # never glued to an option's missing value
    assert parse(["k.cu", "-o"]).with_extra_args(at_end=["-DY"]) == ["k.cu", "-DY", "-o"]


def test_rewritten_combines_both():
    cmd = parse(["-c", "k.cu"])
    assert cmd.rewritten({1: "t/k.cu"}, ["-I."], ["-lcudadevrt"]) == ["-c", "-I.", "t/k.cu", "-lcudadevrt"]


# hypothesis: random command lines built from known options, values and inputs

_FLAG_SPELLINGS = sorted(
    {s for l, s, v in nv._OPTIONS if not v for s in (l, s) if s is not None} - {"--options-file", "-optf"}
)
_VALUE_OPTS = [(l, s) for l, s, v in nv._OPTIONS if v and l != "--options-file"]
_VALUES = ["x", "a.cu", "-fPIC", "sm_90", "foo,bar", "3", "dir/sub", "c++17", "true", "X=1", "-o", "k.cu"]
_INPUTS = ["a.cu", "b.cpp", "c.o", "sub/d.cu", "e.c", "libf.a", "g.ptx", "-", "x y.cu"]
_UNKNOWN = ["-fPIC", "-Wall", "-pthread", "-ofoo", "--bogus=1"]


@st.composite
def pieces(draw):
    """A list of (tokens, kind, name, value) for one argument each."""
    out = []
    for _ in range(draw(st.integers(0, 12))):
        what = draw(st.sampled_from(["input", "flag", "value", "unknown"]))
        if what == "input":
            p = draw(st.sampled_from(_INPUTS))
            out.append(([p], "input", None, p))
        elif what == "flag":
            f = draw(st.sampled_from(_FLAG_SPELLINGS))
            out.append(([f], "option", f if f.startswith("--") else nv._SHORT[f], None))
        elif what == "unknown":
            out.append(([draw(st.sampled_from(_UNKNOWN))], "unknown", None, None))
        else:
            long, short = draw(st.sampled_from(_VALUE_OPTS))
            v = draw(st.sampled_from(_VALUES))
            forms = [[long, v], [long + "=" + v]]
            if short:
                forms += [[short, v], [short + "=" + v]]
                if short in nv.GLUED_VALUE_SHORT:
                    forms.append([short + v])
            out.append((draw(st.sampled_from(forms)), "option", long, v))
    return out


@settings(max_examples=300, deadline=None)
@given(pieces())
def test_property_parse_recovers_structure_and_empty_replacement_is_identity(ps):
    argv = [t for toks, *_ in ps for t in toks]
    cmd = parse(argv)
    assert cmd.with_inputs_replaced({}) == argv
    assert cmd.with_extra_args() == argv
    assert [(a.kind, a.name, a.value) for a in cmd.args] == [(k, n, v) for _, k, n, v in ps]
    assert [t for a in cmd.args for t in a.tokens] == argv


@settings(max_examples=200, deadline=None)
@given(pieces(), st.data())
def test_property_replacement_changes_exactly_the_chosen_inputs(ps, data):
    argv = [t for toks, *_ in ps for t in toks]
    cmd = parse(argv)
    chosen = data.draw(st.lists(st.sampled_from([i for i, _ in cmd.inputs]), unique=True)
                       if cmd.inputs else st.just([]))
    mapping = {i: f"/tmp/new{i}.cu" for i in chosen}
    out = cmd.with_inputs_replaced(mapping)
    assert out == [mapping.get(i, t) for i, t in enumerate(argv)]
    again = parse(out)
    assert [(a.kind, a.name) for a in again.args] == [(a.kind, a.name) for a in cmd.args]


# ---- options files -------------------------------------------------------------------------------


def test_split_options_file():
    text = '-c\n"src/with space.cu"  -o x\\ y.o -DS=\'z\' # -DA=a#b\t"-DQ=p q" a""b ""'
    assert nv.split_options_file(text) == [
        "-c", "src/with space.cu", "-o", "x y.o", "-DS='z'", "#", "-DA=a#b", "-DQ=p q", "ab", ""]
    assert nv.split_options_file("  \n ") == []
    assert nv.split_options_file('"x\\" y"') == ['x" y']


def test_options_file_contents_are_seen(tmp_path):
    (tmp_path / "opts.txt").write_text("-rdc=true\nsrc/k.cu -o out.o -lcudadevrt\n")
    argv = ["-arch=sm_90", "-optf", "opts.txt", "-c"]
    cmd = parse(argv, cwd=str(tmp_path))
    assert cmd.inputs == [(5, "src/k.cu")]  # file tokens are numbered after argv: 4, 5, ...
    assert cmd.cuda_inputs() == [(5, "src/k.cu")]
    assert cmd.rdc_enabled() and cmd.has_library("cudadevrt") and cmd.output_file() == "out.o"
    (inp,) = [a for a in cmd.args if a.kind == "input"]
    assert inp.origin == "opts.txt" and inp.parent == 1
    (f,) = cmd.options_files
    assert f.path == "opts.txt" and f.error is None and f.first_index == 4
    assert f.tokens == ("-rdc=true", "src/k.cu", "-o", "out.o", "-lcudadevrt")
    # the order of args is nvcc's reading order: file contents right after the -optf option
    assert [a.name or a.value for a in cmd.args] == [
        "--gpu-architecture", "--options-file", "--relocatable-device-code", "src/k.cu",
        "--output-file", "--library", "--compile"]
    assert cmd.with_inputs_replaced({}) == argv


def test_options_file_input_replacement_inlines_the_file(tmp_path):
    (tmp_path / "opts.txt").write_text('-rdc=true "src/with space.cu" -o out.o b.cpp')
    argv = ["-arch=sm_90", "--options-file=opts.txt", "-c", "a.cu"]
    cmd = parse(argv, cwd=str(tmp_path))
    idx = {p: i for i, p in cmd.inputs}
    assert set(idx) == {"src/with space.cu", "b.cpp", "a.cu"} and idx["a.cu"] == 3
    out = cmd.with_inputs_replaced({idx["src/with space.cu"]: "/t/k.cu", idx["a.cu"]: "/t/a.cu"})
    assert out == ["-arch=sm_90", "-rdc=true", "/t/k.cu", "-o", "out.o", "b.cpp", "-c", "/t/a.cu"]
    # replacing only a command-line input leaves the options file alone
    assert cmd.with_inputs_replaced({3: "/t/a.cu"}) == ["-arch=sm_90", "--options-file=opts.txt", "-c", "/t/a.cu"]


def test_nested_and_comma_options_files(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.txt").write_text("-c -optf sub/n.txt k.cu")
    (tmp_path / "sub" / "n.txt").write_text("-DN=1 n.cu")  # nested paths are relative to the cwd
    (tmp_path / "b.txt").write_text("-o o.o")
    argv = ["-optf", "a.txt,b.txt"]
    cmd = parse(argv, cwd=str(tmp_path))
    assert [p for _, p in cmd.inputs] == ["n.cu", "k.cu"]
    assert cmd.output_file() == "o.o" and cmd.values("--define-macro") == ["N=1"]
    assert [f.path for f in cmd.options_files] == ["a.txt", "sub/n.txt", "b.txt"]
    idx = dict((p, i) for i, p in cmd.inputs)
    # k.cu lives in a.txt: a.txt (and its sibling b.txt) are inlined, the nested file stays
    assert cmd.with_inputs_replaced({idx["k.cu"]: "K.cu"}) == [
        "-c", "-optf", "sub/n.txt", "K.cu", "-o", "o.o"]
    # n.cu lives in sub/n.txt, read by a.txt: both levels are inlined
    assert cmd.with_inputs_replaced({idx["n.cu"]: "N.cu"}) == ["-c", "-DN=1", "N.cu", "k.cu", "-o", "o.o"]
    assert cmd.with_inputs_replaced({}) == argv


def test_options_file_replacement_reparses_to_the_same_command(tmp_path):
    (tmp_path / "o.txt").write_text("-Xcompiler -fPIC -I inc x.cu -x cu -lcudadevrt y.cpp")
    cmd = parse(["-c", "-optf", "o.txt", "z.cu"], cwd=str(tmp_path))
    mapping = {i: f"new/{p}" for i, p in cmd.inputs}
    again = parse(cmd.with_inputs_replaced(mapping), cwd=str(tmp_path))
    strip = lambda c: [(a.kind, a.name, a.value) for a in c.args if a.name != "--options-file"]
    assert strip(again) == [(k, n, mapping[i] if k == "input" else v)
                            for (k, n, v), i in zip(strip(cmd), [a.index for a in cmd.args
                                                               if a.name != "--options-file"])]


def test_missing_and_self_including_options_files(tmp_path):
    cmd = parse(["-optf", "nope.txt", "a.cu"], cwd=str(tmp_path))
    (f,) = cmd.options_files
    assert f.error and f.tokens == ()
    assert cmd.inputs == [(2, "a.cu")] and cmd.with_inputs_replaced({}) == ["-optf", "nope.txt", "a.cu"]
    (tmp_path / "loop.txt").write_text("-optf loop.txt b.cu")
    cmd = parse(["-optf", "loop.txt"], cwd=str(tmp_path))
    assert [p for _, p in cmd.inputs] == ["b.cu"]
    assert cmd.options_files[-1].error


def test_options_file_value_does_not_span_the_file_end(tmp_path):
    (tmp_path / "o.txt").write_text("-c a.cu -o")
    cmd = parse(["-optf", "o.txt", "x.o"], cwd=str(tmp_path))
    assert [p for _, p in cmd.inputs] == ["a.cu", "x.o"]  # nvcc: "argument expected after '-o'"
    assert cmd.output_file() is None


# ---- dependency files ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv, files, stdout",
    [
        (["-M", "a.cu"], [], True),
        (["-MM", "a.cu"], [], True),
        (["-M", "a.cu", "-o", "x.d"], ["x.d"], False),  # -o names the dependency file
        (["-M", "-MF", "m.d", "a.cu"], ["m.d"], False),
        (["-M", "-MF", "m.d", "-o", "x.d", "a.cu"], ["x.d"], False),  # -o beats -MF
        (["-M", "-MF", "m.d", "a.cu", "b.cpp"], ["m.d"], False),
        (["-MD", "-c", "a.cu"], ["a.d"], False),
        (["-MMD", "-c", "a.cu"], ["a.d"], False),
        (["-MD", "a.cu"], ["a.d"], False),  # link without -o: named after the input, not a.out
        (["-MD", "-c", "src/k.cu"], ["k.d"], False),  # in the cwd, not beside the input
        (["-MD", "-c", "src/k.v2.cu"], ["k.v2.d"], False),
        (["-MD", "-c", "a.cu", "-o", "out/a.cu.o"], ["out/a.cu.d"], False),
        (["-MD", "-c", "a.cu", "-o", "out/noext"], ["out/noext.d"], False),
        (["-MD", "-c", "a.cu", "-o", "out/.hidden"], ["out/.d"], False),
        (["-MD", "-c", "a.cu", "-o", "x.y/z"], ["x.y/z.d"], False),
        (["-MD", "a.cu", "b.cpp", "-o", "app"], ["app.d"], False),
        (["-MD", "-c", "-odir", "out", "src/k.cu"], ["out/k.d"], False),
        (["-MD", "-c", "-odir", "sub", "-o", "out/z.o", "a.cu"], ["out/z.d"], False),
        (["-MD", "-MF", "z.d", "-c", "a.cu", "-o", "out/q.o"], ["z.d"], False),
        (["-MD", "-c", "a.cu", "c.c", "d.cc", "e.cxx", "f.ii", "g.i"],
         ["a.d", "c.d", "d.d", "e.d", "f.d", "g.d"], False),
        (["-MD", "a.cu", "h.o", "l.a"], ["a.d"], False),
        (["-MD", "-x", "cu", "-c", "b.cpp"], ["b.d"], False),
        (["-MD", "-fatbin", "p.ptx"], [], False),
        (["-MD", "-M", "-MF", "m.d", "a.cu"], ["m.d"], False),
        (["-MD", "-E", "a.cu"], [], False),  # an nvcc error
        (["-MF", "m.d", "-c", "a.cu"], [], False),  # an nvcc error: -MF needs -M/-MM/-MD/-MMD
        (["-c", "a.cu"], [], False),
        (["--version", "-MD", "a.cu"], [], False),
    ],
)
def test_dependency_outputs(argv, files, stdout):
    cmd = parse(argv)
    assert cmd.dependency_outputs() == files
    assert cmd.dependencies_on_stdout() is stdout


# ---- against the real nvcc --------------------------------------------------------------------------

KERNEL = "__global__ void k(int *p) { p[0] = 1; }\nint main() { return 0; }\n"


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


@pytest.mark.nvcc
@nvcc_on_path
@pytest.mark.parametrize(
    "argv",
    [
        ["-MD", "-c", "a.cu"],
        ["-MMD", "-c", "src/k.cu"],
        ["-MD", "-c", "a.cu", "-o", "out/a.cu.o"],
        ["-MD", "-c", "a.cu", "-o", "out/noext"],
        ["-MD", "-c", "-odir", "out", "src/k.cu"],
        ["-MD", "-c", "a.cu", "b.cpp"],
        ["-MD", "-MF", "z.d", "-c", "a.cu", "-o", "out/q.o"],
        ["-MD", "-dc", "a.cu"],
        ["-M", "-o", "out/m.d", "a.cu"],
    ],
)
def test_dependency_outputs_match_real_nvcc(tmp_path, argv):
    (tmp_path / "src").mkdir()
    (tmp_path / "out").mkdir()
    for name in ("a.cu", "src/k.cu"):
        (tmp_path / name).write_text(KERNEL)
    (tmp_path / "b.cpp").write_text("int f() { return 1; }\n")
    before = _tree(tmp_path)
    r = subprocess.run(["nvcc", "-arch=sm_90", *argv], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    written = {p for p in _tree(tmp_path) - before if p.endswith(".d")}
    assert written == {os.path.normpath(p) for p in parse(argv).dependency_outputs()}


@pytest.mark.nvcc
@nvcc_on_path
def test_dependencies_go_to_stdout_with_real_nvcc(tmp_path):
    (tmp_path / "a.cu").write_text(KERNEL)
    argv = ["-M", "a.cu"]
    assert parse(argv).dependencies_on_stdout()
    r = subprocess.run(["nvcc", "-arch=sm_90", *argv], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("a.o : a.cu")
    assert _tree(tmp_path) == {"a.cu"}


@pytest.mark.nvcc
@nvcc_on_path
def test_option_table_matches_nvcc_help():
    """Every option `nvcc --help` lists is in the table with the same short name, and takes a
    value exactly when the help shows one (except the two whose help omits it)."""
    text = subprocess.run(["nvcc", "--help"], capture_output=True, text=True, check=True).stdout
    listed = {}
    for line in text.splitlines():
        m = re.match(r"^(--\S+)(?:\s+(\S.*?))?\s{2,}(?:\((-\S+)\)|--\S+)\s*$", line)
        if m:
            listed[m.group(1)] = (m.group(3), m.group(2) is not None)
    assert len(listed) > 100
    table = {l: (s, v) for l, s, v in nv._OPTIONS}
    value_without_help_arg = {"--dependency-output", "--qpp-config"}
    for long, (short, takes) in listed.items():
        assert long in table, long
        assert table[long][0] == short, long
        assert table[long][1] == (takes or long in value_without_help_arg), long


@pytest.mark.nvcc
@nvcc_on_path
def test_glued_values_match_nvcc(tmp_path):
    """nvcc accepts a glued value (-optvalue) only for -l -D -U -I -L -O -t, as the model does."""
    (tmp_path / "a.cu").write_text(KERNEL)
    for long, short, takes in nv._OPTIONS:
        if not takes or short is None:
            continue
        r = subprocess.run(["nvcc", "-dryrun", "-M", "a.cu", short + "zzz9"], cwd=tmp_path,
                           capture_output=True, text=True)
        nvcc_unknown = "Unknown option" in r.stderr
        assert nvcc_unknown == (parse([short + "zzz9"]).args[0].kind == "unknown"), short
        # -ldir..., -time..., -target-dir..., -Ofc... are -l/-t/-O with a glued value
        assert nvcc_unknown == (not short.startswith(nv.GLUED_VALUE_SHORT)), short


@pytest.mark.nvcc
@nvcc_on_path
@pytest.mark.parametrize(
    "argv",
    [
        ["-c", "a.cu", "b.cpp"],
        ["-x", "cu", "-c", "b.cpp"],
        ["-c", "b.cpp", "-x", "cu", "c.cpp"],
        ["-x", "cu", "-c", "b.cpp", "-x", "c++", "c.cpp"],
        ["-x", "c++", "-c", "a.cu"],
        ["-x", "cu", "-c", "c.o"],
        ["-dlink", "a.cu"],
        ["-lib", "a.cu", "-o", "libx.a"],
        ["-ptx", "a.cu"],
        ["-o", "a.cu", "-c", "sub/a.cu"],
        ["-Xcompiler", "-fPIC", "-I", "inc", "-c", "a.cu", "sub/a.cu"],
        ["-dc", "a.cu", "b.cpp", "-lcudadevrt"],
    ],
)
def test_cuda_inputs_match_nvcc_dryrun(tmp_path, argv):
    """The inputs nvcc runs through its CUDA front end (per -dryrun) are cuda_inputs()."""
    (tmp_path / "sub").mkdir()
    for name in ("a.cu", "sub/a.cu"):
        (tmp_path / name).write_text(KERNEL)
    for name in ("b.cpp", "c.cpp", "c.o"):
        (tmp_path / name).write_text("int f() { return 1; }\n")
    r = subprocess.run(["nvcc", "-dryrun", "-arch=sm_90", *argv], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    seen = set(re.findall(r'--orig_src_file_name "([^"]*)"', r.stderr + r.stdout))
    assert seen == {p for _, p in parse(argv).cuda_inputs()}
