"""pdcc: nvcc with pragma-directed dynamic-parallelism optimisations.

Used exactly like nvcc (`make NVCC=pdcc`, `CMAKE_CUDA_COMPILER=pdcc`) or as a launcher in front of
it (`pdcc nvcc ARGS`, CMake's CMAKE_CUDA_COMPILER_LAUNCHER). pdcc takes its own options out of the
command line, transforms the `.cu` inputs of compile steps that need it into a private temporary
directory, and runs nvcc with every other argument as given, in order. Queries (`--version`,
`--dryrun`, ...) go to nvcc untouched and pdcc prints nothing of its own.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from pragmadp import __version__, nvcc, pipeline
from pragmadp.ir import Knob
from pragmadp.report import rules
from pragmadp.report.remarks import CommandError, Kind, Location, PdccError, Remark
from pragmadp.report.render import check_report_path, write_atomically, write_report
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
compiled then, so no output file is written), when a file pdcc writes cannot be written, or for an
internal error of pdcc (PDCC900, with a reproducer); 2 for a malformed pdcc option; 130 after Ctrl-C;
128+N when nvcc was killed by signal N.
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
                    raise CommandError(rules.BAD_COMMAND_LINE, "needs-value", option=name)
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
        raise CommandError(rules.BAD_COMMAND_LINE, "auto-file", path=value[1:], reason=exc.strerror or str(exc)) from exc
    return " ".join(line.split("#", 1)[0] for line in lines).strip() or DEFAULT_AUTO


def main(argv: list[str] | None = None) -> int:
    """pdcc's entry point: an exit status for every outcome, never a Python traceback."""
    argv = sys.argv[1:] if argv is None else argv
    err = Console(stderr=True, highlight=False, soft_wrap=True)  # a message is one line, whatever its length
    if not err.is_terminal:  # build logs: wide enough that the remarks table does not fold every word
        err = Console(stderr=True, highlight=False, soft_wrap=True, width=140)
    try:
        return _main(argv, err)
    except KeyboardInterrupt:  # Ctrl-C: quiet, like nvcc; the temporary directory is already removed
        return INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - a bug in pdcc outside any one input's passes
        error = CommandError(rules.INTERNAL_ERROR, "command", cause=pipeline.one_line_cause(exc))
        error.hint, _ = _reproducer(argv, "".join(traceback.format_exception(exc)), {})
        _print(err, error)
        return 1


def _main(argv: list[str], err: Console) -> int:
    try:
        options = parse_options(argv)
    except CommandError as exc:  # a malformed pdcc option
        _print(err, exc)
        return 2
    if options.help:
        sys.stdout.write(HELP)
        return 0
    if options.version:
        sys.stdout.write(f"pdcc {__version__}\n")
        return 0
    if shutil.which(options.compiler) is None:
        _print(err, CommandError(rules.NVCC_NOT_FOUND, "not-found", compiler=options.compiler))
        return 1
    command = nvcc.parse_nvcc_args(options.nvcc_args)
    if command.is_query():
        return subprocess.run([options.compiler, *options.nvcc_args]).returncode
    return Build(options, command, err, argv).run()



INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command stopped by Ctrl-C


class Build:
    """One pdcc invocation that compiles: transform, write temporaries, run nvcc, fix outputs, report."""

    def __init__(self, options: Options, command: nvcc.NvccCommand, err: Console, argv: list[str]):
        self.options = options
        self.command = command
        self.err = err
        self.argv = argv  # pdcc's own command line, for a reproducer
        self.remarks: list[Remark] = []
        self.knobs: list[Knob] = []  # every site's tunable values, for the JSON report
        self.results: dict[int, pipeline.Result] = {}

    def run(self) -> int:
        if not self._report_path_usable():
            return 1
        if not self._transform_inputs():
            self._report()
            return 1
        changed = [(index, result) for index, result in sorted(self.results.items()) if result.changed]
        try:
            with contextlib.ExitStack() as cleanup:
                workdir = Path(cleanup.enter_context(tempfile.TemporaryDirectory(prefix="pdcc-"))) if changed \
                    else None
                argv, replaced = self._nvcc_arguments(workdir)
                status = self._run_nvcc(argv, replaced)
        except PdccError as exc:
            self._error(exc.remark)
            self._report()
            return 1
        except OSError as exc:  # creating the temporary directory
            original = changed[0][1].source.display_path
            self._error(PdccError.at(rules.OUTPUT_FAILED, Location(original, 1, 1), "temporary-directory",
                                     input=original, reason=exc.strerror or str(exc)).remark)
            self._report()
            return 1
        if not self._report() and status == 0:
            return 1  # the build is not done while the report it was asked for is missing
        return status

    def _error(self, remark: Remark) -> None:
        self.remarks.append(remark)
        self.err.print(remark.render_text(), markup=False, highlight=False)

    def _report_path_usable(self) -> bool:
        """A --report that cannot be written fails before anything is compiled."""
        if not self.options.report:
            return True
        try:
            check_report_path(self.options.report)
        except CommandError as exc:
            _print(self.err, exc)
            return False
        return True

    def _defines(self) -> dict[str, str]:
        """`-D NAME=VALUE` of the command line (`-D NAME` is 1, as for the C preprocessor)."""
        pairs = (value.partition("=") for value in self.command.values("--define-macro"))
        return {name: value if equals else "1" for name, equals, value in pairs}

    def _transform_inputs(self) -> bool:
        ok = True
        for index, path in self.command.cuda_inputs():
            try:
                self.results[index] = pipeline.transform_path(path, display_path=path, auto=self.options.auto,
                                                              defines=self._defines())
            except pipeline.InternalError as exc:
                ok = False
                exc.remark.hint, reproducer = _reproducer(self.argv, exc.details, {"input.cu": exc.source.data})
                exc.remark.args.update(reproducer)
                self._error(exc.remark)
                continue
            except PdccError as exc:
                ok = False
                self._error(exc.remark)
                continue
            self.remarks.extend(self.results[index].remarks)
            self.knobs.extend(self.results[index].knobs)
        return ok

    def _nvcc_arguments(self, workdir: Path | None) -> tuple[list[str], dict[str, str]]:
        """nvcc's argv with transformed inputs swapped in (raises PdccError when a file cannot be
        written), and which temporary path stands for which input."""
        mapping: dict[int, str] = {}
        replaced: dict[str, str] = {}
        include_dirs: list[str] = []
        for number, (index, result) in enumerate(sorted(self.results.items())):
            original = result.source.path
            if self.options.emit:
                _emit(self.options.emit, original, result.text)
            if self.options.diff and result.changed:
                self._print_diff(result)
            if not result.changed or workdir is None:
                continue
            target = workdir / str(number) / os.path.basename(original)
            try:
                target.parent.mkdir()
                target.write_bytes(result.text.encode("utf-8"))
            except OSError as exc:
                raise PdccError.at(rules.OUTPUT_FAILED, Location(original, 1, 1), "temporary-copy", input=original,
                                   directory=str(workdir), reason=exc.strerror or str(exc)) from exc
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

    def _print_diff(self, result: pipeline.Result) -> None:
        """The diff in the source's own bytes (UTF-8), whatever the encoding of standard output."""
        original = result.source.path
        diff = difflib.diff_bytes(difflib.unified_diff, result.source.data.splitlines(keepends=True),
                                  result.text.encode("utf-8").splitlines(keepends=True),
                                  fromfile=os.fsencode(original), tofile=os.fsencode(f"{original} (pdcc)"))
        try:
            sys.stdout.flush()
            sys.stdout.buffer.write(b"".join(diff))
            sys.stdout.buffer.flush()
        except BrokenPipeError:  # `pdcc --diff ... | head`: the reader has seen enough; build on
            self.options.diff = False
            sys.stdout = open(os.devnull, "w")

    def _run_nvcc(self, argv: list[str], replaced: dict[str, str]) -> int:
        """Runs nvcc; its messages name the user's files, never pdcc's temporary copies. A signal
        that kills nvcc is reported and gives 128 + its number, as a shell would."""
        compiler = [self.options.compiler, *argv]
        if not replaced:
            status = subprocess.run(compiler).returncode
        else:
            completed = subprocess.run(compiler, capture_output=True)
            status = completed.returncode
            stdout = completed.stdout.decode("utf-8", "surrogateescape")
            stdout = _restore_paths(stdout, replaced) if self.command.dependencies_on_stdout() \
                else _name_originals(stdout, replaced)
            _write_through(sys.stdout, stdout)
            _write_through(sys.stderr, _name_originals(completed.stderr.decode("utf-8", "surrogateescape"), replaced))
        for path in self.command.dependency_outputs():
            _restore_dependency_file(path, replaced)
        if status < 0:
            _print(self.err, CommandError(rules.NVCC_KILLED, "killed", signal=_signal_name(-status)))
            return 128 - status
        return status

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
            args = {"flags": " ".join(flags)}
            self.remarks.append(Remark(Kind.ANALYSIS, rules.RDC_ADDED, rules.RDC_ADDED.render(args),
                                       Location(launching[0].source.display_path, 1, 1), pass_name="build", args=args))
        return flags

    def _report(self) -> bool:
        """Writes --report and the terminal summary; False when the report could not be written."""
        written = True
        if self.options.report:
            try:
                write_report(self.options.report, self.remarks, __version__, os.getcwd(), self.knobs)
            except OSError as exc:
                _print(self.err, CommandError(rules.OUTPUT_FAILED, "report", report=self.options.report,
                                              reason=exc.strerror or str(exc)))
                written = False
        if not self.options.quiet and not self.command.verbose and any(r.kind != Kind.ERROR for r in self.remarks):
            render_terminal(self.remarks, self.err)
        return written


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _write_through(stream, text: str) -> None:
    """Writes nvcc's output as nvcc wrote it (its bytes, not re-encoded for this terminal)."""
    stream.flush()
    stream.buffer.write(text.encode("utf-8", "surrogateescape"))
    stream.buffer.flush()


def _print(err: Console, error: CommandError) -> None:
    err.print(error.render_text(), markup=False, highlight=False)


def _reproducer(argv: list[str], details: str, files: dict[str, bytes]) -> tuple[str, dict[str, str]]:
    """Writes a reproducer of a pdcc bug: a directory `pdcc-crash-<hash>` in the temporary directory
    (else the current one) holding the input, the command and the traceback. Returns the PDCC900 help
    line that says where (or why there is none) and its arguments."""
    command = f"cd {shlex.quote(os.getcwd())}\npdcc {shlex.join(argv)}\n"
    files = {**files, "command.txt": command.encode(), "traceback.txt": details.encode("utf-8", "replace")}
    digest = hashlib.sha256(b"".join(files.get(name, b"") for name in ("input.cu", "command.txt"))).hexdigest()[:12]
    reasons = []
    for parent in (tempfile.gettempdir, os.getcwd):
        try:
            directory = Path(parent()) / f"pdcc-crash-{digest}"
            directory.mkdir(exist_ok=True)
            for name, data in files.items():
                (directory / name).write_bytes(data)
        except OSError as exc:
            reasons.append(exc.strerror or str(exc))
            continue
        return _help("reproducer", reproducer=str(directory), files=", ".join(files))
    return _help("no-reproducer", reasons="; ".join(reasons))


def _help(message: str, **args: str) -> tuple[str, dict[str, str]]:
    """A PDCC900 help line and its arguments."""
    return rules.INTERNAL_ERROR.messages[message].render(args)[1], args


def _emit(directory: str, original: str, text: str) -> None:
    """--emit: writes the transformed source (atomically) into `directory`, never over the input,
    not even through a hard or symbolic link."""
    target = Path(directory) / os.path.basename(original)
    if target.exists() and os.path.samefile(target, original):
        raise PdccError.at(rules.OUTPUT_FAILED, Location(original, 1, 1), "emit-over-input", directory=directory,
                           input=original)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(str(target), text.encode("utf-8"))
        if RUNTIME_INCLUDE in text:  # the emitted file compiles on its own
            write_atomically(str(target.parent / RUNTIME_HEADER), (RUNTIME_DIR / RUNTIME_HEADER).read_bytes())
    except OSError as exc:
        raise PdccError.at(rules.OUTPUT_FAILED, Location(original, 1, 1), "emit", path=str(target),
                           reason=exc.strerror or str(exc)) from exc


def _name_originals(text: str, replaced: dict[str, str]) -> str:
    """nvcc's messages with every temporary copy's path replaced by the user's path."""
    for temporary, original in replaced.items():
        text = text.replace(temporary, original)
    return text


def _restore_paths(text: str, replaced: dict[str, str]) -> str:
    """Dependency rules name the temporary copies; make them name the user's files (once: the copy's
    `#line` directives name the user's file too, so it would otherwise be listed twice)."""
    for temporary, original in replaced.items():
        text = text.replace(temporary, original.replace(" ", "\\ "))
    return _without_repeated_prerequisites(text) if replaced else text


def _without_repeated_prerequisites(text: str) -> str:
    """Drops continuation lines of a make rule that repeat one of its prerequisites."""
    lines: list[str] = []
    seen: set[str] = set()
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
        text = Path(path).read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return
    restored = _restore_paths(text, replaced)
    if restored != text:
        try:
            write_atomically(path, restored.encode("utf-8", "surrogateescape"))
        except OSError as exc:
            raise PdccError.at(rules.OUTPUT_FAILED, Location(path, 1, 1), "dependency-file", path=path,
                               reason=exc.strerror or str(exc)) from exc
