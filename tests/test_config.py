"""pdcc's settings without its command line (issue 12 item 4): PDCC_* variables and pdcc.toml / [tool.pdcc],
and pdcc options in launcher style, so a build system that cannot put pdcc options on pdcc's command line (CMake's
launcher, try_compile) still configures it. The command line beats the environment, which beats the file."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from pragmadp import cli, config
from test_cli import ANNOTATED, FAKE_NVCC, nvcc_calls, pdcc


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """project/ with pdcc.toml at the top, the sources in src/, a build folder two levels down."""
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "kernels.cu").write_text(ANNOTATED)
    (root / "src" / "helper.cuh").write_text("#define HELPER_VALUE 7\n")
    (root / "src" / "bare.cu").write_text(ANNOTATED.replace("#pragma dp threshold(32)\n", ""))
    (root / "src" / "plain.cu").write_text("__global__ void k(int* x) { x[0] = 1; }\n")
    (root / "build" / "sub").mkdir(parents=True)
    fake = tmp_path / "bin" / "nvcc"
    fake.parent.mkdir()
    fake.write_text(FAKE_NVCC.format(python=sys.executable))
    fake.chmod(0o755)
    return root


def sites(report: Path) -> list[dict]:
    """The threshold remarks of a JSON report (PDCC700 is there whenever the file launches from the device)."""
    return [r for r in json.loads(report.read_text())["remarks"] if r["ruleId"] == "PDCC500"]


def run(tree: Path, *args: str, cwd: Path | None = None, env: dict | None = None):
    """pdcc with the stand-in nvcc named by PDCC_NVCC unless `env` says otherwise; no PDCC_CONFIG set."""
    environment = {"PDCC_NVCC": str(tree.parent / "bin" / "nvcc"), "FAKE_NVCC_LOG": str(tree / "nvcc.log"),
                   **(env or {})}
    return pdcc(*args, cwd=cwd or tree, env={k: v for k, v in environment.items() if v is not None})


def clear_pdcc_environment(monkeypatch) -> None:
    for name in [n for n in os.environ if n.startswith("PDCC_")]:
        monkeypatch.delenv(name)


def test_a_pdcc_toml_in_a_parent_folder_configures_the_build(tree: Path):
    (tree / "pdcc.toml").write_text(textwrap.dedent("""\
        auto = "threshold(16)"
        report-dir = "reports"
        quiet = true
        [remarks]
        pass = "threshold"
        """))
    done = run(tree, "-c", "../../src/bare.cu", "-o", "bare.o", cwd=tree / "build" / "sub")
    assert done.returncode == 0, done.stderr
    assert "../../src/bare.cu:8:3: remark: launch of 'child' runs serially in the parent thread below " \
           "PDCC_THRESHOLD_parent_0 (= 16) child threads [PDCC500]" in done.stderr       # auto and -Rpass=threshold
    assert "pdcc optimization remarks" not in done.stderr                                   # quiet
    assert "PDCC501" not in done.stderr                                                    # an analysis remark
    assert [p.name for p in (tree / "reports").iterdir()][0].startswith("bare.cu-")        # relative to the file
    argv = nvcc_calls(tree)[0]["argv"]
    assert not any(a.startswith(("--auto", "--report", "-Rpass")) for a in argv)


def test_a_pyproject_with_tool_pdcc_is_read_and_one_without_is_passed_over(tree: Path):
    (tree / "pyproject.toml").write_text('[tool.pdcc]\nauto = true\n')
    (tree / "build" / "pyproject.toml").write_text('[project]\nname = "unrelated"\n')
    done = run(tree, "-c", "../../src/bare.cu", "--report", "r.json", "-q", cwd=tree / "build" / "sub")
    assert done.returncode == 0, done.stderr
    remarks = json.loads((tree / "build" / "sub" / "r.json").read_text())["remarks"]
    assert remarks[0]["ruleId"] == "PDCC500" and remarks[0]["args"]["default"] == "128"


def test_the_command_line_beats_the_environment_which_beats_the_file(tree: Path):
    (tree / "pdcc.toml").write_text('auto = "threshold(16)"\nreport-dir = "from-file"\n')
    done = run(tree, "-c", "src/bare.cu", "--report", "r.json", "-q", env={"PDCC_AUTO": "threshold(24)"})
    remarks = json.loads((tree / "r.json").read_text())["remarks"]
    assert remarks[0]["args"]["default"] == "24", done.stderr
    done = run(tree, "-c", "src/bare.cu", "--auto=threshold(40)", "--report", "r.json", "-q",
               env={"PDCC_AUTO": "threshold(24)", "PDCC_REPORT_DIR": "from-env"})
    assert json.loads((tree / "r.json").read_text())["remarks"][0]["args"]["default"] == "40", done.stderr
    assert len(list((tree / "from-env").iterdir())) == 1 and len(list((tree / "from-file").iterdir())) == 1
    done = run(tree, "-c", "src/bare.cu", "--report-dir", "from-command-line", "-q",
               env={"PDCC_REPORT_DIR": "from-env"})
    assert (tree / "from-command-line").is_dir(), done.stderr
    off = run(tree, "-c", "src/bare.cu", "--report", "r.json", "-q", env={"PDCC_AUTO": "0"})
    assert sites(tree / "r.json") == [], off.stderr


def test_pdcc_config_names_the_file_or_none(tree: Path):
    (tree / "pdcc.toml").write_text('auto = true\n')
    elsewhere = tree.parent / "other.toml"
    elsewhere.write_text('auto = "threshold(8)"\n')
    run(tree, "-c", "src/bare.cu", "--report", "r.json", "-q", env={"PDCC_CONFIG": str(elsewhere)})
    assert json.loads((tree / "r.json").read_text())["remarks"][0]["args"]["default"] == "8"
    run(tree, "-c", "src/bare.cu", "--report", "r.json", "-q", env={"PDCC_CONFIG": "none"})
    assert sites(tree / "r.json") == []


def test_nvcc_from_the_file_is_relative_to_it_and_the_environment_beats_it(tree: Path):
    (tree / "pdcc.toml").write_text('nvcc = "../bin/nvcc"\n')
    done = run(tree, "-c", "src/plain.cu", env={"PDCC_NVCC": None})
    assert done.returncode == 0, done.stderr
    assert nvcc_calls(tree)[0]["argv"] == ["-c", "src/plain.cu"]
    done = run(tree, "-c", "src/plain.cu", env={"PDCC_NVCC": "/nonexistent/nvcc"})
    assert done.returncode == 1 and "cannot find nvcc '/nonexistent/nvcc' named by PDCC_NVCC" in done.stderr


@pytest.mark.parametrize("text, message", [
    ("autoo = true\n", "pdcc.toml: unknown setting 'autoo'\n  = help: known settings: auto, report-dir, nvcc, "
                       "remarks, werror-missed, quiet"),
    ("quiet = 1\n", "pdcc.toml: 'quiet' must be true or false, not a int"),
    ("[remarks]\npas = 'x'\n", "pdcc.toml: 'remarks.pas' must be one of pass, missed, analysis (a table of regular "
                                "expressions: pass, missed, analysis), not a key 'pas'"),
    ("[remarks]\npass = 3\n", "pdcc.toml: 'remarks.pass' must be a regular expression, not a int"),
    ("remarks = 'x'\n", "pdcc.toml: 'remarks' must be a table of regular expressions: pass, missed, analysis, not a str"),
    ("auto = \n", "cannot read the pdcc configuration"),
    ("[remarks]\nmissed = '('\n", "error[PDCC303]: -Rpass-missed=( is not a regular expression: "),
])
def test_a_bad_file_is_a_pdcc303_and_nothing_is_compiled(tree: Path, text: str, message: str):
    (tree / "pdcc.toml").write_text(text)
    done = run(tree, "-c", "src/kernels.cu")
    assert done.returncode == 2
    assert done.stderr.startswith("pdcc: error[PDCC303]: ") and message in done.stderr, done.stderr
    assert nvcc_calls(tree) == []


@pytest.mark.parametrize("variable, value, message", [
    ("PDCC_QUIET", "maybe", "PDCC_QUIET: 'maybe' is not 1 or 0"),
    ("PDCC_REMARKS", "-Rpass", "PDCC_REMARKS: '-Rpass' is not -Rpass=REGEX"),
    ("PDCC_REMARKS", "--bogus=x", "PDCC_REMARKS: '--bogus=x' is not -Rpass=REGEX"),
])
def test_a_bad_environment_variable_is_a_pdcc303(tree: Path, variable: str, value: str, message: str):
    done = run(tree, "-c", "src/kernels.cu", env={variable: value})
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert nvcc_calls(tree) == []


def test_pdcc_remarks_and_werror_missed_from_the_environment(tree: Path):
    (tree / "src" / "k.cu").write_text(ANNOTATED.replace("threshold(32)", "consldt(block) threads(64)"))
    done = run(tree, "-c", "src/k.cu", "-q", env={"PDCC_REMARKS": "-Rpass-missed=.", "PDCC_WERROR_MISSED": "1"})
    assert done.returncode == 1
    assert "src/k.cu:8:27: remark: clause 'threads' is not supported yet; the launch is left as written for it " \
           "[PDCC600]\n" in done.stderr                                                              # -Rpass-missed
    assert "src/k.cu:8:27: error[PDCC600]: clause 'threads' is not supported yet" in done.stderr   # --Werror-missed
    assert "error[PDCC309]: 1 missed remark(s) with --Werror-missed: nothing was compiled" in done.stderr
    assert nvcc_calls(tree) == []


def test_launcher_style_takes_pdcc_options_before_the_compiler(tree: Path):
    """CMAKE_CUDA_COMPILER_LAUNCHER="pdcc;--report-dir;r;-q" runs `pdcc --report-dir r -q /path/nvcc ARGS`."""
    nvcc = str(tree.parent / "bin" / "nvcc")
    done = run(tree, "--report-dir", "r", "-q", "--auto", nvcc, "-c", "src/bare.cu", "-o", "b.o",
               env={"PDCC_NVCC": "/nonexistent/nvcc"})
    assert done.returncode == 0, done.stderr
    (call,) = nvcc_calls(tree)
    assert call["argv"][0].startswith("-I") and call["argv"][-1] == "-rdc=true"
    assert call["argv"][1] == f"-I{cli.RUNTIME_DIR}" and call["argv"][2] == "-c" and call["argv"][-3:-1] == ["-o", "b.o"]
    assert (tree / "r").is_dir() and len(list((tree / "r").iterdir())) == 1


def test_launcher_style_with_a_compiler_cache_before_nvcc(tree: Path):
    """`pdcc ccache nvcc ARGS`: the cache runs nvcc on pdcc's copy."""
    cache = tree.parent / "bin" / "ccache"
    cache.write_text(f"#!{sys.executable}\nimport os, sys\nopen({str(tree / 'cache.log')!r}, 'a').write("
                     "' '.join(sys.argv[1:2]) + '\\n')\nos.execv(sys.argv[1], sys.argv[1:])\n")
    cache.chmod(0o755)
    done = run(tree, "-q", str(cache), str(tree.parent / "bin" / "nvcc"), "-c", "src/kernels.cu",
               env={"PDCC_NVCC": None})
    assert done.returncode == 0, done.stderr
    # the compile, then the device link of the object (-c without -rdc=true): both through the cache
    assert (tree / "cache.log").read_text() == f"{tree.parent / 'bin' / 'nvcc'}\n" * 2
    assert "child__pdcc_serial" in next(iter(nvcc_calls(tree)[0]["inputs"].values()))


def test_try_compile_in_launcher_style_gets_no_pdcc_option(tree: Path):
    """With the settings in the environment, nvcc never sees a pdcc option (CMake's try_compile put them there)."""
    probe = tree / "probe.cu"
    probe.write_text("__global__ void k() {}\nint main() { return 0; }\n")
    done = run(tree, str(tree.parent / "bin" / "nvcc"), "probe.cu", "-o", "probe",
               env={"PDCC_REPORT_DIR": "r", "PDCC_AUTO": "1", "PDCC_REMARKS": "-Rpass=.*", "PDCC_NVCC": None})
    assert done.returncode == 0, done.stderr
    assert nvcc_calls(tree)[0]["argv"] == ["probe.cu", "-o", "probe"]


def test_layers_in_process(tmp_path: Path, monkeypatch):
    clear_pdcc_environment(monkeypatch)
    (tmp_path / "pdcc.toml").write_text('werror-missed = true\nnvcc = "nvcc-12"\n[remarks]\nmissed = "meld"\n')
    layers = config.layers(str(tmp_path), {"PDCC_QUIET": "yes"})
    options = cli.parse_options(["-Rpass-missed=threshold", "-c", "k.cu"], layers)
    assert options.werror_missed and options.quiet and options.nvcc == "nvcc-12"
    assert options.nvcc_origin == f"'nvcc' of {tmp_path / 'pdcc.toml'}"
    assert options.remarks["missed"].pattern == "threshold" and options.nvcc_args == ["-c", "k.cu"]
