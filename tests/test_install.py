"""`pip install .` (not editable) gives a working pdcc: the wheel carries everything pdcc reads at run time
(the pragma grammar, the device runtime header), built and installed offline into a fresh virtual environment.

No network: the wheel is built in this environment (`--no-build-isolation`, setuptools and wheel from the test
extras) and installed `--no-index --no-deps`; the fresh environment finds the dependencies (lark, rich, ...) in
this one's site-packages through a `.pth` line, which adds the directory alone (its own `.pth` files, the editable
install of this checkout among them, are not read), so `pragmadp` can only come from the wheel.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT

#: what an sdist of pdcc holds (MANIFEST.in); the build must not need anything else from the checkout
SOURCES = ("pragmadp", "grammar", "setup.py", "setup.cfg", "pyproject.toml", "MANIFEST.in", "README.md")

ANNOTATED = textwrap.dedent("""\
    __global__ void child(int* x, int n) {
      int i = blockIdx.x * blockDim.x + threadIdx.x;
      if (i < n) x[i] = 1;
    }
    __global__ void parent(int* x, const int* len) {
      int n = len[threadIdx.x];
    #pragma dp consldt(block) threshold(32)
      child<<<(n + 31) / 32, 32>>>(x, n);
    }
    """)

FAKE_NVCC = textwrap.dedent("""\
    #!{python}
    import sys
    with open({log!r}, "w") as log:
        for arg in sys.argv[1:]:
            log.write(arg + "\\n")
            if arg.endswith(".cu"):
                log.write(open(arg).read())
    """)


def run(*command: str | Path, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([str(c) for c in command], cwd=cwd, capture_output=True, text=True, env=env)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done


def copy_sources(target: Path) -> Path:
    target.mkdir()
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, target / name)
    return target


def fresh_environment(directory: Path) -> Path:
    """A virtual environment without pdcc whose only other packages are this one's (through a .pth line)."""
    run(sys.executable, "-m", "venv", "--without-pip", directory, cwd=directory.parent)
    python = directory / "bin" / "python"
    purelib = run(python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))", cwd=directory).stdout.strip()
    Path(purelib, "dependencies.pth").write_text("".join(f"{p}\n" for p in site.getsitepackages()))
    return python


@pytest.mark.parametrize("route", ["tree", "sdist"])
def test_a_non_editable_install_gives_a_working_pdcc(tmp_path: Path, route: str):
    sources = copy_sources(tmp_path / "src")
    dist = tmp_path / "dist"
    build_from: Path | str = sources
    if route == "sdist":  # the sdist holds the grammar (MANIFEST.in), and its wheel gets it
        run(sys.executable, "-c", f"from setuptools import build_meta; build_meta.build_sdist({str(dist)!r})",
            cwd=sources)
        (build_from,) = dist.glob("pragmadp-*.tar.gz")
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", dist,
        build_from, cwd=tmp_path)
    (wheel,) = dist.glob("pragmadp-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "pragmadp/grammar/pragma.lark" in names and "pragmadp/runtime/pdcc_rt.cuh" in names
    assert not any(name.startswith("grammar/") for name in names), "no top-level 'grammar' in site-packages"

    python = fresh_environment(tmp_path / "venv")
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-index", "--no-deps", "-q", wheel,
        cwd=tmp_path)
    shutil.rmtree(sources)  # nothing of the sources may be needed any more

    work = tmp_path / "work"
    work.mkdir()
    (work / "k.cu").write_text(ANNOTATED)
    nvcc = work / "nvcc"
    nvcc.write_text(FAKE_NVCC.format(python=sys.executable, log=str(work / "nvcc.log")))
    nvcc.chmod(0o755)
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PDCC_CONFIG")}
    environment.update(PDCC_NVCC=str(nvcc), PDCC_CONFIG="none")
    where = run(python, "-c", "import pragmadp.directives as d; print(d.__file__); print(d.GRAMMAR_PATH)", cwd=work,
                env=environment).stdout.split()
    assert all(path.startswith(str(tmp_path / "venv")) for path in where), where
    done = run(tmp_path / "venv" / "bin" / "pdcc", "-arch=sm_90", "-rdc=true", "-c", "k.cu", "-q", cwd=work,
               env=environment)
    assert done.stderr == ""
    handed = (work / "nvcc.log").read_text()
    assert "child__pdcc_agg_parent_0" in handed and "child__pdcc_serial" in handed
    assert any(line.startswith("-I") and line.endswith("pragmadp/runtime") for line in handed.splitlines())
