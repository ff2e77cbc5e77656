"""pdcc: nvcc with pragma-directed dynamic-parallelism optimisations.

Used exactly like nvcc (`make NVCC=pdcc`, `CMAKE_CUDA_COMPILER=pdcc`) or as a launcher in front of
it (`pdcc nvcc ARGS`, CMake's CMAKE_CUDA_COMPILER_LAUNCHER). pdcc takes its own options out of the
command line, transforms the `.cu` inputs of compile steps that need it into a private temporary
directory, and runs nvcc with every other argument as given, in order. Queries (`--version`,
`--dryrun`, ...) go to nvcc untouched and pdcc prints nothing of its own.
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from pragmadp import __version__, nvcc, pipeline
from pragmadp.report import rules
from pragmadp.report.remarks import Kind, Location, PdccError, Remark
from pragmadp.report.render import write_report
from pragmadp.report.terminal import render_terminal
from pragmadp.transforms.aggregate import RUNTIME_HEADER, RUNTIME_INCLUDE

DEFAULT_AUTO = "threshold(128)"
RUNTIME_DIR = Path(__file__).resolve().parent / "runtime"

HELP = f"""\
usage: pdcc [PDCC OPTIONS] [nvcc] NVCC-ARGUMENTS...

pdcc {__version__}: nvcc with pragma-directed optimisations of dynamic parallelism.
Annotate device-side launches with `#pragma dp threshold(N) ...` and build with pdcc where you used
nvcc; every argument pdcc does not own is passed to nvcc unchanged and in order.

pdcc options (all others are nvcc's; see `nvcc --help`):
  --emit DIR         also write each transformed source to DIR (never over an input file)
  --diff             print a unified diff of each transformed source on standard output
  --report FILE      write a report of every site: FILE.json, FILE.sarif (SARIF 2.1.0) or FILE.md
  --auto[=CLAUSES]   treat every device-side launch without a pragma as if annotated with CLAUSES
                     (default {DEFAULT_AUTO!r}); `--auto=@FILE` reads the clauses from FILE;
                     `#pragma dp off` before a launch opts it out
  -q, --quiet        no summary table on standard error
  --pdcc-help, --help  this text
  --pdcc-version     pdcc's version (`--version` is nvcc's)

Environment: PDCC_NVCC names the nvcc to run (default: nvcc on PATH). Launcher style
`pdcc /path/to/nvcc ARGS` runs that nvcc.

Each `#pragma dp` value becomes a macro named after its site (e.g. PDCC_THRESHOLD_parent_0): change it
with -D without editing the source. pdcc adds -rdc=true (and -lcudadevrt when linking) when the
program launches kernels from the device and the command lacks them.

Exit status: nvcc's when pdcc's part succeeded; 1 when an input has an error pdcc reports (nothing is
compiled then, so no output file is written); 2 for a malformed pdcc option.
"""


@dataclass
class Options:
    emit: str | None = None
    diff: bool = False
    report: str | None = None
    auto: str | None = None
    quiet: bool = False
    help: bool = False
    version: bool = False
    compiler: str = field(default_factory=lambda: os.environ.get("PDCC_NVCC", "nvcc"))
    nvcc_args: list[str] = field(default_factory=list)


class UsageError(Exception):
    pass


def parse_options(argv: list[str]) -> Options:
    """Splits pdcc's own options from nvcc's (launcher style: a leading nvcc path names the compiler)."""
    options = Options()
    rest = list(argv)
    if rest and os.path.basename(rest[0]) in ("nvcc", "nvcc.exe"):
        options.compiler = rest.pop(0)
    index = 0
    while index < len(rest):
        arg = rest[index]
        name, has_value, value = arg.partition("=")
        if name in ("--emit", "--report"):
            if not has_value:
                if index + 1 >= len(rest):
                    raise UsageError(f"{name} needs a value")
                value = rest.pop(index + 1)
            setattr(options, name[2:], value)
        elif name == "--auto":
            options.auto = _auto_clauses(value) if has_value else DEFAULT_AUTO
        elif arg == "--diff":
            options.diff = True
        elif arg in ("-q", "--quiet"):
            options.quiet = True
        elif arg in ("--pdcc-help", "--help"):
            options.help = True
        elif arg == "--pdcc-version":
            options.version = True
        else:
            options.nvcc_args.append(arg)
            index += 1
            continue
        rest.pop(index)
    return options


def _auto_clauses(value: str) -> str:
    if not value.startswith("@"):
        return value
    try:
        lines = Path(value[1:]).read_text().splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read --auto clause file '{value[1:]}': {exc.strerror}") from exc
    return " ".join(line.split("#", 1)[0] for line in lines).strip() or DEFAULT_AUTO


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    err = Console(stderr=True, highlight=False)
    if not err.is_terminal:  # build logs: wide enough that the remarks table does not fold every word
        err = Console(stderr=True, highlight=False, width=140)
    try:
        options = parse_options(argv)
    except UsageError as exc:
        err.print(f"pdcc: error[{rules.BAD_COMMAND_LINE.id}]: {exc}", markup=False)
        return 2
    if options.help:
        sys.stdout.write(HELP)
        return 0
    if options.version:
        sys.stdout.write(f"pdcc {__version__}\n")
        return 0
    if shutil.which(options.compiler) is None:
        err.print(f"pdcc: error[{rules.NVCC_NOT_FOUND.id}]: cannot find nvcc ('{options.compiler}'); "
                  "put it on PATH or set PDCC_NVCC", markup=False)
        return 1
    command = nvcc.parse_nvcc_args(options.nvcc_args)
    if command.is_query():
        return subprocess.run([options.compiler, *options.nvcc_args]).returncode
    return Build(options, command, err).run()


class Build:
    """One pdcc invocation that compiles: transform, write temporaries, run nvcc, fix outputs, report."""

    def __init__(self, options: Options, command: nvcc.NvccCommand, err: Console):
        self.options = options
        self.command = command
        self.err = err
        self.remarks: list[Remark] = []
        self.results: dict[int, pipeline.Result] = {}

    def run(self) -> int:
        if not self._transform_inputs():
            self._report()
            return 1
        with tempfile.TemporaryDirectory(prefix="pdcc-") as workdir:
            argv, replaced = self._nvcc_arguments(Path(workdir))
            if argv is None:
                self._report()
                return 1
            capture = self.command.dependencies_on_stdout()
            completed = subprocess.run([self.options.compiler, *argv], stdout=subprocess.PIPE if capture else None)
            if capture:
                sys.stdout.write(_restore_paths(completed.stdout.decode(), replaced))
            for path in self.command.dependency_outputs():
                _restore_dependency_file(path, replaced)
        self._report()
        return completed.returncode

    def _transform_inputs(self) -> bool:
        ok = True
        for index, path in self.command.cuda_inputs():
            try:
                self.results[index] = pipeline.transform_path(path, display_path=path, auto=self.options.auto)
            except PdccError as exc:
                ok = False
                self.remarks.append(exc.remark)
                self.err.print(exc.remark.render_text(), markup=False, highlight=False)
                continue
            self.remarks.extend(self.results[index].remarks)
        return ok

    def _nvcc_arguments(self, workdir: Path) -> tuple[list[str] | None, dict[str, str]]:
        """nvcc's argv with transformed inputs swapped in, or None after an error writing files."""
        mapping: dict[int, str] = {}
        replaced: dict[str, str] = {}
        include_dirs: list[str] = []
        for number, (index, result) in enumerate(sorted(self.results.items())):
            original = result.source.path
            try:
                if self.options.emit:
                    _emit(self.options.emit, original, result.text)
            except PdccError as exc:
                self.remarks.append(exc.remark)
                self.err.print(exc.remark.render_text(), markup=False)
                return None, {}
            if self.options.diff and result.changed:
                try:
                    sys.stdout.writelines(difflib.unified_diff(
                        result.source.data.decode().splitlines(keepends=True), result.text.splitlines(keepends=True),
                        fromfile=original, tofile=f"{original} (pdcc)"))
                    sys.stdout.flush()
                except BrokenPipeError:  # `pdcc --diff ... | head`: the reader has seen enough; build on
                    self.options.diff = False
                    sys.stdout = open(os.devnull, "w")
            if not result.changed:
                continue
            target = workdir / str(number) / os.path.basename(original)
            target.parent.mkdir()
            target.write_text(result.text)
            mapping[index] = str(target)
            replaced[str(target)] = original
            directory = os.path.dirname(os.path.abspath(original))
            if directory not in include_dirs:  # quoted includes resolve as beside the original
                include_dirs.append(directory)
        if any(RUNTIME_INCLUDE in r.text for r in self.results.values()):  # also pdcc's own output
            include_dirs.append(str(RUNTIME_DIR))
        extra = self._device_runtime_flags()
        argv = [f"-I{d}" for d in include_dirs] + self.command.rewritten(mapping, at_end=extra)
        return argv, replaced

    def _device_runtime_flags(self) -> list[str]:
        """-rdc=true and -lcudadevrt when the program launches kernels from the device without them."""
        launching = [r for r in self.results.values() if r.uses_device_launches]
        if not launching:
            return []
        flags = []
        if not self.command.rdc_enabled() and self.command.phase not in ("E", "M", "MM"):
            flags.append("-rdc=true")
        if self.command.links() and not self.command.has_library("cudadevrt") and \
                self.command.last_value("--cudadevrt") != "none":
            flags.append("-lcudadevrt")
        if flags:
            source = launching[0].source
            self.remarks.append(Remark(Kind.ANALYSIS, rules.RDC_ADDED,
                                       f"added {' '.join(flags)}: this code launches kernels from the device",
                                       Location(source.display_path, 1, 1), pass_name="build",
                                       args={"flags": flags}))
        return flags

    def _report(self) -> None:
        if self.options.report:
            try:
                write_report(self.options.report, self.remarks, __version__, os.getcwd())
            except (OSError, ValueError) as exc:
                self.err.print(f"pdcc: error[{rules.OUTPUT_FAILED.id}]: cannot write report "
                               f"'{self.options.report}': {exc}", markup=False)
        if not self.options.quiet and not self.command.verbose and any(r.kind != Kind.ERROR for r in self.remarks):
            render_terminal(self.remarks, self.err)


def _emit(directory: str, original: str, text: str) -> None:
    target = Path(directory) / os.path.basename(original)
    if target.resolve() == Path(original).resolve():
        raise PdccError(Remark(Kind.ERROR, rules.OUTPUT_FAILED,
                               f"--emit {directory} would overwrite the input '{original}'; choose another directory",
                               Location(original, 1, 1)))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        if RUNTIME_INCLUDE in text:  # the emitted file compiles on its own
            shutil.copyfile(RUNTIME_DIR / RUNTIME_HEADER, target.parent / RUNTIME_HEADER)
    except OSError as exc:
        raise PdccError(Remark(Kind.ERROR, rules.OUTPUT_FAILED, f"cannot write '{target}': {exc.strerror}",
                               Location(original, 1, 1))) from exc


def _restore_paths(text: str, replaced: dict[str, str]) -> str:
    """Dependency rules name the temporary copies; make them name the user's files (once: the copy's
    `#line` directives name the user's file too, so it would otherwise be listed twice)."""
    for temporary, original in replaced.items():
        text = text.replace(temporary, original.replace(" ", "\\ "))
    return _without_repeated_prerequisites(text) if replaced else text


def _without_repeated_prerequisites(text: str) -> str:
    """Drops continuation lines of a make rule that repeat one of its prerequisites."""
    lines, seen = [], set()
    for line in text.split("\n"):
        continued = line.endswith("\\")
        body = line[:-1].strip() if continued else line.strip()
        if not line[:1].isspace():  # a rule's first line: `target : first \` (or a blank line)
            seen = set(body.split(":", 1)[1].split()) if ":" in body else set()
        elif body in seen:
            if not continued and lines and lines[-1].endswith("\\"):
                lines[-1] = lines[-1][:-1].rstrip()  # the dropped line ended the rule
            continue
        else:
            seen.add(body)
        lines.append(line)
    return "\n".join(lines)


def _restore_dependency_file(path: str, replaced: dict[str, str]) -> None:
    try:
        text = Path(path).read_text()
    except OSError:
        return
    restored = _restore_paths(text, replaced)
    if restored != text:
        Path(path).write_text(restored)
