"""A lossless model of an nvcc command line.

pdcc stands in for nvcc: it must find the ``.cu`` inputs that nvcc will compile, swap them for
rewritten copies, and hand nvcc every other argument byte-for-byte, in order.  That needs a parser
that knows exactly which nvcc options take a value (so ``-o a.cu`` does not make ``a.cu`` an input
and ``-Xcompiler -fPIC`` does not make ``-fPIC`` an nvcc option), which phase the command runs,
and where dependency files go.  Everything here was checked against nvcc 13.0 (``nvcc --help``
plus experiments with ``-dryrun`` and real compiles); the notes below record what nvcc does where
it is not what one would guess.

How nvcc reads its command line (observed, nvcc 13.0):

* Long names take two dashes, short names one (``--rdc`` and ``-output-file`` are unknown).
  A value follows after ``=`` or as the next token; the next token is always taken, even when it
  starts with ``-`` (``-o -x`` writes a file named ``-x``).
* Only ``-l -D -U -I -L -O -t`` also accept a value glued on (``-lcudadevrt``, ``-DX=1``,
  ``-O3``); ``-ofoo``, ``-xcu``, ``-MFx.d``, ``-isystemdir`` are unknown options.  An exact option
  name wins over a glued value (``-lib``, ``-ldir``, ``-time``, ``-Ofc`` are options of their
  own), and ``-D=X`` means ``-D X``.
* ``-x``/``--x`` is one global setting: the last one applies to *every* input, wherever it stands
  (``a.cu -x c++`` compiles ``a.cu`` as C++; ``-x cu`` even sends ``.o`` and ``.a`` inputs through
  the CUDA front end).  Only a lowercase ``.cu`` suffix means CUDA.
* Options files (``-optf``/``--options-file``, comma lists allowed, nestable, paths relative to
  the working directory) are split at whitespace; ``"..."`` groups, a backslash takes the next
  character literally, single quotes are ordinary characters and there are no comments.  An
  option's value cannot continue past the end of the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

# --------------------------------------------------------------------------------------------
# The option table, transcribed from `nvcc --help` (CUDA 13.0): (long name, short name, takes a
# value).  Written out literally so that the behaviour does not depend on the installed nvcc.
# --dependency-output (-MF) and --qpp-config take a value although --help shows no <arg> for them;
# -Xcicc, -Xcudafe and -Xfatbin are accepted by nvcc 13.0 without being listed.
# --------------------------------------------------------------------------------------------
_OPTIONS: tuple[tuple[str, str | None, bool], ...] = (
    # compilation phase
    ("--cuda", "-cuda", False),
    ("--cubin", "-cubin", False),
    ("--fatbin", "-fatbin", False),
    ("--ptx", "-ptx", False),
    ("--optix-ir", "-optix-ir", False),
    ("--ltoir", "-ltoir", False),
    ("--preprocess", "-E", False),
    ("--generate-dependencies", "-M", False),
    ("--generate-nonsystem-dependencies", "-MM", False),
    ("--generate-dependencies-with-compile", "-MD", False),
    ("--generate-nonsystem-dependencies-with-compile", "-MMD", False),
    ("--dependency-output", "-MF", True),
    ("--generate-dependency-targets", "-MP", False),
    ("--compile", "-c", False),
    ("--device-c", "-dc", False),
    ("--device-w", "-dw", False),
    ("--device-link", "-dlink", False),
    ("--link", "-link", False),
    ("--lib", "-lib", False),
    ("--run", "-run", False),
    # files and paths
    ("--output-file", "-o", True),
    ("--pre-include", "-include", True),
    ("--objdir-as-tempdir", "-objtemp", False),
    ("--library", "-l", True),
    ("--define-macro", "-D", True),
    ("--undefine-macro", "-U", True),
    ("--include-path", "-I", True),
    ("--system-include", "-isystem", True),
    ("--library-path", "-L", True),
    ("--output-directory", "-odir", True),
    ("--compiler-bindir", "-ccbin", True),
    ("--allow-unsupported-compiler", "-allow-unsupported-compiler", False),
    ("--archiver-binary", "-arbin", True),
    ("--cudart", "-cudart", True),
    ("--cudadevrt", "-cudadevrt", True),
    ("--libdevice-directory", "-ldir", True),
    ("--target-directory", "-target-dir", True),
    ("--use-local-env", "-use-local-env", False),
    ("--force-cl-env-setup", "-force-cl-env-setup", False),
    # compiler / linker behaviour
    ("--profile", "-pg", False),
    ("--debug", "-g", False),
    ("--device-debug", "-G", False),
    ("--generate-line-info", "-lineinfo", False),
    ("--optimization-info", "-opt-info", True),
    ("--optimize", "-O", True),
    ("--Ofast-compile", "-Ofc", True),
    ("--dopt", "-dopt", True),
    ("--dlink-time-opt", "-dlto", False),
    ("--lto", "-lto", False),
    ("--gen-opt-lto", "-gen-opt-lto", False),
    ("--ftemplate-backtrace-limit", "-ftemplate-backtrace-limit", True),
    ("--ftemplate-depth", "-ftemplate-depth", True),
    ("--no-exceptions", "-noeh", False),
    ("--shared", "-shared", False),
    ("--x", "-x", True),
    ("--std", "-std", True),
    ("--no-host-device-initializer-list", "-nohdinitlist", False),
    ("--no-host-device-move-forward", "-nohdmoveforward", False),
    ("--expt-relaxed-constexpr", "-expt-relaxed-constexpr", False),
    ("--extended-lambda", "-extended-lambda", False),
    ("--expt-extended-lambda", "-expt-extended-lambda", False),
    ("--machine", "-m", True),
    ("--m64", "-m64", False),
    # options passed to one tool
    ("--compiler-options", "-Xcompiler", True),
    ("--linker-options", "-Xlinker", True),
    ("--archive-options", "-Xarchive", True),
    ("--ptxas-options", "-Xptxas", True),
    ("--nvlink-options", "-Xnvlink", True),
    ("--cicc-options", "-Xcicc", True),  # undocumented
    ("--cudafe-options", "-Xcudafe", True),  # undocumented
    ("--fatbin-options", "-Xfatbin", True),  # undocumented
    # driver
    ("--static-global-template-stub", "-static-global-template-stub", True),
    ("--device-entity-has-hidden-visibility", "-device-entity-has-hidden-visibility", True),
    ("--forward-unknown-to-host-compiler", "-forward-unknown-to-host-compiler", False),
    ("--forward-unknown-to-host-linker", "-forward-unknown-to-host-linker", False),
    ("--forward-unknown-opts", "-forward-unknown-opts", False),
    ("--dont-use-profile", "-noprof", False),
    ("--dryrun", "-dryrun", False),
    ("--verbose", "-v", False),
    ("--threads", "-t", True),
    ("--split-compile", "-split-compile", True),
    ("--split-compile-extended", "-split-compile-extended", True),
    ("--fdevice-syntax-only", "-fdevice-syntax-only", False),
    ("--fdevice-time-trace", "-fdevice-time-trace", True),
    ("--keep", "-keep", False),
    ("--keep-dir", "-keep-dir", True),
    ("--save-temps", "-save-temps", False),
    ("--clean-targets", "-clean", False),
    ("--time", "-time", True),
    ("--run-args", "-run-args", True),
    ("--input-drive-prefix", "-idp", True),
    ("--dependency-drive-prefix", "-ddp", True),
    ("--drive-prefix", "-dp", True),
    ("--dependency-target-name", "-MT", True),
    ("--no-align-double", None, False),
    ("--no-device-link", "-nodlink", False),
    # GPU code generation
    ("--gpu-architecture", "-arch", True),
    ("--gpu-code", "-code", True),
    ("--generate-code", "-gencode", True),
    ("--relocatable-device-code", "-rdc", True),
    ("--entries", "-e", True),
    ("--maxrregcount", "-maxrregcount", True),
    ("--use_fast_math", "-use_fast_math", False),
    ("--ftz", "-ftz", True),
    ("--prec-div", "-prec-div", True),
    ("--prec-sqrt", "-prec-sqrt", True),
    ("--fmad", "-fmad", True),
    ("--extra-device-vectorization", "-extra-device-vectorization", False),
    ("--default-stream", "-default-stream", True),
    # generic tool options
    ("--disable-warnings", "-w", False),
    ("--keep-device-functions", "-keep-device-functions", False),
    ("--source-in-ptx", "-src-in-ptx", False),
    ("--restrict", "-restrict", False),
    ("--Wreorder", "-Wreorder", False),
    ("--Wdefault-stream-launch", "-Wdefault-stream-launch", False),
    ("--Wmissing-launch-bounds", "-Wmissing-launch-bounds", False),
    ("--Wext-lambda-captures-this", "-Wext-lambda-captures-this", False),
    ("--Wno-deprecated-declarations", "-Wno-deprecated-declarations", False),
    ("--Wno-deprecated-gpu-targets", "-Wno-deprecated-gpu-targets", False),
    ("--Werror", "-Werror", True),
    ("--resource-usage", "-res-usage", False),
    ("--extensible-whole-program", "-ewp", False),
    ("--no-compress", "-no-compress", False),
    ("--qpp-config", "-qpp-config", True),
    ("--compile-as-tools-patch", "-astoolspatch", False),
    ("--list-gpu-code", "-code-ls", False),
    ("--list-gpu-arch", "-arch-ls", False),
    ("--display-error-number", "-err-no", False),
    ("--no-display-error-number", "-no-err-no", False),
    ("--diag-error", "-diag-error", True),
    ("--diag-suppress", "-diag-suppress", True),
    ("--diag-warn", "-diag-warn", True),
    ("--host-linker-script", "-hls", True),
    ("--augment-host-linker-script", "-aug-hls", False),
    ("--relocatable-link", "-r", False),
    ("--brief-diagnostics", "-brief-diag", True),
    ("--jump-table-density", "-jtd", True),
    ("--relocatable-ptx", "-reloc-ptx", False),
    ("--device-stack-protector", "-device-stack-protector", True),
    ("--compress-mode", "-compress-mode", True),
    ("--frandom-seed", "-frandom-seed", True),
    ("--sanitize", "-sanitize", True),
    ("--jobserver", "-jobserver", False),
    ("--help", "-h", False),
    ("--version", "-V", False),
    ("--options-file", "-optf", True),
)

#: canonical long name -> takes a value
TAKES_VALUE: dict[str, bool] = {long: val for long, _, val in _OPTIONS}
_LONG = frozenset(TAKES_VALUE)
#: short spelling -> canonical long name
_SHORT: dict[str, str] = {short: long for long, short, _ in _OPTIONS if short is not None}
#: short options that also accept a value glued to them (-lfoo, -DX=1, -O3): nvcc 13.0 accepts
#: no others (-ofoo and -xcu are "Unknown option")
GLUED_VALUE_SHORT = ("-l", "-D", "-U", "-I", "-L", "-O", "-t")

#: options that make pdcc pass the command through untouched (CMake probes nvcc with these). Not --dryrun:
#: a dry run of a compile is the plan a compiler cache (sccache) then runs itself, so it must be the plan
#: of compiling what pdcc wrote
QUERY_OPTIONS = frozenset(
    {"--version", "--help", "--list-gpu-arch", "--list-gpu-code"}
)

#: phase option -> phase name, in nvcc's precedence order when several are given (the first
#: present wins; measured by compiling with every pair of phase options)
_PHASES: tuple[tuple[str, str], ...] = (
    ("--generate-nonsystem-dependencies", "MM"),
    ("--generate-dependencies", "M"),
    ("--preprocess", "E"),
    ("--optix-ir", "optix-ir"),
    ("--ptx", "ptx"),
    ("--ltoir", "ltoir"),
    ("--cubin", "cubin"),
    ("--fatbin", "fatbin"),
    ("--cuda", "cuda"),
    ("--device-c", "dc"),
    ("--device-w", "dw"),
    ("--compile", "c"),
    ("--device-link", "dlink"),
    ("--run", "run"),
    ("--lib", "lib"),
    ("--link", "link"),
)
DEFAULT_PHASE = "compile-link"
#: phases that end in a host link
LINKING_PHASES = frozenset({DEFAULT_PHASE, "link", "run"})
#: phases in which nvcc does not compile its .cu inputs (it only lists their dependencies)
_NON_COMPILING_PHASES = frozenset({"M", "MM"})

#: suffixes of inputs that nvcc preprocesses/compiles, and so writes a -MD file for
SOURCE_SUFFIXES = (".cu", ".c", ".cc", ".cpp", ".cxx", ".i", ".ii")


@dataclass(frozen=True)
class Arg:
    """One argument as nvcc sees it: an option (with its value, if any) or an input file.

    ``index`` is the position of its first token in the token stream: the argv position for
    arguments on the command line, ``len(argv)`` and up (in reading order) for arguments read
    from options files.  ``tokens`` are the tokens exactly as written (two for ``-o x``).
    """

    index: int
    tokens: tuple[str, ...]
    kind: str  # "option" | "input" | "unknown" (an option nvcc's table lacks: passed through)
    name: str | None = None  # canonical long name of an option, e.g. "--output-file"
    value: str | None = None  # the value, with a leading "=" removed; None if none was given
    form: str | None = None  # how the value was written: "separate" | "=" | "glued" | None
    origin: str | None = None  # the options file it was read from (as named); None: argv
    parent: int | None = None  # index of the --options-file Arg that read it

    @property
    def missing_value(self) -> bool:
        """An option that takes a value but has none (nvcc will report the error itself)."""
        return (self.kind == "option" and self.name is not None and TAKES_VALUE.get(self.name, False)
                and self.value is None)


@dataclass(frozen=True)
class OptionsFile:
    """An options file that was read (or could not be: ``error`` says why)."""

    path: str  # as named on the command line / in the including file
    resolved: str  # the path that was opened
    tokens: tuple[str, ...]
    first_index: int  # index given to its first token
    parent: int  # index of the --options-file Arg that names it
    error: str | None = None


@dataclass(frozen=True)
class NvccCommand:
    """A parsed nvcc command line: every argument in nvcc's reading order, plus queries."""

    argv: tuple[str, ...]
    args: tuple[Arg, ...]  # flattened: options-file contents follow the option that read them
    options_files: tuple[OptionsFile, ...] = ()
    cwd: str = field(default=".", compare=False)

    # ---- basic queries -------------------------------------------------------------------

    def options(self, name: str) -> list[Arg]:
        """All occurrences of the option with canonical long name ``name``, in order."""
        return [a for a in self.args if a.kind == "option" and a.name == name]

    def has_option(self, name: str) -> bool:
        return bool(self.options(name))

    def values(self, name: str, split_commas: bool = False) -> list[str]:
        """Values of an option in order; nvcc's list options also take ``a,b`` for ``a b``."""
        out: list[str] = []
        for a in self.options(name):
            if a.value is None:
                continue
            out.extend(a.value.split(",") if split_commas else [a.value])
        return out

    def last_value(self, name: str) -> str | None:
        """The value that counts for a single-valued option: nvcc keeps the last one."""
        vals = self.values(name)
        return vals[-1] if vals else None

    @property
    def inputs(self) -> list[tuple[int, str]]:
        """(index, path) of every input file, in order (paths relative to the working dir)."""
        return [(a.index, a.value) for a in self.args if a.kind == "input" and a.value is not None]

    @property
    def language(self) -> str | None:
        """The ``-x`` language ("c", "c++", "cu"); the last -x applies to all inputs."""
        return self.last_value("--x")

    @property
    def verbose(self) -> bool:
        return self.has_option("--verbose")

    @property
    def phase(self) -> str:
        """Which stage nvcc stops at (see _PHASES); ``-dlink`` with -cubin/-fatbin stays "dlink"."""
        present = {a.name for a in self.args if a.kind == "option"}
        for opt, phase in _PHASES:
            if opt in present:
                if phase in ("cubin", "fatbin") and "--device-link" in present:
                    return "dlink"  # a device link whose product is a cubin/fatbin
                return phase
        return DEFAULT_PHASE

    def is_query(self) -> bool:
        """True when nvcc only reports something (version, help, dry run, arch lists) or gets
        no arguments: pdcc must pass those through byte-for-byte and print nothing itself."""
        if not self.argv:
            return True
        return any(a.kind == "option" and a.name in QUERY_OPTIONS for a in self.args)

    def is_dry_run(self) -> bool:
        """``--dryrun``: nvcc prints the steps of the compile (``#$ cicc ...``) and runs none of them."""
        return self.has_option("--dryrun")

    def output_file(self) -> str | None:
        """The ``-o`` value (the last one counts), or None."""
        return self.last_value("--output-file")

    # ---- what pdcc acts on -----------------------------------------------------------------

    def cuda_inputs(self) -> list[tuple[int, str]]:
        """The inputs nvcc compiles as CUDA: ``.cu`` files, or every input under ``-x cu`` and
        none under ``-x c``/``-x c++``.  Empty for queries, ``--clean-targets`` and -M/-MM,
        which compile nothing.  -dlink, -lib, -ptx, -E, ... do compile ``.cu`` inputs given to
        them (checked with nvcc -dryrun), so those count."""
        if self.is_query() or self.phase in _NON_COMPILING_PHASES:
            return []
        if self.has_option("--clean-targets"):
            return []
        lang = self.language
        if lang == "cu":
            return self.inputs
        if lang is not None:
            return []
        return [(i, p) for i, p in self.inputs if p.endswith(".cu")]

    def rdc_enabled(self) -> bool:
        """Relocatable device code: ``-dc``, or the last ``-rdc``/``--relocatable-device-code``
        value is ``true``.  ``-dw`` means ``-rdc=false -c``."""
        if self.has_option("--device-c"):
            return True
        return self.last_value("--relocatable-device-code") == "true"

    def links(self) -> bool:
        """Whether the command ends in a host link (default phase, -link, -run)."""
        return self.phase in LINKING_PHASES

    def has_library(self, name: str) -> bool:
        """Whether ``-l name`` is given in any spelling (``-lname``, ``-l name``, ``-l=name``,
        ``--library name``, ``--library=name``, or in a comma list)."""
        return name in self.values("--library", split_commas=True)

    def links_cudadevrt(self) -> bool:
        """Whether a link would include the device runtime: nvcc 13 adds -lcudadevrt by itself
        unless ``--cudadevrt none``."""
        return self.has_library("cudadevrt") or self.last_value("--cudadevrt") != "none"

    def dependencies_on_stdout(self) -> bool:
        """-M/-MM with neither -o nor -MF print the dependency rules on stdout."""
        if self.is_query() or self.phase not in ("M", "MM"):
            return False
        return self.output_file() is None and self.last_value("--dependency-output") is None

    def dependency_outputs(self) -> list[str]:
        """The dependency files nvcc will write, as it names them (relative to the cwd).

        -M/-MM: ``-o`` if given (it beats -MF), else -MF, else stdout (no file).
        -MD/-MMD: -MF if given; else the -o value with its suffix replaced by ``.d``; else, for
        each source input, its *basename* with the suffix replaced by ``.d``, in the -odir
        directory or the current directory (not beside the input: ``src/k.cu`` -> ``k.d``).
        The suffix is what follows the last dot of the basename, so ``-o out/.hidden`` gives
        ``out/.d`` and ``-o app`` gives ``app.d`` (all observed with nvcc 13.0).
        """
        if self.is_query():
            return []
        phase = self.phase
        if phase in ("M", "MM"):
            target = self.output_file() or self.last_value("--dependency-output")
            return [target] if target else []
        with_compile = self.has_option("--generate-dependencies-with-compile") or self.has_option(
            "--generate-nonsystem-dependencies-with-compile"
        )
        if not with_compile or phase == "E":  # -MD with -E is an nvcc error
            return []
        mf = self.last_value("--dependency-output")
        if mf:
            return [mf]
        out = self.output_file()
        if out:
            return [_replace_suffix(out, ".d")]
        odir = self.last_value("--output-directory") or ""
        lang = self.language
        srcs = [p for _, p in self.inputs if lang is not None or p.endswith(SOURCE_SUFFIXES)]
        return [os.path.join(odir, _replace_suffix(os.path.basename(p), ".d")) for p in srcs]

    def compiled_objects(self) -> list[str]:
        """-c: the object each CUDA input compiles to, as nvcc names it: ``-o``, else the input's basename
        with ``.o`` in the -odir directory or the current directory. Empty in every other phase."""
        if self.is_query() or self.phase != "c":
            return []
        out = self.output_file()
        if out:
            return [out]
        odir = self.last_value("--output-directory") or ""
        return [os.path.join(odir, _replace_suffix(os.path.basename(p), ".o")) for _, p in self.cuda_inputs()]

    def device_link_options(self) -> list[str]:
        """The options a device link of this command's objects must repeat: the targets (-arch, -code,
        -gencode), the host compiler and its options (for the link stub nvcc compiles)."""
        kept = ("--gpu-architecture", "--gpu-code", "--generate-code", "--compiler-bindir", "--compiler-options")
        return [f"{a.name}={a.value}" for a in self.args if a.kind == "option" and a.name in kept]

    # ---- rewriting ---------------------------------------------------------------------------

    def with_inputs_replaced(self, mapping: Mapping[int, str]) -> list[str]:
        """A new argv with the input at each index (see ``inputs``) replaced, everything else
        byte-identical and in order.

        An input read from an options file cannot be changed in place without writing a file,
        so the ``--options-file`` argument that read it is expanded inline instead: its
        tokens are replaced by the tokens of the file(s) it names, with the replacement made.
        nvcc reads an options file exactly as if its tokens stood in place of the option (values
        never span the end of a file), so the command means the same.  Nested options files
        are expanded only as far as needed; other options files stay as they were.
        """
        return self._rewrite(mapping, (), ())

    def with_extra_args(
        self, before_inputs: Sequence[str] = (), at_end: Sequence[str] = ()
    ) -> list[str]:
        """argv with ``before_inputs`` inserted just before the first input (or the options-file
        argument holding it) and ``at_end`` appended.  Insertion happens only between whole
        arguments, so an added token can never become another option's value; for the same
        reason ``at_end`` goes before a trailing option that lacks its value."""
        return self._rewrite({}, tuple(before_inputs), tuple(at_end))

    def rewritten(
        self,
        mapping: Mapping[int, str] | None = None,
        before_inputs: Sequence[str] = (),
        at_end: Sequence[str] = (),
    ) -> list[str]:
        """with_inputs_replaced and with_extra_args in one go."""
        return self._rewrite(mapping or {}, tuple(before_inputs), tuple(at_end))

    def _rewrite(
        self, mapping: Mapping[int, str], before_inputs: tuple[str, ...], at_end: tuple[str, ...]
    ) -> list[str]:
        input_idx = {a.index for a in self.args if a.kind == "input"}
        bad = set(mapping) - input_idx
        if bad:
            raise KeyError(f"not input indices: {sorted(bad)}")
        children: dict[int | None, list[Arg]] = {}
        for a in self.args:
            children.setdefault(a.parent, []).append(a)

        def holds(a: Arg, pred) -> bool:
            if pred(a):
                return True
            return any(holds(c, pred) for c in children.get(a.index, ()))

        def render(a: Arg) -> list[str]:
            if a.kind == "input" and a.index in mapping:
                return [mapping[a.index]]
            kids = children.get(a.index)
            if kids and any(holds(c, lambda x: x.kind == "input" and x.index in mapping) for c in kids):
                return [tok for c in kids for tok in render(c)]
            return list(a.tokens)

        top = children.get(None, [])
        first_input = next((k for k, a in enumerate(top) if holds(a, lambda x: x.kind == "input")), None)
        end_at = len(top)
        if top and top[-1].missing_value:
            end_at -= 1
        out: list[str] = []
        for k, a in enumerate(top):
            if k == first_input:
                out.extend(before_inputs)
            if k == end_at:
                out.extend(at_end)
            out.extend(render(a))
        if first_input is None:
            out.extend(before_inputs)
        if end_at == len(top):
            out.extend(at_end)
        return out


# ---- parsing ---------------------------------------------------------------------------------


def parse_nvcc_args(argv: Iterable[str], cwd: str | None = None) -> NvccCommand:
    """Parse nvcc's arguments (without the program name).  Options files are read (relative to
    ``cwd``, default the current directory) so that their inputs and options are seen; a file
    that cannot be read is recorded with its error and left to nvcc to report."""
    argv = tuple(argv)
    state = _ParseState(cwd or os.getcwd(), len(argv))
    args = state.parse_stream(argv, first_index=0, origin=None, parent=None, reading=())
    return NvccCommand(argv=argv, args=tuple(args), options_files=tuple(state.files), cwd=state.cwd)


class _ParseState:
    def __init__(self, cwd: str, next_index: int):
        self.cwd = cwd
        self.next_index = next_index  # next free index for options-file tokens
        self.files: list[OptionsFile] = []

    def parse_stream(
        self,
        tokens: tuple[str, ...],
        first_index: int,
        origin: str | None,
        parent: int | None,
        reading: tuple[str, ...],
    ) -> list[Arg]:
        out: list[Arg] = []
        k = 0
        while k < len(tokens):
            arg, used = _classify(tokens, k, first_index + k, origin, parent)
            out.append(arg)
            k += used
            if arg.kind == "option" and arg.name == "--options-file" and arg.value:
                for path in arg.value.split(","):
                    out.extend(self.read_file(path, arg.index, reading))
        return out

    def read_file(self, path: str, parent: int, reading: tuple[str, ...]) -> list[Arg]:
        resolved = os.path.normpath(os.path.join(self.cwd, path))
        first = self.next_index
        try:
            if resolved in reading:
                raise OSError("options file includes itself")
            with open(resolved, encoding="utf-8", errors="surrogateescape") as f:
                tokens = tuple(split_options_file(f.read()))
        except OSError as e:
            self.files.append(OptionsFile(path, resolved, (), first, parent, str(e)))
            return []
        self.next_index += len(tokens)
        self.files.append(OptionsFile(path, resolved, tokens, first, parent))
        return self.parse_stream(tokens, first, path, parent, reading + (resolved,))


def _classify(
    tokens: tuple[str, ...], k: int, index: int, origin: str | None, parent: int | None
) -> tuple[Arg, int]:
    """Classify tokens[k]; returns the Arg and how many tokens it consumed (1 or 2)."""
    tok = tokens[k]

    def arg(toks, kind, name=None, value=None, form=None):
        return Arg(index, tuple(toks), kind, name, value, form, origin, parent)

    if tok == "-" or not tok.startswith("-"):  # "-" is standard input, an input for nvcc
        return arg([tok], "input", value=tok), 1
    key, eq, rest = tok.partition("=")
    name = (key if key in _LONG else None) if key.startswith("--") else _SHORT.get(key)
    if name is not None:
        if eq:
            return arg([tok], "option", name, rest, "="), 1
        if TAKES_VALUE[name] and k + 1 < len(tokens):
            return arg([tok, tokens[k + 1]], "option", name, tokens[k + 1], "separate"), 2
        return arg([tok], "option", name), 1  # a flag, or a value missing at the end
    for short in GLUED_VALUE_SHORT:
        if tok.startswith(short) and not tok.startswith("--"):
            return arg([tok], "option", _SHORT[short], tok[len(short):].removeprefix("="), "glued"), 1
    return arg([tok], "unknown"), 1


def split_options_file(text: str) -> list[str]:
    """Split an options file the way nvcc 13.0 does: whitespace separates, ``"..."`` groups
    (the quotes are dropped), a backslash makes the next character literal, single quotes are
    plain characters and ``#`` starts no comment.  (nvcc drops an escaped double quote
    altogether; here it is kept as a literal ``"``.)"""
    out: list[str] = []
    cur: list[str] = []
    have = False  # a token is open (even an empty one, from "")
    quoted = False
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            cur.append(text[i + 1])
            have = True
            i += 2
            continue
        if c == '"':
            quoted = not quoted
            have = True
        elif c.isspace() and not quoted:
            if have:
                out.append("".join(cur))
                cur, have = [], False
        else:
            cur.append(c)
            have = True
        i += 1
    if have:
        out.append("".join(cur))
    return out


def _replace_suffix(path: str, suffix: str) -> str:
    """nvcc's suffix replacement: cut the basename at its last dot (even a leading one)."""
    head, base = os.path.split(path)
    dot = base.rfind(".")
    return os.path.join(head, (base[:dot] if dot >= 0 else base) + suffix)
