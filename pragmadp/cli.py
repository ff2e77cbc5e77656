"""pdcc: nvcc with pragma-directed dynamic-parallelism optimisations.

Used exactly like nvcc (`make NVCC=pdcc`, `CMAKE_CUDA_COMPILER=pdcc`) or as a launcher in front of
it (`pdcc [PDCC OPTIONS] nvcc ARGS`, CMake's CMAKE_CUDA_COMPILER_LAUNCHER). pdcc takes its own options out
of the command line (and reads the rest of its settings from PDCC_* variables and pdcc.toml, config.py),
transforms the `.cu` inputs of compile steps that need it into copies at stable temporary paths, and runs
nvcc with every other argument as given, in order. Queries (`--version`, `--list-gpu-arch`, ...) go to nvcc
untouched and pdcc prints nothing of its own. A dry run of a compile (`--dryrun`, which sccache runs and then
executes the steps itself) is the plan of compiling the transformed copies, kept on disk for those steps. `pdcc report DIR -o FILE` merges a build's unit reports.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import errno
import fcntl
import hashlib
import os
import re
import shlex
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from pragmadp import __version__, config, nvcc, pipeline
from pragmadp.ir import Knob
from pragmadp.report import rules
from pragmadp.report.remarks import CommandError, Kind, Location, PdccError, Remark
from pragmadp.report.render import check_report_path, write_atomically, write_report
from pragmadp.report.terminal import print_diagnostic, render_terminal
from pragmadp.source import quoted_name
from pragmadp.transforms.base import RUNTIME_HEADER, RUNTIME_INCLUDE

DEFAULT_AUTO = "threshold(128)"
PACKAGE_DIR = Path(__file__).resolve().parent
RUNTIME_DIR = PACKAGE_DIR / "runtime"
STDIN_NAME = "<stdin>"   # how pdcc's messages and `#line` directives name standard input, as gcc does
#: the compilers this chain of pdcc processes has already run (resolved paths, os.pathsep-separated): an `nvcc`
#: that leads back to pdcc (a wrapper script, ccache's masquerade directory) is not run a second time
CHAIN_VARIABLE = "PDCC_COMPILER_CHAIN"

HELP = f"""\
usage: pdcc [PDCC OPTIONS] [nvcc] NVCC-ARGUMENTS...
       pdcc report DIR -o FILE.{{md,sarif,json,html}} [--report-root ROOT]
       pdcc --explain PDCCnnn

pdcc {__version__}: nvcc with pragma-directed optimisations of dynamic parallelism.
Annotate device-side launches with `#pragma dp threshold(N) ...` and build with pdcc where you used
nvcc; every argument pdcc does not own is passed to nvcc unchanged and in order.

pdcc options (all others are nvcc's; see `nvcc --help`):
  --emit DIR         also write each transformed source to DIR (never over an input file)
  --diff             print a unified diff of each transformed source on standard output
  --report FILE      write a report of this command's sites: FILE.json, .sarif (SARIF 2.1.0), .md or .html;
                     every command of a build that names the same FILE adds its units to it (kept in
                     .FILE.pdcc-units beside it; each command renders them all: for a large build use --report-dir)
  --report-dir DIR   write one report per translation unit into DIR (for a whole build; merge them with
                     `pdcc report DIR -o FILE`)
  --auto[=CLAUSES]   treat every device-side launch without a pragma as if annotated with CLAUSES
                     (default {DEFAULT_AUTO!r}); `--auto=@FILE` reads the clauses from FILE;
                     `#pragma dp off` before a launch opts it out
  -Rpass=REGEX, -Rpass-missed=REGEX, -Rpass-analysis=REGEX
                     print applied / missed / analysis remarks of the passes (or rules) matching REGEX,
                     compiler style: `file:line:col: remark: message [PDCCnnn]`
  --Werror-missed    a missed remark is an error: nothing is compiled (PDCC309)
  --explain PDCCnnn  what a rule means and what to do (`--explain all` lists the rules)
  -q, --quiet        no summary table on standard error
  --pdcc-help, --help  this text
  --pdcc-version     pdcc's version and a fingerprint of its code (`--version` is nvcc's)

Settings without the command line (the command line beats the environment, which beats the file):
  PDCC_AUTO (1, 0 or clauses), PDCC_REPORT_DIR, PDCC_NVCC, PDCC_REMARKS (-Rpass... options),
  PDCC_WERROR_MISSED, PDCC_QUIET; a pdcc.toml (or [tool.pdcc] in pyproject.toml) in the working
  directory or above with the keys auto, report-dir, nvcc, remarks = {{pass, missed, analysis}},
  werror-missed, quiet; PDCC_CONFIG=FILE names the file, PDCC_CONFIG=none reads none.
  Launcher style `pdcc [PDCC OPTIONS] /path/to/nvcc ARGS` runs that nvcc; otherwise the first nvcc on
  PATH that is not pdcc itself.

Each `#pragma dp` value becomes a macro named after its site (e.g. PDCC_THRESHOLD_parent_0): change it
with -D without editing the source. pdcc adds -rdc=true (and -lcudadevrt when linking) when the
program launches kernels from the device and the command lacks them, and says so (PDCC700).

Exit status: nvcc's when pdcc's part succeeded; 1 when an input has an error pdcc reports (nothing is
compiled then, so no output file is written), when a file pdcc writes cannot be written, or for an
internal error of pdcc (PDCC900, with a reproducer); 2 for a malformed pdcc option or setting; 130
after Ctrl-C; 128+N when nvcc was killed by signal N.
"""


@dataclass
class Options:
    emit: str | None = None
    diff: bool = False
    report: str | None = None
    report_dir: str | None = None
    auto: str | None = None
    quiet: bool = False
    help: bool = False
    version: bool = False
    explain: str | None = None
    werror_missed: bool = False
    remarks: dict[str, re.Pattern[str]] = field(default_factory=dict)   # "pass" | "missed" | "analysis" -> regex
    compiler: list[str] = field(default_factory=list)   # launcher style: the compiler named first (e.g. ccache nvcc)
    nvcc: str | None = None          # PDCC_NVCC or the file's `nvcc`: run instead of the nvcc on PATH
    nvcc_origin: str = ""            # where `nvcc` came from, for messages
    nvcc_args: list[str] = field(default_factory=list)


_VALUED = ("--emit", "--report", "--report-dir", "--explain")
_LAUNCHED = ("nvcc", "nvcc.exe")
_CACHES = ("ccache", "sccache", "buildcache")


def parse_options(argv: list[str], layers: Sequence[config.Layer] = ()) -> Options:
    """Splits pdcc's own options from nvcc's, over the settings of `layers` (lowest first). Launcher style:
    the first argument that is not a pdcc option may name the compiler (`nvcc`, `/path/to/nvcc`, or a compiler
    cache followed by nvcc: `ccache nvcc`)."""
    options = Options()
    for layer in layers:
        _apply_layer(options, layer)
    rest = list(argv)
    index = 0
    launcher_checked = False
    while index < len(rest):
        arg = rest[index]
        name, has_value, value = arg.partition("=")
        kind, regex = config.remark_option(arg)
        if name in _VALUED:
            if not has_value:
                if index + 1 >= len(rest):
                    raise CommandError(rules.BAD_COMMAND_LINE, "needs-value", option=name)
                value = rest.pop(index + 1)
            setattr(options, name[2:].replace("-", "_"), value)
        elif name == "--auto":
            options.auto = _auto_clauses(value) if has_value else DEFAULT_AUTO
        elif kind is not None:
            if not has_value:
                raise CommandError(rules.BAD_COMMAND_LINE, "needs-value", option=name)
            options.remarks[kind] = _regex(name, regex)
        elif arg == "--Werror-missed":
            options.werror_missed = True
        elif arg == "--diff":
            options.diff = True
        elif arg in ("-q", "--quiet"):
            options.quiet = True
        elif arg in ("--pdcc-help", "--help"):
            options.help = True
        elif arg == "--pdcc-version":
            options.version = True
        else:
            if not launcher_checked:
                launcher_checked = True
                compiler = _launched_compiler(rest[index:])
                if compiler:
                    options.compiler = compiler
                    del rest[index:index + len(compiler)]
                    continue
            options.nvcc_args.append(arg)
            index += 1
            continue
        rest.pop(index)
    if options.report is not None:
        _check_report_format(options.report)
    return options


def _launched_compiler(rest: list[str]) -> list[str]:
    """The compiler a launcher-style command line starts with: `nvcc`, or a compiler cache and nvcc."""
    if rest and os.path.basename(rest[0]) in _LAUNCHED:
        return rest[:1]
    if len(rest) > 1 and os.path.basename(rest[0]) in _CACHES and os.path.basename(rest[1]) in _LAUNCHED:
        return rest[:2]
    return []


def _apply_layer(options: Options, layer: config.Layer) -> None:
    if layer.auto is not None:
        options.auto = None if layer.auto is False else DEFAULT_AUTO if layer.auto is True else \
            _auto_clauses(layer.auto)
    if layer.report_dir is not None:
        options.report_dir = layer.report_dir
    if layer.nvcc is not None:
        options.nvcc, options.nvcc_origin = layer.nvcc, \
            "PDCC_NVCC" if layer.origin == "the environment" else f"'nvcc' of {layer.origin}"
    for kind, regex in layer.remarks.items():
        option = "-Rpass" if kind == "pass" else f"-Rpass-{kind}"
        options.remarks[kind] = _regex(option, regex)
    if layer.werror_missed is not None:
        options.werror_missed = layer.werror_missed
    if layer.quiet is not None:
        options.quiet = layer.quiet


def _regex(option: str, regex: str) -> re.Pattern[str]:
    try:
        return re.compile(regex)
    except re.error as exc:
        raise CommandError(rules.BAD_COMMAND_LINE, "bad-regex", option=option, regex=regex, reason=str(exc)) from exc


def _check_report_format(path: str) -> None:
    """An unknown --report extension is a malformed option (PDCC303), found before anything is compiled."""
    from pragmadp.report import render
    try:
        render.check_report_format(path)
    except CommandError as exc:
        extensions = ", ".join(suffix for suffix, _ in render._RENDERERS)
        raise CommandError(rules.BAD_COMMAND_LINE, "report-format", report=path, extensions=extensions) from exc


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
        if argv[:1] == ["report"]:  # `pdcc report DIR -o FILE`: merge a build's unit reports
            from pragmadp.report import command
            return command.main(argv[1:])
        if argv[:1] == ["tune"]:  # `pdcc tune ...`: sweep a report's knobs on the GPU
            from pragmadp import tune
            return tune.main(argv[1:])
        return _main([*argv, *_tune_flags(argv)], err)
    except KeyboardInterrupt:  # Ctrl-C: quiet, like nvcc; the temporary copies are already removed
        return INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - a bug in pdcc outside any one input's passes
        error = CommandError(rules.INTERNAL_ERROR, "command", cause=pipeline.one_line_cause(exc))
        error.hint, _ = _reproducer(argv, "".join(traceback.format_exception(exc)), {})
        _print(err, error)
        return 1


def _main(argv: list[str], err: Console) -> int:
    try:
        options = parse_options(argv, config.layers(os.getcwd(), os.environ))
        if options.explain is not None:
            from pragmadp import explain
            sys.stdout.write(explain.explain(options.explain))
            return 0
    except CommandError as exc:  # a malformed pdcc option or setting
        _print(err, exc)
        return 2
    if options.help:
        sys.stdout.write(HELP)
        return 0
    if options.version:
        sys.stdout.write(f"pdcc {__version__} (code {fingerprint()})\n")
        return 0
    try:
        compiler = find_compiler(options)
    except CommandError as exc:
        _print(err, exc)
        return 1
    command = nvcc.parse_nvcc_args(options.nvcc_args)
    if command.is_query():
        return subprocess.run([*compiler, *options.nvcc_args], env=_chain_environment(compiler)).returncode
    return Build(options, compiler, command, err, argv).run()


INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command stopped by Ctrl-C


def _tune_flags(argv: list[str]) -> list[str]:
    """`pdcc tune` rebuilds the user's program with each sweep point's `-D` flags in PDCC_TUNE_FLAGS: pdcc
    takes them as if they ended its command line (it reads the meld thresholds itself; nvcc gets them too).
    Queries are left alone."""
    flags = os.environ.get("PDCC_TUNE_FLAGS", "")
    if not flags.strip() or any(a in ("--version", "--pdcc-version", "--help", "-h") for a in argv):
        return []
    return shlex.split(flags)


def _tune_receipt(inputs: list[str]) -> None:
    """One line in PDCC_TUNE_RECEIPT per compile that took PDCC_TUNE_FLAGS, so `pdcc tune` knows the point
    was really rebuilt (a build that finds nothing to do would time a stale program)."""
    receipt, flags = os.environ.get("PDCC_TUNE_RECEIPT"), os.environ.get("PDCC_TUNE_FLAGS", "").strip()
    if receipt and flags and inputs:
        with open(receipt, "a", encoding="utf-8") as out:
            out.write(f"{flags}\t{' '.join(inputs)}\n")


def fingerprint() -> str:
    """A hash of pdcc's code (its modules, grammar and runtime header): what a compiler cache should key on
    (CCACHE_COMPILERCHECK='%compiler% --pdcc-version'), since the version alone does not change with the code."""
    from pragmadp import directives
    digest = hashlib.sha256()
    files = sorted(p for p in PACKAGE_DIR.rglob("*") if p.suffix in (".py", ".cuh", ".lark") and p.is_file())
    for path in [*files, directives.GRAMMAR_PATH]:
        digest.update(str(path.relative_to(path.parent.parent)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


# ---- which nvcc ------------------------------------------------------------------------------------------------

def find_compiler(options: Options) -> list[str]:
    """The compiler to run, as an argv prefix. Launcher style names it; else PDCC_NVCC or the file's `nvcc`; else
    the first `nvcc` on PATH that is not pdcc itself (a symlink named nvcc pointing at pdcc, first on PATH, as
    ccache's masquerade directories do) and that this chain of pdcc processes has not run yet. CommandError
    (PDCC302) when there is none."""
    chain = _chain()
    if options.compiler:
        *prefix, name = options.compiler
        return [*prefix, _named_compiler(name, "the launcher command line", chain)]
    if options.nvcc is not None:
        return [_named_compiler(options.nvcc, options.nvcc_origin, chain)]
    return [_nvcc_on_path(chain)]


def _chain() -> set[str]:
    return {path for path in os.environ.get(CHAIN_VARIABLE, "").split(os.pathsep) if path}


def _is_pdcc(path: str, chain: set[str]) -> bool:
    """Whether running `path` would run this pdcc again: the same file as the running pdcc, or one already run."""
    resolved = os.path.realpath(path)
    if resolved in chain:
        return True
    own = sys.argv[0] if sys.argv and os.path.isfile(sys.argv[0]) else None
    return own is not None and resolved == os.path.realpath(own)


def _named_compiler(name: str, origin: str, chain: set[str]) -> str:
    if os.sep not in name:  # a bare name: looked up on PATH, skipping pdcc itself
        if os.path.basename(name) in _LAUNCHED:
            return _nvcc_on_path(chain, name)
        found = _which(name)
        if found is None:
            raise CommandError(rules.NVCC_NOT_FOUND, "named-not-found", compiler=name, origin=origin)
        return found
    if not (os.path.isfile(name) and os.access(name, os.X_OK)):
        raise CommandError(rules.NVCC_NOT_FOUND, "named-not-found", compiler=name, origin=origin)
    if _is_pdcc(name, chain):
        raise CommandError(rules.NVCC_NOT_FOUND, "is-pdcc", compiler=name, origin=origin)
    return name


def _which(name: str) -> str | None:
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        candidate = os.path.join(folder or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _nvcc_on_path(chain: set[str], name: str = "nvcc") -> str:
    """The first `name` on PATH that is not pdcc, else the toolkit's where CMake's FindCUDAToolkit looks for it
    (CUDAToolkit_ROOT, CUDA_PATH, CUDA_HOME, /usr/local/cuda, the newest /usr/local/cuda-X.Y), so that a build CMake
    configures with the toolkit off PATH compiles with pdcc too."""
    skipped: list[str] = []
    folders = os.environ.get("PATH", os.defpath).split(os.pathsep)
    toolkits = _toolkit_folders()
    for folder in [*folders, *toolkits]:
        candidate = os.path.join(folder or ".", name)
        if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
            continue
        if _is_pdcc(candidate, chain):
            skipped.append(candidate)
            continue
        return candidate
    if skipped:
        raise CommandError(rules.NVCC_NOT_FOUND, "only-pdcc", skipped=", ".join(skipped))
    raise CommandError(rules.NVCC_NOT_FOUND, "not-found", places=", ".join(toolkits))


def _toolkit_folders() -> list[str]:
    """Where a CUDA toolkit keeps nvcc when it is not on PATH, in FindCUDAToolkit's order."""
    named = [os.path.join(os.environ[variable], "bin") for variable in ("CUDAToolkit_ROOT", "CUDA_PATH", "CUDA_HOME")
             if os.environ.get(variable)]
    versions = sorted((p for p in Path("/usr/local").glob("cuda-*") if re.fullmatch(r"cuda-[0-9]+\.[0-9]+", p.name)),
                      key=lambda p: tuple(int(part) for part in p.name[5:].split(".")), reverse=True)
    return [*named, "/usr/local/cuda/bin", *(str(p / "bin") for p in versions)]


def _chain_environment(compiler: list[str]) -> dict[str, str]:
    """The environment for the compiler: the chain of compilers run, this one added."""
    chain = [path for path in os.environ.get(CHAIN_VARIABLE, "").split(os.pathsep) if path]
    resolved = os.path.realpath(compiler[-1])
    return {**os.environ, CHAIN_VARIABLE: os.pathsep.join([*chain, resolved] if resolved not in chain else chain)}


# ---- one compiling command -------------------------------------------------------------------------------------

@dataclass
class Input:
    """A CUDA input of the command: where it is on the command line, and what pdcc made of it."""

    index: int                       # its argument index (nvcc.Arg.index)
    path: str                        # as given; "-" is standard input
    result: pipeline.Result | None = None
    error: Remark | None = None      # pdcc's error in it (nothing is compiled then)


class Build:
    """One pdcc invocation that compiles: transform, write temporaries, run nvcc, fix outputs, report."""

    def __init__(self, options: Options, compiler: list[str], command: nvcc.NvccCommand, err: Console,
                 argv: list[str]):
        self.options = options
        self.compiler = compiler
        self.command = command
        self.err = err
        self.argv = argv  # pdcc's own command line, for a reproducer
        self.remarks: list[Remark] = []
        self.knobs: list[Knob] = []  # every site's tunable values, for the JSON report
        self.inputs: list[Input] = []
        self.stdin: bytes | None = None  # what nvcc reads on standard input, when pdcc read it first

    @property
    def results(self) -> dict[int, pipeline.Result]:
        return {i.index: i.result for i in self.inputs if i.result is not None}

    def run(self) -> int:
        if not self._outputs_usable():
            return 1
        if not self._transform_inputs():
            self._report()
            return 1
        self._print_selected_remarks(self.remarks)
        if self.options.werror_missed and not self._no_missed_remarks():
            self._report()
            return 1
        extra = self._device_runtime_flags()
        try:
            self._check_device_link(extra)
            if self.command.is_dry_run() and "-rdc=true" in extra and self.command.compiled_objects():
                raise CommandError(rules.DRY_RUN_NEEDS_DEVICE_LINK, "dry-run")  # sccache then compiles it through pdcc
        except CommandError as exc:
            _print(self.err, exc)
            self._report()
            return 1
        try:
            with contextlib.ExitStack() as cleanup:
                argv, replaced = self._nvcc_arguments(cleanup, extra)
                self._say_device_runtime_flags()
                status = self._run_nvcc(argv, replaced)
                if status == 0 and "-rdc=true" in extra and not self.command.is_dry_run():
                    self._device_link_alone()
            if status == 0:
                _tune_receipt([unit.path for unit in self.inputs])
        except PdccError as exc:
            self._error(exc.remark)
            self._report()
            return 1
        if not self._report() and status == 0:
            return 1  # the build is not done while the report it was asked for is missing
        return status

    def _error(self, remark: Remark) -> None:
        self.remarks.append(remark)
        print_diagnostic(self.err, remark.render_text())

    def _outputs_usable(self) -> bool:
        """A --report or --report-dir that cannot be written fails before anything is compiled."""
        try:
            if self.options.report:
                check_report_path(self.options.report)
            if self.options.report_dir:
                directory = self.options.report_dir
                try:
                    os.makedirs(directory, exist_ok=True)
                except OSError as exc:
                    raise CommandError(rules.OUTPUT_FAILED, "report-dir", directory=directory,
                                       reason=exc.strerror or str(exc)) from exc
                if not os.access(directory, os.W_OK | os.X_OK):
                    raise CommandError(rules.OUTPUT_FAILED, "report-dir", directory=directory,
                                       reason=os.strerror(errno.EACCES))
        except CommandError as exc:
            _print(self.err, exc)
            return False
        return True

    def _defines(self) -> dict[str, str]:
        """`-D NAME=VALUE` of the command line (`-D NAME` is 1, as for the C preprocessor)."""
        pairs = (value.partition("=") for value in self.command.values("--define-macro"))
        return {name: value if equals else "1" for name, equals, value in pairs}

    def _include_dirs(self) -> tuple[str, ...]:
        """Where the preprocessor looks for a quoted include after the including file's directory: -I, then
        -isystem (each also as a comma list)."""
        return (*self.command.values("--include-path", split_commas=True),
                *self.command.values("--system-include", split_commas=True))

    def _transform_inputs(self) -> bool:
        ok = True
        for index, path in self.command.cuda_inputs():
            unit = Input(index, path)
            self.inputs.append(unit)
            try:
                if path == "-":  # standard input: read once, transformed, and handed to nvcc on its standard input
                    if self.stdin is None:
                        self.stdin = sys.stdin.buffer.read()
                    source = pipeline.read_input(STDIN_NAME, STDIN_NAME, self.stdin)
                else:
                    source = pipeline.read_input(path, path)
                unit.result = pipeline.transform_input(source, auto=self.options.auto, defines=self._defines(),
                                                       include_dirs=self._include_dirs())
            except pipeline.InternalError as exc:
                ok = False
                exc.remark.hint, reproducer = _reproducer(self.argv, exc.details, {"input.cu": exc.source.data})
                exc.remark.args.update(reproducer)
                unit.error = exc.remark
                self._error(exc.remark)
                continue
            except PdccError as exc:
                ok = False
                unit.error = exc.remark
                self._error(exc.remark)
                continue
            self.remarks.extend(unit.result.remarks)
            self.knobs.extend(unit.result.knobs)
        return ok

    # ---- remarks on the terminal ------------------------------------------------------------------------------

    def _print_selected_remarks(self, remarks: Sequence[Remark]) -> None:
        """-Rpass=REGEX and friends: the matching remarks, one compiler-style line each, as clang prints them."""
        filters = {Kind.APPLIED: self.options.remarks.get("pass"), Kind.MISSED: self.options.remarks.get("missed"),
                   Kind.ANALYSIS: self.options.remarks.get("analysis")}
        for remark in remarks:
            regex = filters.get(remark.kind)
            if regex is not None and any(regex.search(name) for name in (remark.pass_name, remark.rule.name,
                                                                           remark.rule.id) if name):
                print_diagnostic(self.err, remark_line(remark))

    def _no_missed_remarks(self) -> bool:
        """--Werror-missed: every missed remark as an error, then PDCC309; False when there was one."""
        missed = [remark for remark in self.remarks if remark.kind is Kind.MISSED]
        for remark in missed:
            print_diagnostic(self.err, dataclasses.replace(remark, kind=Kind.ERROR).render_text())
        if missed:
            _print(self.err, CommandError(rules.MISSED_IS_ERROR, "missed", count=len(missed)))
        return not missed

    # ---- nvcc's command line -----------------------------------------------------------------------------------

    def _nvcc_arguments(self, cleanup: contextlib.ExitStack, extra: list[str]) -> tuple[list[str], dict[str, str]]:
        """nvcc's argv with transformed inputs swapped for their copies (raises PdccError when one cannot be
        written), and which copy's path stands for which input."""
        mapping: dict[int, str] = {}
        replaced: dict[str, str] = {}
        include_dirs: list[str] = []
        for unit in self.inputs:
            result = unit.result
            assert result is not None
            original = result.source.path
            if self.options.emit:
                _emit(self.options.emit, unit.path if unit.path != "-" else "stdin.cu", result.text)
            if self.options.diff and result.changed:
                self._print_diff(result)
            if unit.path == "-":  # nvcc reads the transformed text on its standard input
                self.stdin = result.data
                continue
            if not result.changed:
                continue
            target = kept_copy(original, result.data) if self.command.is_dry_run() \
                else cleanup.enter_context(stable_copy(original, result.data))
            mapping[unit.index] = target
            replaced[target] = original
            directory = os.path.dirname(os.path.abspath(original))
            if directory not in include_dirs:  # quoted includes resolve as beside the original
                include_dirs.append(directory)
        if any(RUNTIME_INCLUDE in r.text for r in self.results.values()):  # also pdcc's own output
            include_dirs.append(str(RUNTIME_DIR))
        argv = [f"-I{d}" for d in include_dirs] + self.command.rewritten(mapping, at_end=extra)
        return argv, replaced

    def _print_diff(self, result: pipeline.Result) -> None:
        """The diff in the source's own bytes (UTF-8), whatever the encoding of standard output."""
        original = result.source.display_path
        diff = difflib.diff_bytes(difflib.unified_diff, result.source.data.splitlines(keepends=True),
                                  result.data.splitlines(keepends=True),
                                  fromfile=os.fsencode(original), tofile=os.fsencode(f"{original} (pdcc)"))
        try:
            sys.stdout.flush()
            sys.stdout.buffer.write(b"".join(diff))
            sys.stdout.buffer.flush()
        except BrokenPipeError:  # `pdcc --diff ... | head`: the reader has seen enough; build on
            self.options.diff = False
            sys.stdout = open(os.devnull, "w")

    def _run_nvcc(self, argv: list[str], replaced: dict[str, str]) -> int:
        """Runs nvcc; its messages name the user's files and lines, never pdcc's copies or the lines pdcc wrote
        (but a dry run's steps name the copies: they are what the steps compile). A signal that kills nvcc is
        reported and gives 128 + its number, as a shell would."""
        compiler = [*self.compiler, *argv]
        environment = _chain_environment(self.compiler)
        transformed = [i.result for i in self.inputs if i.result is not None and i.result.changed]
        if self.command.is_dry_run() or (not replaced and not transformed):
            status = subprocess.run(compiler, env=environment, input=self.stdin).returncode
        else:
            completed = subprocess.run(compiler, capture_output=True, env=environment, input=self.stdin)
            status = completed.returncode
            stdout = completed.stdout.decode("utf-8", "surrogateescape")
            stdout = _restore_paths(stdout, replaced) if self.command.dependencies_on_stdout() \
                else _name_originals(stdout, replaced)
            _write_through(sys.stdout, stdout)
            stderr = _name_originals(completed.stderr.decode("utf-8", "surrogateescape"), replaced)
            stderr, notes = locate_generated_diagnostics(stderr, transformed)
            _write_through(sys.stderr, stderr)
            for note in notes:
                self._error(note)
        for path in self.command.dependency_outputs():
            _restore_dependency_file(path, replaced)
        self._restore_preprocessed_output(replaced)
        if status < 0:
            _print(self.err, CommandError(rules.NVCC_KILLED, "killed", signal=_signal_name(-status)))
            return 128 - status
        return status

    def _restore_preprocessed_output(self, replaced: dict[str, str]) -> None:
        """-E/-cuda written to a file (ccache preprocesses with `-E -o FILE`): the copies' paths in its line
        markers become the user's, so the text is the same whatever temporary directory pdcc used."""
        output = self.command.output_file()
        if not replaced or output is None or self.command.phase not in ("E", "cuda") or not os.path.isfile(output):
            return
        try:
            data = Path(output).read_bytes()
            restored = _name_originals(data.decode("utf-8", "surrogateescape"), replaced, quoted=True)
            if restored.encode("utf-8", "surrogateescape") != data:
                write_atomically(output, restored.encode("utf-8", "surrogateescape"))
        except OSError as exc:
            raise PdccError.at(rules.OUTPUT_FAILED, Location(output, 1, 1), "preprocessed-output", path=output,
                               reason=exc.strerror or str(exc)) from exc

    def _device_runtime_flags(self) -> list[str]:
        """-rdc=true and -lcudadevrt when the program launches kernels from the device without them; the PDCC700
        remark says so on standard error before nvcc runs (unless -q), with how to link such objects at -c."""
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
            remark = Remark(Kind.ANALYSIS, rules.RDC_ADDED, rules.RDC_ADDED.render(args),
                            Location(launching[0].source.display_path, 1, 1), pass_name="build", args=args)
            self.remarks.append(remark)
            launching[0].remarks.append(remark)
        return flags

    def _say_device_runtime_flags(self) -> None:
        """PDCC700 on standard error (unless -q or -v) just before nvcc runs, with how to link objects compiled
        so where pdcc does not device-link them itself (-lib, -ptx, ...)."""
        if self.command.verbose or self.options.quiet:
            return
        from pragmadp.explain import ADVICE
        for remark in self.remarks:
            if remark.rule is rules.RDC_ADDED:
                linked = self.command.links() or self.command.compiled_objects()
                advice = "" if linked else f"\n  = help: {ADVICE[rules.RDC_ADDED.id]}"
                print_diagnostic(self.err, remark_line(remark) + advice)

    def _device_link_alone(self) -> None:
        """-c with the -rdc=true pdcc added: each object is device-linked on its own (`nvcc -dlink`, then
        `ld -r` of the object and its device link into the object, the registration functions made local), as
        CMake's CUDA_RESOLVE_DEVICE_SYMBOLS does
        for a library. The object then links with any linker, as one compiled without -rdc would (CMake links a
        target without separable compilation with the host compiler); it calls no device code of other objects,
        which without -rdc it could not either. PDCC701 per object; PdccError (PDCC310) when a step fails."""
        for path in self.command.compiled_objects():
            linked, combined, local = (f"{path}.pdcc-{part}" for part in ("dlink.o", "combined.o", "local"))
            try:
                # -v: nvcc names its library folders (`#$ LIBRARIES=...`), where libcudadevrt.a is
                shown = self._link_step(path, [*self.compiler, *self.command.device_link_options(), "-v", "-dlink",
                                               path, "-o", linked])
                folders = [arg for line in shown.splitlines() if line.startswith("#$ LIBRARIES=")
                           for arg in shlex.split(line.partition("=")[2]) if arg.startswith("-L")]
                # the host side of the device runtime comes in too, so that its registration calls this
                # object's device link and the final link needs no cudadevrt member of its own
                self._link_step(path, ["ld", "-r", path, linked, *folders, "-lcudadevrt", "-o", combined])
                # what the device link and the runtime define (registration functions, fatbin wrappers, the
                # runtime's tables) is local to the object: two objects linked alone do not define it twice;
                # and the relocatable device code is renamed out of nvlink's sight, so that an nvcc link (with
                # -rdc=true or not) does not device-link it again
                added = sorted(global_definitions(combined) - global_definitions(path))
                Path(local).write_text("".join(f"{name}\n" for name in added))
                self._link_step(path, ["objcopy", f"--localize-symbols={local}",
                                       *(f"--rename-section={name}=.pdcc{name}" for name in _RELOCATABLE_SECTIONS),
                                       combined])
                os.replace(combined, path)
            except OSError as exc:
                raise PdccError.at(rules.DEVICE_LINK_FAILED, Location(path, 1, 1), "step", object=path,
                                   command="ld -r", status=exc.strerror or str(exc), output="") from exc
            except PdccError:
                with contextlib.suppress(OSError):
                    os.unlink(path)  # as a compiler that fails: no object a later make would take as built
                raise
            finally:
                for leftover in (linked, combined, local):
                    with contextlib.suppress(OSError):
                        os.unlink(leftover)
            args = {"object": path}
            remark = Remark(Kind.ANALYSIS, rules.DEVICE_LINKED_ALONE, rules.DEVICE_LINKED_ALONE.render(args),
                            Location(path, 1, 1), pass_name="build", args=args)
            self.remarks.append(remark)
            next(r for r in self.results.values() if r.uses_device_launches).remarks.append(remark)
            self._print_selected_remarks([remark])

    def _check_device_link(self, extra: list[str]) -> None:
        """A link of objects with relocatable device code and no device link would fail on
        `__cudaRegisterLinkedBinary_*`: PDCC307 says what is wrong instead."""
        if not self.command.links() or self.command.rdc_enabled() or "-rdc=true" in extra:
            return
        objects = [path for _, path in self.command.inputs if path.endswith((".o", ".obj"))]
        needed: dict[str, str] = {}
        defined: set[str] = set()
        for path in objects:
            for symbol, is_defined in linked_binary_symbols(path):
                if is_defined:
                    defined.add(symbol)
                else:
                    needed.setdefault(symbol, path)
        missing = [path for symbol, path in needed.items() if symbol not in defined]
        if missing:
            raise CommandError(rules.LINK_WITHOUT_DEVICE_LINK, "link", object=missing[0])

    def _link_step(self, path: str, step: list[str]) -> str:
        """Runs one step of `_device_link_alone` and returns what it printed; PdccError (PDCC310) with that
        output when it fails."""
        try:
            done = subprocess.run(step, capture_output=True, text=True, errors="replace",
                                  env=_chain_environment(self.compiler))
        except OSError as exc:
            done = subprocess.CompletedProcess(step, 127, "", exc.strerror or str(exc))
        if done.returncode != 0:
            output = (done.stdout + done.stderr).strip()
            raise PdccError.at(rules.DEVICE_LINK_FAILED, Location(path, 1, 1), "step", object=path,
                               command=shlex.join(step), status=f"exit {done.returncode}",
                               output=f": {output}" if output else "")
        return done.stdout + done.stderr

    # ---- reports -------------------------------------------------------------------------------------------------

    def _report(self) -> bool:
        """Writes --report, --report-dir and the terminal summary; False when a report could not be written."""
        from pragmadp.report import collect
        written = True
        if self.options.report:
            try:
                report = self.options.report
                own = self._units()
                with collect.accumulated(report, own) as every:  # the build's earlier commands' units too
                    mine = {unit.path for unit in own}
                    if all(unit.path in mine for unit in every):  # this command's units alone: its own report
                        plain_json = report.lower().endswith(".json") and not report.lower().endswith(".sarif.json")
                        write_report(report, self.remarks, __version__, os.getcwd(), self.knobs,
                                     units=None if plain_json else own)
                    else:
                        write_report(report, self.remarks, __version__, os.getcwd(), units=every)
            except (OSError, collect.UnitFileError) as exc:  # (a unit file beside it that is not one)
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                _print(self.err, CommandError(rules.OUTPUT_FAILED, "report", report=self.options.report,
                                              reason=reason))
                written = False
        if self.options.report_dir:
            for unit in self.inputs:
                result = unit.result
                try:
                    collect.write_unit(self.options.report_dir, _display(unit.path),
                                       result.remarks if result else [unit.error] if unit.error else [],
                                       result.knobs if result else [], result.text if result else None,
                                       _original_text(result) if result else None)
                except OSError as exc:
                    _print(self.err, CommandError(rules.OUTPUT_FAILED, "report-dir",
                                                  directory=self.options.report_dir, reason=exc.strerror or str(exc)))
                    written = False
                    break
        if not self.options.quiet and not self.command.verbose and any(r.kind != Kind.ERROR for r in self.remarks):
            render_terminal(self.remarks, self.err)
        return written

    def _units(self) -> list:
        """One report unit per input that pdcc read (collect.make_unit), for the diffs of a Markdown or HTML report."""
        from pragmadp.report import collect
        return [collect.make_unit(_display(unit.path), unit.result.remarks, unit.result.knobs, unit.result.text,
                                  _original_text(unit.result)) for unit in self.inputs if unit.result is not None]


def _display(path: str) -> str:
    return STDIN_NAME if path == "-" else path


def _original_text(result: pipeline.Result) -> str:
    return result.source.data.decode("utf-8", "replace")


def remark_line(remark: Remark) -> str:
    """A remark as clang prints one: `file:line:col: remark: message [PDCCnnn]`."""
    loc = remark.location
    return f"{loc.file}:{loc.line}:{loc.column}: remark: {remark.message} [{remark.rule.id}]"


# ---- the transformed copies nvcc compiles ------------------------------------------------------------------------

@contextlib.contextmanager
def stable_copy(original: str, data: bytes) -> Iterator[str]:
    """A copy of a transformed input for nvcc, at a path that depends only on its name and its bytes:
    `$TMPDIR/pdcc-<uid>/<hash>/<name>`. The same input gives the same path in every build, so what nvcc (or a
    compiler cache in front of it) preprocesses is the same text, line markers included, and a rebuild hits the
    cache. The folder is private to the user; concurrent pdcc processes that compile the same copy share it
    (a shared lock while nvcc runs) and the last one removes it. The name is the input's own, so nvcc names
    default outputs (`k.o`, `k.d`) as it would.

    Raises PdccError (PDCC304) when the copy cannot be written."""
    name, key = _copy_key(original, data)
    while True:
        base = None
        try:
            base = _private_directory()
            folder = base / key
            folder.mkdir(exist_ok=True)
            lock = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            if base is None:
                raise PdccError.at(rules.OUTPUT_FAILED, Location(original, 1, 1), "temporary-directory",
                                   input=original, reason=exc.strerror or str(exc)) from exc
            if exc.errno == errno.ENOENT:
                continue  # another pdcc removed the folder between our mkdir and open: make it again
            raise PdccError.at(rules.OUTPUT_FAILED, Location(original, 1, 1), "temporary-copy", input=original,
                               directory=str(base / key), reason=exc.strerror or str(exc)) from exc
        target = folder / name
        fcntl.flock(lock, fcntl.LOCK_SH)  # compilers of the same copy share it
        if _still_there(lock, folder / ".lock"):
            if _holds(target, data):
                break
            fcntl.flock(lock, fcntl.LOCK_EX)  # to write it (the shared lock is given up meanwhile)
            if _still_there(lock, folder / ".lock"):
                break
        os.close(lock)  # the last user removed the folder while we waited: start over
    try:
        try:
            if not _holds(target, data):
                partial = folder / f".{name}.{os.getpid()}"
                partial.write_bytes(data)
                os.replace(partial, target)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(folder / f".{name}.{os.getpid()}")
            raise PdccError.at(rules.OUTPUT_FAILED, Location(original, 1, 1), "temporary-copy", input=original,
                               directory=str(folder), reason=exc.strerror or str(exc)) from exc
        fcntl.flock(lock, fcntl.LOCK_SH)
        yield str(target)
    finally:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            pass  # another pdcc still compiles this copy: it removes the folder
        else:
            with contextlib.suppress(OSError):
                os.unlink(target)
            with contextlib.suppress(OSError):
                os.unlink(folder / ".lock")
            with contextlib.suppress(OSError):
                os.rmdir(folder)
            with contextlib.suppress(OSError):
                os.rmdir(folder.parent)  # empty once no pdcc of this user is compiling
        os.close(lock)


def kept_copy(original: str, data: bytes) -> str:
    """The copy a dry run names: `$TMPDIR/pdcc-<uid>/kept/<hash>/<name>`, left in place, because the steps
    `nvcc --dryrun` prints run after pdcc has exited (sccache runs them itself, one by one, and caches each).
    Content-addressed as `stable_copy`'s, so a rebuild names the same file and hits the cache; it is written
    once per content and never removed by pdcc (a temporary directory's own cleanup removes it).

    Raises PdccError (PDCC304) when the copy cannot be written."""
    name, key = _copy_key(original, data)
    folder = None
    try:
        folder = _private_directory() / "kept" / key
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / name
        if not _holds(target, data):
            write_atomically(str(target), data)
        return str(target)
    except OSError as exc:
        raise PdccError.at(rules.OUTPUT_FAILED, Location(original, 1, 1), "temporary-copy", input=original,
                           directory=str(folder), reason=exc.strerror or str(exc)) from exc


def _copy_key(original: str, data: bytes) -> tuple[str, str]:
    """A copy's file name (the input's own, so nvcc names default outputs as it would) and its folder's name."""
    name = os.path.basename(original)
    return name, hashlib.sha256(os.fsencode(name) + b"\0" + data).hexdigest()[:24]


def _private_directory() -> Path:
    """`$TMPDIR/pdcc-<uid>`, made private to this user; refused when someone else owns it or it is a link."""
    base = Path(tempfile.gettempdir()) / f"pdcc-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        base.mkdir(mode=0o700)
    status = os.lstat(base)
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid() or status.st_mode & 0o077:
        raise OSError(errno.EPERM, f"'{base}' is not a private directory of this user")
    return base


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.stat().st_size == len(data) and path.read_bytes() == data
    except OSError:
        return False


def _still_there(descriptor: int, path: Path) -> bool:
    try:
        return os.stat(path).st_ino == os.fstat(descriptor).st_ino
    except FileNotFoundError:
        return False


# ---- nvcc's messages about code pdcc wrote -----------------------------------------------------------------------

# nvcc's front end: `file(12): error: ...`; the host compiler: `file:12:5: error: ...`
_DIAGNOSTIC = re.compile(r"^(?P<file>.+?)(?:\((?P<line>[0-9]+)\)|:(?P<gline>[0-9]+):(?P<col>[0-9]+)):"
                         r" (?P<severity>error|warning|remark|catastrophic error)\b")
_GCC_ECHO = re.compile(r"^\s*[0-9]*\s*\|(?P<text>.*)$")


def locate_generated_diagnostics(text: str, results: Sequence[pipeline.Result]) -> tuple[str, list[Remark]]:
    """nvcc's messages with those about lines pdcc wrote pointed at the user's line of the site (the pragma, or the
    launch under --auto) instead of a line of pdcc's output, and a PDCC308 error for each site (or definition)
    where nvcc found an error."""
    by_name = {r.source.display_path: r for r in results}
    lines = text.split("\n")
    notes: dict[tuple[str, int], Remark] = {}
    for number, line in enumerate(lines):
        match = _DIAGNOSTIC.match(line)
        if match is None or match.group("file") not in by_name:
            continue
        result = by_name[match.group("file")]
        reported = int(match.group("line") or match.group("gline"))
        echoed = lines[number + 1] if number + 1 < len(lines) else None
        if echoed is not None and match.group("gline"):
            echo = _GCC_ECHO.match(echoed)
            echoed = echo.group("text") if echo else None
        generated, site = result.generated_at(reported, echoed)
        if not generated:
            continue
        site = site or _site_whose_value_is_named(line, result)
        source = result.source
        anchor = source.line_of(site.anchor.start) if site else min(reported, source.line_count)
        column = source.column_of(site.anchor.start) if site else 1
        start, end = match.span("line") if match.group("line") else match.span("gline")
        replacement = str(anchor) if match.group("line") else f"{anchor}:{column}"
        end = end if match.group("line") else match.end("col")
        lines[number] = line[:start] + replacement + line[end:]
        if "error" in match.group("severity") and (source.display_path, anchor) not in notes:
            notes[(source.display_path, anchor)] = _generated_code_note(result, site, anchor)
    return "\n".join(lines), list(notes.values())


_QUOTED_NAME = re.compile(r'"([A-Za-z_]\w*)"')


def _site_whose_value_is_named(message: str, result: pipeline.Result) -> pipeline.SiteLines | None:
    """For an error in code pdcc wrote outside a site's statement (a wrapper kernel's flush, a definition),
    the site whose knob the message names, or whose pragma value it names (`identifier "F_UNDEF" is
    undefined` for `coarsen(F_UNDEF)`, used in the wrapper through PDCC_COARSEN_parent_0): that is the user's
    line to look at, not the line pdcc's code was mapped to."""
    named = set(_QUOTED_NAME.findall(message))
    macros = [knob.macro for knob in result.knobs if knob.macro in named or knob.default in named]
    owners = [site for site in result.sites if site.name and any(m.endswith(f"_{site.name}") for m in macros)]
    return max(owners, key=lambda site: len(site.name), default=None)  # `spmv_rows_0` over `rows_0`


def _generated_code_note(result: pipeline.Result, site: pipeline.SiteLines | None, line: int) -> Remark:
    source = result.source
    if site is None:
        error = PdccError.at(rules.GENERATED_CODE_ERROR, Location(source.display_path, line, 1), "definition")
        return error.remark
    macros = ", ".join(k.macro for k in result.knobs if site.name and k.macro.endswith(f"_{site.name}")) or \
        f"PDCC_*_{site.name or '<site>'}"
    pragma = source.data[site.anchor.start:site.anchor.end].lstrip().startswith(b"#")
    return source.error(rules.GENERATED_CODE_ERROR, site.anchor, "site" if pragma else "auto-site",
                        macros=macros).remark


# ---- objects that need a device link -----------------------------------------------------------------------------

_LINKED_BINARY = "__cudaRegisterLinkedBinary_"
#: where an object keeps its relocatable device code and its host references to kernels, variables and
#: constants (what nvlink reads at a device link)
_RELOCATABLE_SECTIONS = ("__nv_relfatbin", ".nvHRKI", ".nvHRKE", ".nvHRDI", ".nvHRDE", ".nvHRCI", ".nvHRCE")


def linked_binary_symbols(path: str) -> list[tuple[str, bool]]:
    """The `__cudaRegisterLinkedBinary_*` symbols of an ELF object, each with whether the object defines it: an
    object with relocatable device code refers to one that only a device-link object defines. Empty for what
    is not a readable 64-bit little-endian ELF file."""
    return [(name, defined) for name, defined, _ in elf_symbols(path) if name.startswith(_LINKED_BINARY)]


def global_definitions(path: str) -> set[str]:
    """The symbols an ELF object defines for other objects (global or weak)."""
    return {name for name, defined, exported in elf_symbols(path) if defined and exported}


def elf_symbols(path: str) -> list[tuple[str, bool, bool]]:
    """An ELF object's symbols: (name, defined here, global or weak). Empty for what is not a readable 64-bit
    little-endian ELF file."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return []
    if data[:4] != b"\x7fELF" or len(data) < 6 or data[4] != 2 or data[5] != 1:
        return []
    try:
        (section_offset,) = struct.unpack_from("<Q", data, 0x28)
        entry_size, count = struct.unpack_from("<HH", data, 0x3A)
        sections = [struct.unpack_from("<IIQQQQIIQQ", data, section_offset + i * entry_size) for i in range(count)]
        symbols: list[tuple[str, bool, bool]] = []
        for _, kind, _, _, offset, size, link, _, _, symbol_size in sections:
            if kind != 2 or symbol_size == 0:  # SHT_SYMTAB
                continue
            strings = sections[link][4]
            for start in range(offset, offset + size, symbol_size):
                name_offset, info, _, section_index = struct.unpack_from("<IBBH", data, start)
                end = data.index(b"\0", strings + name_offset)
                name = data[strings + name_offset:end].decode("ascii", "replace")
                if name:  # 0: SHN_UNDEF; binding 1 global, 2 weak
                    symbols.append((name, section_index != 0, info >> 4 in (1, 2)))
        return symbols
    except (struct.error, IndexError, ValueError):
        return []


# ---- helpers -----------------------------------------------------------------------------------------------------

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
    print_diagnostic(err, error.render_text())


def _reproducer(argv: list[str], details: str, files: dict[str, bytes]) -> tuple[str, dict[str, str]]:
    """Writes a reproducer of a pdcc bug: a directory `pdcc-crash-<hash>` in the temporary directory
    (else the current one) holding the input, the command and the traceback. Returns the PDCC900 help
    line that says where (or why there is none) and its arguments."""
    command = f"cd {shlex.quote(os.getcwd())}\npdcc {shlex.join(argv)}\n"
    files = {**files, "command.txt": command.encode("utf-8", "surrogateescape"), "traceback.txt": details.encode("utf-8", "replace")}
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
    if target.exists() and os.path.exists(original) and os.path.samefile(target, original):
        raise PdccError.at(rules.OUTPUT_FAILED, Location(original, 1, 1), "emit-over-input", directory=directory,
                           input=original)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(str(target), text.encode("utf-8", "surrogateescape"))
        if RUNTIME_INCLUDE in text:  # the emitted file compiles on its own
            write_atomically(str(target.parent / RUNTIME_HEADER), (RUNTIME_DIR / RUNTIME_HEADER).read_bytes())
    except OSError as exc:
        raise PdccError.at(rules.OUTPUT_FAILED, Location(original, 1, 1), "emit", path=str(target),
                           reason=exc.strerror or str(exc)) from exc


def _name_originals(text: str, replaced: dict[str, str], quoted: bool = False) -> str:
    """nvcc's messages with every temporary copy's path replaced by the user's path (`quoted`: also as the
    preprocessor writes them in line markers, backslashes and quotes escaped)."""
    for temporary, original in replaced.items():
        if quoted:
            text = text.replace(f'"{quoted_name(temporary)}"', f'"{quoted_name(original)}"')
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
    if not replaced or not os.path.isfile(path):  # not /dev/null
        return
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
