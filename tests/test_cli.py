"""pdcc as an nvcc wrapper: argument pass-through, queries, temporaries, outputs, exit status.

Most tests run pdcc against a stand-in nvcc that records what it was given, so they need no CUDA;
the tests marked nvcc run the real compiler.
"""

from __future__ import annotations

import errno
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ROOT, run_pdcc
from pragmadp import cli

FAKE_NVCC = textwrap.dedent("""\
    #!{python}
    import json, os, signal, sys, time
    record = {{"argv": sys.argv[1:], "inputs": {{}}}}
    for arg in sys.argv[1:]:
        if arg.endswith(".cu") and os.path.exists(arg):
            record["inputs"][arg] = open(arg).read()
            if "FAKE_NVCC_TALK" in os.environ:  # nvcc's own messages name the file it was given
                print(f'1 error detected in the compilation of "{{arg}}".', file=sys.stderr)
                print(f"nvcc info: compiled {{arg}}")
    with open(os.environ["FAKE_NVCC_LOG"], "a") as log:
        log.write(json.dumps(record) + "\\n")
    if "--version" in sys.argv:
        sys.stdout.write("fake nvcc version\\n")
    time.sleep(float(os.environ.get("FAKE_NVCC_SLEEP", "0")))
    if "FAKE_NVCC_SIGNAL" in os.environ:
        os.kill(os.getpid(), int(os.environ["FAKE_NVCC_SIGNAL"]))
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


# ---- pdcc never shows a traceback and never loses the user's files ---------------------------------------------

INJECT = textwrap.dedent("""\
    import sys
    import {module} as target

    def injected(*args, **kwargs):
        raise TypeError("injected failure")

    target.{name} = injected
    from pragmadp.cli import main
    raise SystemExit(main(sys.argv[1:]))
    """)


def pdcc_with_failure(project: Path, where: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """pdcc as a process whose function `where` (module.name) raises TypeError, as a bug in pdcc would."""
    module, name = where.rsplit(".", 1)
    driver = project / "inject.py"
    driver.write_text(INJECT.format(module=module, name=name))
    environment = dict(os.environ, PYTHONPATH=str(ROOT), PDCC_NVCC=str(project / "bin/nvcc"),
                       FAKE_NVCC_LOG=str(project / "nvcc.log"), TMPDIR=str(project / "tmp"), **(env or {}))
    (project / "tmp").mkdir(exist_ok=True)
    return subprocess.run([sys.executable, str(driver), *args], cwd=project, capture_output=True, text=True,
                          env=environment)


def test_an_internal_error_is_located_writes_a_reproducer_and_compiles_nothing(project: Path):
    (project / "k.o").write_text("old object")
    done = pdcc_with_failure(project, "pragmadp.analysis.thread_count.analyse", "-c", "src/kernels.cu", "-o", "k.o")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert lines[0] == ("src/kernels.cu:9:3: error[PDCC900]: internal error in pass threshold at this site: "
                        "TypeError: injected failure")
    assert lines[1] == "    child<<<(n + 31) / 32, 32>>>(x, n);"
    hint = next(line for line in lines if "= help:" in line)
    reproducer = Path(hint.split("'")[1])
    assert reproducer.parent == project / "tmp" and reproducer.name.startswith("pdcc-crash-")
    assert (reproducer / "input.cu").read_text() == ANNOTATED
    assert (reproducer / "command.txt").read_text() == f"cd {project}\npdcc -c src/kernels.cu -o k.o\n"
    assert "TypeError: injected failure" in (reproducer / "traceback.txt").read_text()
    assert nvcc_calls(project) == [] and (project / "k.o").read_text() == "old object"


def test_the_known_crash_shape_gives_an_internal_error_not_a_traceback(project: Path):
    """issue 9 item 6: an aggregating parent with an unnamed function-pointer parameter crashed in aggregate.py.
    The failure is injected so that this stays a test of the reporting once that crash is fixed."""
    source = ANNOTATED.replace("parent(int* x, const int* len)", "parent(int* x, const int* len, void (*)(int))")
    (project / "src" / "kernels.cu").write_text(source.replace("threshold(32)", "consldt(block)"))
    done = pdcc_with_failure(project, "pragmadp.transforms.aggregate.plan", "-c", "src/kernels.cu", "--report",
                             "r.json")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert re.match(r"src/kernels\.cu:9:3: error\[PDCC900\]: internal error in pass \w+ at this site: "
                    r"TypeError: injected failure\n", done.stderr)
    assert nvcc_calls(project) == []
    report = json.loads((project / "r.json").read_text())
    assert [r["ruleId"] for r in report["remarks"]] == ["PDCC900"]
    args = report["remarks"][0]["args"]  # the error's arguments, the reproducer's directory among them
    assert args["cause"] == "TypeError: injected failure" and args["files"] == "input.cu, command.txt, traceback.txt"
    assert Path(args["reproducer"]).name.startswith("pdcc-crash-") and args["reproducer"] in done.stderr


def test_an_internal_error_outside_the_passes_is_reported_too(project: Path):
    done = pdcc_with_failure(project, "pragmadp.nvcc.parse_nvcc_args", "-c", "src/kernels.cu", "-q")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("pdcc: error[PDCC900]: internal error in pdcc: TypeError: injected failure\n"
                                  "  = help: this is a bug in pdcc, not in your code; please report it with the "
                                  f"reproducer in '{project / 'tmp'}/pdcc-crash-")
    assert nvcc_calls(project) == []


def test_ctrl_c_exits_130_quietly_and_removes_the_temporaries(project: Path):
    temporary = project / "tmp"
    temporary.mkdir()
    environment = dict(os.environ, PYTHONPATH=str(ROOT), PDCC_NVCC=str(project / "bin/nvcc"), TMPDIR=str(temporary),
                       FAKE_NVCC_LOG=str(project / "nvcc.log"), FAKE_NVCC_SLEEP="30")
    running = subprocess.Popen([sys.executable, "-m", "pragmadp", "-c", "src/kernels.cu", "-o", "k.o"], cwd=project,
                               env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not (project / "nvcc.log").exists() and time.monotonic() < deadline:  # nvcc is running
        time.sleep(0.05)
    running.send_signal(signal.SIGINT)
    stdout, stderr = running.communicate(timeout=30)
    assert running.returncode == 130
    assert stdout == "" and stderr.startswith("src/kernels.cu:1:1: remark: added -rdc=true")  # said before nvcc ran
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    assert list(temporary.iterdir()) == []
    assert (project / "src" / "kernels.cu").read_text() == ANNOTATED and not (project / "k.o").exists()


def test_nvcc_killed_by_a_signal(project: Path):
    done = pdcc("-c", "src/kernels.cu", "-q", cwd=project, nvcc=project / "bin/nvcc",
                env={"FAKE_NVCC_SIGNAL": str(int(signal.SIGKILL))})
    assert done.returncode == 128 + 9
    assert done.stderr == "pdcc: error[PDCC305]: nvcc was killed by signal SIGKILL\n"


def test_nvcc_messages_name_the_users_file_not_the_temporary_copy(project: Path):
    done = pdcc("-c", "src/kernels.cu", "-q", cwd=project, nvcc=project / "bin/nvcc", env={"FAKE_NVCC_TALK": "1"})
    assert done.returncode == 0
    assert done.stderr == '1 error detected in the compilation of "src/kernels.cu".\n'
    assert done.stdout == "nvcc info: compiled src/kernels.cu\n"


@pytest.mark.nvcc
def test_real_nvcc_error_summary_names_the_users_file(project: Path):
    (project / "src" / "helper.cuh").write_text("#define HELPER_VALUE 7\nint broken_in_header = ;\n")
    done = pdcc("-arch=sm_90", "-c", "src/kernels.cu", "-o", "k.o", "-q", cwd=project)
    assert done.returncode != 0
    assert 'error detected in the compilation of "src/kernels.cu"' in done.stderr
    assert "pdcc-" not in done.stderr


@pytest.mark.parametrize("link", [os.link, os.symlink])
def test_emit_never_overwrites_an_input_through_a_link(project: Path, link):
    (project / "out").mkdir()
    link(project / "src" / "kernels.cu", project / "out" / "kernels.cu")
    done = pdcc("-c", "src/kernels.cu", "--emit", "out", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 1
    assert done.stderr.startswith("src/kernels.cu:1:1: error[PDCC304]: --emit out would overwrite the input "
                                  "'src/kernels.cu'; choose another directory\n")
    assert (project / "src" / "kernels.cu").read_text() == ANNOTATED and nvcc_calls(project) == []


def test_emit_replaces_an_older_output_without_writing_through_its_links(project: Path):
    (project / "out").mkdir()
    (project / "kept.cu").write_text("a file the old output was hard-linked to\n")
    os.link(project / "kept.cu", project / "out" / "kernels.cu")
    done = pdcc("-c", "src/kernels.cu", "--emit", "out", "-q", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 0, done.stderr
    assert "child__pdcc_serial" in (project / "out" / "kernels.cu").read_text()
    assert (project / "kept.cu").read_text() == "a file the old output was hard-linked to\n"


@pytest.mark.parametrize("report, reason", [
    ("missing/r.json", "directory 'missing' does not exist"),
    ("src.json", "'src.json' is a directory"),
])
def test_a_report_that_cannot_be_written_fails_before_compiling(project: Path, report: str, reason: str):
    (project / "src.json").mkdir()
    done = pdcc("-c", "src/kernels.cu", "--report", report, cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 1
    assert done.stderr.startswith(f"pdcc: error[PDCC304]: cannot write report '{report}': {reason}")
    assert nvcc_calls(project) == []


@pytest.mark.parametrize("report", ["r.txt", "src", "review.mdx"])
def test_an_unknown_report_extension_is_a_bad_option_found_before_compiling(project: Path, report: str):
    """issue 12 item 8: it was reported after a full compile, with exit status 0."""
    done = pdcc("-c", "src/kernels.cu", "--report", report, cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 2
    assert done.stderr.startswith(f"pdcc: error[PDCC303]: --report {report}: no report format has this extension\n"
                                  "  = help: use one of .sarif.json, .sarif, .json, ")
    assert nvcc_calls(project) == [] and not (project / report).is_file()
    launcher = pdcc("--report", report, str(project / "bin/nvcc"), "-c", "src/kernels.cu", cwd=project,
                    env={"FAKE_NVCC_LOG": str(project / "nvcc.log")})
    assert launcher.returncode == 2 and "error[PDCC303]" in launcher.stderr and nvcc_calls(project) == []


def test_a_report_that_fails_after_compiling_is_an_error(project: Path, monkeypatch, capsys):
    def full_disk(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    in_project(project, monkeypatch)
    monkeypatch.setattr(cli, "write_report", full_disk)
    assert cli.main(["-c", "src/kernels.cu", "--report", "r.json", "-q"]) == 1
    assert capsys.readouterr().err == "pdcc: error[PDCC304]: cannot write report 'r.json': No space left on device\n"


def in_project(project: Path, monkeypatch) -> None:
    """cli.main in this process, in the project, with the stand-in nvcc."""
    monkeypatch.chdir(project)
    monkeypatch.setenv("PDCC_NVCC", str(project / "bin/nvcc"))
    monkeypatch.setenv("FAKE_NVCC_LOG", str(project / "nvcc.log"))


def test_no_writable_temporary_directory(project: Path, monkeypatch, capsys):
    def no_directory():
        raise FileNotFoundError(errno.ENOENT, "No usable temporary directory found in ['/nowhere']")

    in_project(project, monkeypatch)
    monkeypatch.setattr(tempfile, "gettempdir", no_directory)
    assert cli.main(["-c", "src/kernels.cu", "-q"]) == 1
    assert capsys.readouterr().err == (
        "src/kernels.cu:1:1: error[PDCC304]: no writable temporary directory for pdcc's copy of 'src/kernels.cu': "
        "No usable temporary directory found in ['/nowhere']; set TMPDIR to a writable directory\n")
    assert nvcc_calls(project) == []


def test_a_full_temporary_directory(project: Path, monkeypatch, capsys):
    def full_disk(path: Path, _data: bytes):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    in_project(project, monkeypatch)
    temporary = project / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    monkeypatch.setattr(Path, "write_bytes", full_disk)
    assert cli.main(["-c", "src/kernels.cu", "-q"]) == 1
    error = capsys.readouterr().err
    assert re.fullmatch(r"src/kernels\.cu:1:1: error\[PDCC304\]: cannot write pdcc's temporary copy of "
                        r"'src/kernels\.cu' in '.*/tmp/pdcc-\w+/\w+': No space left on device; free some space or set "
                        r"TMPDIR to another directory\n", error), error
    assert list(temporary.iterdir()) == [] and nvcc_calls(project) == []
    assert (project / "src" / "kernels.cu").read_text() == ANNOTATED


def test_diff_of_a_non_ascii_source_to_an_ascii_stdout(project: Path):
    (project / "src" / "kernels.cu").write_text("// Größe: ½ µs\n" + ANNOTATED, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pragmadp", "-c", "src/kernels.cu", "--diff", "-q"], cwd=project,
                          capture_output=True, env=dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="ascii",
                                                        LANG="C", LC_ALL="C", PDCC_NVCC=str(project / "bin/nvcc"),
                                                        FAKE_NVCC_LOG=str(project / "nvcc.log")))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(b"--- src/kernels.cu\n+++ src/kernels.cu (pdcc)\n@@ -1,")
    assert "// Größe: ½ µs\n".encode() in done.stdout and b"child__pdcc_serial" in done.stdout
