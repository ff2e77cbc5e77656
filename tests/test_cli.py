"""pdcc as an nvcc wrapper: argument pass-through, queries, temporaries, outputs, exit status.

Most tests run pdcc against a stand-in nvcc that records what it was given, so they need no CUDA;
the tests marked nvcc run the real compiler.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import run_pdcc

FAKE_NVCC = textwrap.dedent("""\
    #!{python}
    import json, os, sys
    record = {{"argv": sys.argv[1:], "inputs": {{}}}}
    for arg in sys.argv[1:]:
        if arg.endswith(".cu") and os.path.exists(arg):
            record["inputs"][arg] = open(arg).read()
    with open(os.environ["FAKE_NVCC_LOG"], "a") as log:
        log.write(json.dumps(record) + "\\n")
    if "--version" in sys.argv:
        sys.stdout.write("fake nvcc version\\n")
    sys.exit(int(os.environ.get("FAKE_NVCC_EXIT", "0")))
    """)

ANNOTATED = textwrap.dedent("""\
    #include "helper.cuh"
    __global__ void child(int* x, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) x[i] = HELPER_VALUE;
    }
    __global__ void parent(int* x, const int* len) {
      int n = len[threadIdx.x];
    #pragma dp threshold(32)
      child<<<(n + 31) / 32, 32>>>(x, n);
    }
    """)


@pytest.fixture
def project(tmp_path: Path):
    """A source tree with an annotated file, a header it includes with quotes, and a plain file."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "kernels.cu").write_text(ANNOTATED)
    (src / "helper.cuh").write_text("#define HELPER_VALUE 7\n")
    (src / "plain.cu").write_text("__global__ void k(int* x) { x[0] = 1; }\n")
    fake = tmp_path / "bin" / "nvcc"
    fake.parent.mkdir()
    fake.write_text(FAKE_NVCC.format(python=sys.executable))
    fake.chmod(0o755)
    return tmp_path


def pdcc(*args: str, cwd: Path, env: dict | None = None, nvcc: Path | None = None) -> subprocess.CompletedProcess:
    environment = dict(env or {})
    if nvcc is not None:
        environment.update(PDCC_NVCC=str(nvcc), FAKE_NVCC_LOG=str(cwd / "nvcc.log"))
    return run_pdcc(*args, cwd=cwd, env=environment)


def nvcc_calls(project: Path) -> list[dict]:
    log = project / "nvcc.log"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def test_query_goes_to_nvcc_untouched_and_pdcc_prints_nothing(project: Path):
    done = pdcc("--version", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 0
    assert done.stdout == "fake nvcc version\n"
    assert done.stderr == ""
    assert nvcc_calls(project) == [{"argv": ["--version"], "inputs": {}}]


def test_dryrun_with_annotated_input_is_not_transformed(project: Path):
    done = pdcc("--dryrun", "-c", "src/kernels.cu", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 0 and done.stderr == ""
    assert nvcc_calls(project)[0]["argv"] == ["--dryrun", "-c", "src/kernels.cu"]


def test_file_without_pragmas_passes_through_unchanged(project: Path):
    done = pdcc("-arch=sm_90", "-c", "src/plain.cu", "-o", "plain.o", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 0, done.stderr
    assert nvcc_calls(project)[0]["argv"] == ["-arch=sm_90", "-c", "src/plain.cu", "-o", "plain.o"]


def test_transformed_input_replaced_every_other_argument_kept_in_order(project: Path):
    args = ["-arch=sm_90", "-O3", "-DX=1", "-c", "src/kernels.cu", "-o", "k.o", "-Xcompiler", "-fPIC"]
    done = pdcc(*args, "-q", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 0, done.stderr
    argv = nvcc_calls(project)[0]["argv"]
    assert argv[0] == f"-I{project / 'src'}"       # quoted includes resolve as beside the original
    assert argv[-1] == "-rdc=true"                   # device launches need relocatable device code
    middle = argv[1:-1]
    temporary = middle[4]
    assert middle[:4] + middle[5:] == ["-arch=sm_90", "-O3", "-DX=1", "-c", "-o", "k.o", "-Xcompiler", "-fPIC"]
    assert temporary.endswith("/kernels.cu") and temporary != "src/kernels.cu"
    text = nvcc_calls(project)[0]["inputs"][temporary]
    assert text.startswith('#line 1 "src/kernels.cu"\n')
    assert "child__pdcc_serial" in text
    assert not Path(temporary).exists(), "the temporary copy is removed after nvcc ran"


def test_launcher_style_runs_the_named_nvcc(project: Path):
    env = {"FAKE_NVCC_LOG": str(project / "nvcc.log"), "PDCC_NVCC": "/nonexistent/nvcc"}
    done = pdcc(str(project / "bin/nvcc"), "-c", "src/plain.cu", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert nvcc_calls(project)[0]["argv"] == ["-c", "src/plain.cu"]


def test_rdc_and_cudadevrt_added_when_linking_and_not_when_present(project: Path):
    pdcc("-arch=sm_90", "src/kernels.cu", "-o", "app", "-q", cwd=project, nvcc=project / "bin/nvcc")
    assert nvcc_calls(project)[-1]["argv"][-2:] == ["-rdc=true", "-lcudadevrt"]
    pdcc("-dc", "src/kernels.cu", "-q", cwd=project, nvcc=project / "bin/nvcc")
    assert "-rdc=true" not in nvcc_calls(project)[-1]["argv"]
    done = pdcc("-rdc=true", "src/kernels.cu", "-lcudadevrt", "-o", "app", cwd=project, nvcc=project / "bin/nvcc")
    assert nvcc_calls(project)[-1]["argv"][-3:] == ["-lcudadevrt", "-o", "app"]  # nothing appended
    assert nvcc_calls(project)[-1]["argv"].count("-lcudadevrt") == 1
    assert "PDCC700" not in done.stderr


def test_multiple_inputs_each_transformed(project: Path):
    (project / "src" / "second.cu").write_text(ANNOTATED.replace("parent", "parent2").replace("child", "child2"))
    done = pdcc("-c", "src/kernels.cu", "src/second.cu", "src/plain.cu", "-q", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 0, done.stderr
    argv = nvcc_calls(project)[0]["argv"]
    inputs = [a for a in argv if a.endswith(".cu")]
    assert inputs[2] == "src/plain.cu"
    assert inputs[0].endswith("/kernels.cu") and inputs[1].endswith("/second.cu") and "src/" not in inputs[0]


def test_exit_status_is_nvccs(project: Path):
    done = pdcc("-c", "src/kernels.cu", "-q", cwd=project, nvcc=project / "bin/nvcc", env={"FAKE_NVCC_EXIT": "3"})
    assert done.returncode == 3


def test_missing_nvcc_is_an_error(project: Path):
    done = pdcc("-c", "src/kernels.cu", cwd=project, env={"PDCC_NVCC": "/nonexistent/nvcc"})
    assert done.returncode == 1
    assert "error[PDCC302]" in done.stderr and "PDCC_NVCC" in done.stderr


def test_misspelled_clause_fails_with_location_suggestion_and_no_nvcc_run(project: Path):
    source = project / "src" / "kernels.cu"
    source.write_text(ANNOTATED.replace("threshold(32)", "treshold(32)"))
    (project / "k.o").write_text("old object")
    done = pdcc("-c", "src/kernels.cu", "-o", "k.o", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 1
    assert "src/kernels.cu:8:12: error[PDCC101]: unknown clause 'treshold' in '#pragma dp'; " \
           "did you mean 'threshold'?" in done.stderr
    assert "#pragma dp treshold(32)" in done.stderr and "^~~~~~~~" in done.stderr
    assert nvcc_calls(project) == []
    assert (project / "k.o").read_text() == "old object"


def test_emit_diff_and_reports(project: Path):
    out = project / "out"
    done = pdcc("-c", "src/kernels.cu", "--emit", str(out), "--diff", "--report", "r.sarif", "--report=r.json",
                cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 0, done.stderr
    assert (out / "kernels.cu").read_text().startswith('#line 1 "src/kernels.cu"')
    assert done.stdout.startswith("--- src/kernels.cu\n+++ src/kernels.cu (pdcc)\n")
    report = json.loads((project / "r.json").read_text())
    assert report["summary"]["applied"] == 1
    assert not (project / "r.sarif").exists(), "the last --report wins, as with nvcc's single-valued options"
    assert "PDCC500" in done.stderr  # the summary table on stderr


def test_emit_never_overwrites_an_input(project: Path):
    done = pdcc("-c", "src/kernels.cu", "--emit", "src", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 1
    assert "would overwrite the input" in done.stderr
    assert (project / "src" / "kernels.cu").read_text() == ANNOTATED


def test_auto_applies_to_launches_without_pragmas(project: Path):
    (project / "src" / "bare.cu").write_text(ANNOTATED.replace("#pragma dp threshold(32)\n", ""))
    done = pdcc("-c", "src/bare.cu", "--auto=threshold(16)", "--report", "r.json", cwd=project,
                nvcc=project / "bin/nvcc")
    assert done.returncode == 0, done.stderr
    remark = json.loads((project / "r.json").read_text())["remarks"][0]
    assert remark["ruleId"] == "PDCC500" and remark["args"]["default"] == "16"


def test_bad_pdcc_option(project: Path):
    done = pdcc("-c", "src/kernels.cu", "--report", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 2 and "error[PDCC303]: --report needs a value" in done.stderr


def test_help_lists_pdcc_options(project: Path):
    done = pdcc("--help", cwd=project)
    for option in ("--emit DIR", "--diff", "--report FILE", "--auto", "-q"):
        assert option in done.stdout


@pytest.mark.nvcc
def test_real_nvcc_object_dependencies_and_quoted_include(project: Path):
    build = project / "build"
    build.mkdir()
    done = pdcc("-arch=sm_90", "-c", "../src/kernels.cu", "-o", "k.o", "-MD", "-MF", "k.d", "-q", cwd=build)
    assert done.returncode == 0, done.stderr
    assert (build / "k.o").stat().st_size > 0
    dependencies = (build / "k.d").read_text()
    assert dependencies.startswith("k.o : ../src/kernels.cu")
    assert "helper.cuh" in dependencies and "pdcc-" not in dependencies
    assert dependencies.count("kernels.cu") == 1 and not dependencies.rstrip().endswith("\\")


def test_a_prerequisite_named_twice_in_a_dependency_rule_is_kept_once():
    from pragmadp.cli import _restore_paths
    text = ("k.o : /tmp/pdcc-1/0/k.cu \\\n    /usr/include/a.h \\\n    src/k.cu\n\n"
            "/usr/include/a.h:\n")
    assert _restore_paths(text, {"/tmp/pdcc-1/0/k.cu": "src/k.cu"}) == (
        "k.o : src/k.cu \\\n    /usr/include/a.h\n\n/usr/include/a.h:\n")


@pytest.mark.nvcc
def test_nvcc_error_after_a_transformed_site_names_the_users_line(project: Path):
    broken = ANNOTATED + "\n__global__ void later(int* x) {\n  x[0] = undeclared_name;\n}\n"
    (project / "src" / "kernels.cu").write_text(broken)
    line = broken.splitlines().index("  x[0] = undeclared_name;") + 1
    done = pdcc("-arch=sm_90", "-c", "src/kernels.cu", "-o", "k.o", "-q", cwd=project)
    assert done.returncode != 0
    assert f"src/kernels.cu({line}): error: identifier \"undeclared_name\" is undefined" in done.stderr


def test_verbose_output_is_nvccs_alone(project: Path):
    done = pdcc("-v", "-c", "src/kernels.cu", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 0 and done.stderr == "" and done.stdout == ""


def test_emitted_aggregated_source_carries_the_runtime_header(project: Path):
    source = project / "src" / "kernels.cu"
    source.write_text(ANNOTATED.replace("threshold(32)", "consldt(block)"))
    done = pdcc("-c", "src/kernels.cu", "--emit", "out", "-q", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 0, done.stderr
    assert (project / "out" / "pdcc_rt.cuh").exists()
    again = pdcc("-c", "out/kernels.cu", "-q", cwd=project, nvcc=project / "bin/nvcc")
    assert again.returncode == 0 and any("runtime" in a for a in nvcc_calls(project)[-1]["argv"])
