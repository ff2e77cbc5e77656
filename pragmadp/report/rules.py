"""The catalogue of stable rule ids. Errors are PDCC1xx-3xx, remarks PDCC5xx and up.

Ids never change meaning once released; add new ones at the end of their range.
"""

from __future__ import annotations

from pragmadp.report.remarks import Message, Rule

_WHY_NOT = "{reason}{outcome}"  # what stops a pass at a child, then what happens to the launch

# --- errors in the pragma language (PDCC1xx) -------------------------------------------------
_INTEGER_HELP = ("an integer is a C integer literal below 2^64: decimal, octal (0200), hex (0x80) or binary (0b1), "
                 "with u/l suffixes")
PRAGMA_SYNTAX = Rule("PDCC100", "pragma-syntax", "The pragma text does not follow the pragma grammar.", messages={
    "ends-early": Message("pragma ends too early; expected {expected}"),
    "unexpected": Message("unexpected '{found}' in pragma; expected {expected}"),
})
UNKNOWN_CLAUSE = Rule("PDCC101", "unknown-clause", "The pragma names a clause that does not exist.", messages={
    "unknown": Message("unknown clause '{clause}' in '#pragma {family}'", "known clauses: {known}"),
    "unknown-suggested": Message("unknown clause '{clause}' in '#pragma {family}'; did you mean '{suggestion}'?",
                                 "known clauses: {known}"),
})
BAD_VALUE = Rule("PDCC102", "bad-clause-value", "A clause has a value of the wrong kind or range.", messages={
    "keyword": Message("'{value}' is a C++ keyword or type name, not a macro name",
                       "give a number or the name of a macro you define (-DNAME=...)"),
    "not-non-negative": Message("'{clause}' takes a non-negative integer or a macro name, not '{value}'", _INTEGER_HELP),
    "below-minimum": Message("'{clause}' takes an integer >= {minimum} or a macro name, not '{value}'", _INTEGER_HELP),
    "out-of-range": Message("{value} is outside the range of {kind} values pdcc accepts, {low} to {high}",
                            "the value becomes {macro}"),
    "not-a-fraction": Message("'meld {clause}' takes a profitability between 0 and 1, not '{value}'"),
    "knob-not-a-fraction": Message("-D{macro}={value}: a meld threshold is a profitability between 0 and 1"),
    "fraction-macro-undefined": Message("'meld threshold({value})' names a macro pdcc cannot see: pdcc decides whether "
                                        "to meld when it transforms the file", "define it on the command line, "
                                        "e.g. -D{value}=0.3"),
    "granularity": Message("unknown granularity '{granularity}' in 'consldt'", "use warp, block, multiblock(K) or grid"),
    "granularity-suggested": Message("unknown granularity '{granularity}' in 'consldt'", "did you mean '{suggestion}'?"),
    "multiblock-count": Message("'multiblock' needs the number of blocks per group, e.g. multiblock(8)"),
    "granularity-argument": Message("granularity '{granularity}' takes no argument"),
    "buffer-kind": Message("unknown buffer kind '{kind}'", "use pool (or default) or malloc"),
    "buffer-kind-suggested": Message("unknown buffer kind '{kind}'", "did you mean '{suggestion}'?"),
    "names-a-kernel-variable": Message("'{clause}' names '{name}', a {what} of '{kernel}': each level's consumer is "
                                       "configured where it is launched, outside the kernel, where '{name}' does not exist",
                                       "give a number, a macro (-DNAME=...) or an expression of file-scope constants"),
})
DUPLICATE_CLAUSE = Rule("PDCC103", "duplicate-clause", "A clause appears twice in one pragma.", messages={
    "duplicate": Message("duplicate clause '{clause}'", "first given at column {first_column}; remove one"),
})
CONFLICTING_CLAUSES = Rule("PDCC104", "conflicting-clauses", "Clauses that cannot be used together.", messages={
    "no-clause": Message("'#pragma dp' needs at least one clause, or 'off'", "e.g. '#pragma dp threshold(128)'"),
    "off-with-clauses": Message("'off' cannot be combined with other clauses"),
    "needs-consldt": Message("'{clause}' needs a 'consldt(...)' clause in the same pragma"),
    "agg-threshold-granularity": Message("'agg_threshold' applies to warp and block groups only, not '{granularity}'",
                                         "a multiblock or grid group cannot count its parents before it launches"),
})

# --- errors binding pragmas to code (PDCC2xx) ------------------------------------------------
NOT_A_LAUNCH = Rule("PDCC201", "pragma-not-before-launch",
                    "A '#pragma dp' is not followed by a device-side kernel launch statement.", messages={
    "own-line": Message("'#pragma {family}' must be on a line of its own before the statement it annotates"),
    "two-pragmas": Message("two '#pragma dp' lines before one launch; put all the clauses in one pragma",
                           "e.g. '#pragma dp threshold(64) coarsen(2)'"),
    "no-launch": Message("'#pragma dp' must be followed by a kernel launch statement 'kernel<<<grid, block>>>(args);'"),
})
HOST_LAUNCH = Rule("PDCC202", "pragma-on-host-launch",
                   "A '#pragma dp' annotates a launch in host code; only device-side launches are rewritten.", messages={
    "host-code": Message("'#pragma dp' annotates a launch in host code ('{caller}'); pdcc rewrites launches made from "
                         "__global__ or __device__ functions", "remove the pragma, or move the launch into a kernel"),
    "host-device": Message("'#pragma dp' annotates a launch in __host__ __device__ function '{function}', which also "
                           "runs on the host", "move the launch into a __global__ or __device__ function"),
})
UNPARSABLE_REGION = Rule("PDCC203", "unparsable-region",
                         "The annotated code could not be parsed, so it cannot be rewritten safely.", messages={
    "statement": Message("cannot parse the statement annotated by '#pragma dp'; the file is left untouched"),
    "launch": Message("cannot parse the launch annotated by '#pragma dp'; the file is left untouched"),
})
NOT_AN_IF = Rule("PDCC204", "pragma-not-before-if", "A '#pragma meld' is not followed by an if/else statement.", messages={
    "not-an-if": Message("'#pragma meld' must be followed by an if/else statement"),
})

# --- errors with inputs and the toolchain (PDCC3xx) ------------------------------------------
# `reason` is what the operating system said (strerror).
UNREADABLE_INPUT = Rule("PDCC301", "unreadable-input", "An input file cannot be read or is not text.", messages={
    "unreadable": Message("cannot read input file: {reason}"),
    "not-utf8": Message("input file is not UTF-8 text",
                        "pdcc reads a file with a pdcc pragma as UTF-8: convert it (e.g. iconv -f latin1 -t utf-8); "
                        "a file without one goes to nvcc untouched"),
    "nul-bytes": Message("input file contains NUL bytes; is it a binary?"),
    "lone-carriage-return": Message("this file ends lines with a carriage return alone, which pdcc does not read",
                                    "convert its line ends to LF or CRLF (e.g. with 'dos2unix -c mac')"),
})
NVCC_NOT_FOUND = Rule("PDCC302", "nvcc-not-found", "The nvcc compiler could not be found.", messages={
    "not-found": Message("cannot find nvcc: not on PATH, nor in {places}",
                         "put the CUDA toolkit's bin folder on PATH, or set PDCC_NVCC (or CUDA_PATH) to it"),
    "named-not-found": Message("cannot find nvcc '{compiler}' named by {origin}"),
    "only-pdcc": Message("cannot find nvcc: every 'nvcc' on PATH is pdcc itself ({skipped})",
                         "put the real nvcc on PATH after pdcc's, or set PDCC_NVCC to it"),
    "is-pdcc": Message("the nvcc named by {origin} ('{compiler}') is pdcc itself", "name the real nvcc there"),
})
BAD_COMMAND_LINE = Rule("PDCC303", "bad-command-line",
                        "A pdcc option (or a setting from PDCC_* or pdcc.toml) is malformed.", messages={
    "needs-value": Message("{option} needs a value"),
    "auto-file": Message("cannot read --auto clause file '{path}': {reason}"),
    "report-format": Message("--report {report}: no report format has this extension", "use one of {extensions}"),
    "bad-regex": Message("{option}={regex} is not a regular expression: {reason}"),
    "environment": Message("{variable}: '{value}' is not {expected}"),
    "config-unreadable": Message("cannot read the pdcc configuration '{path}': {reason}"),
    "config-key": Message("{path}: unknown setting '{key}'", "known settings: {known}"),
    "config-type": Message("{path}: '{key}' must be {expected}, not a {found}"),
    "unknown-rule": Message("--explain {rule}: no rule has this id", "rule ids look like PDCC101; "
                            "'pdcc --explain all' lists every rule"),
    "unknown-rule-suggested": Message("--explain {rule}: no rule has this id", "did you mean {suggestion}?"),
})
OUTPUT_FAILED = Rule("PDCC304", "output-failed",
                     "A file pdcc writes (emitted source, report) could not be written.", messages={
    "temporary-directory": Message("no writable temporary directory for pdcc's copy of '{input}': {reason}; set TMPDIR "
                                   "to a writable directory"),
    "temporary-copy": Message("cannot write pdcc's temporary copy of '{input}' in '{directory}': {reason}; free some "
                              "space or set TMPDIR to another directory"),
    "emit-over-input": Message("--emit {directory} would overwrite the input '{input}'; choose another directory"),
    "emit": Message("cannot write '{path}': {reason}"),
    "dependency-file": Message("cannot rewrite the dependency file '{path}': {reason}"),
    "report": Message("cannot write report '{report}': {reason}"),
    "report-format": Message("cannot write report '{report}': cannot tell the report format of '{report}': use one of "
                             "the extensions {extensions}"),
    "report-is-directory": Message("cannot write report '{report}': '{report}' is a directory"),
    "report-no-directory": Message("cannot write report '{report}': directory '{directory}' does not exist"),
    "report-unwritable": Message("cannot write report '{report}': directory '{directory}' is not writable"),
    "report-dir": Message("cannot write unit reports into '{directory}': {reason}"),
    "preprocessed-output": Message("cannot rewrite the preprocessed output '{path}': {reason}"),
})
NVCC_KILLED = Rule("PDCC305", "nvcc-killed", "nvcc was killed by a signal; pdcc exits with 128 + the signal number.",
                   messages={"killed": Message("nvcc was killed by signal {signal}")})
_REPORT_USAGE = "usage: pdcc report DIR -o FILE.{{md,sarif,json,html}} [--report-root ROOT] [--bench FILE]"
REPORT_INPUT = Rule("PDCC306", "report-input",
                    "`pdcc report` cannot merge its input: the command line, the report directory or a file in it.",
                    messages={
    "usage": Message("pdcc report needs the report directory and an output file", _REPORT_USAGE),
    "unknown-option": Message("unknown option '{option}' for pdcc report", _REPORT_USAGE),
    "needs-value": Message("{option} needs a value", _REPORT_USAGE),
    "extra-argument": Message("pdcc report takes one report directory, not also '{argument}'", _REPORT_USAGE),
    "no-directory": Message("report directory '{directory}' does not exist",
                            "build with `--report-dir {directory}` first (e.g. make NVCC='pdcc --report-dir {directory}')"),
    "not-a-directory": Message("'{directory}' is not a directory", "give the directory the build wrote with "
                               "--report-dir"),
    "unreadable-directory": Message("cannot read the report directory '{directory}': {reason}"),
    "empty": Message("'{directory}' holds no unit reports (*.pdcc.json): nothing to merge",
                     "build with `--report-dir {directory}` first (e.g. make NVCC='pdcc --report-dir {directory}')"),
    "bad-unit": Message("cannot read unit report '{path}': {reason}",
                        "remove it, or rebuild that translation unit with this pdcc"),
    "bench": Message("cannot read results '{path}': {reason}", "--bench takes the JSON that pdcc tune or make bench "
                     "writes"),
})
LINK_WITHOUT_DEVICE_LINK = Rule("PDCC307", "link-without-device-link",
                                "An object holds relocatable device code (-rdc=true), and the link does not link "
                                "device code, so the host link would fail on __cudaRegisterLinkedBinary_*.", messages={
    "link": Message("'{object}' holds relocatable device code (compiled with -rdc=true: pdcc adds it where the code "
                    "launches kernels from the device), but this link does not link device code",
                    "add -rdc=true to this command (nvcc then does the device link), or link with it an object made "
                    "by 'nvcc -dlink' of the same objects; CMake: CUDA_SEPARABLE_COMPILATION ON"),
})
GENERATED_CODE_ERROR = Rule("PDCC308", "error-in-generated-code",
                            "nvcc reported an error in code pdcc wrote for a site (a clause value that names an "
                            "undefined macro, or a bug in pdcc).", messages={
    "site": Message("nvcc's error above is in the code pdcc wrote for this pragma's site",
                    "check the pragma's values: each becomes a macro ({macros}) in that code, and a value that "
                    "names a macro needs it defined where the file is compiled"),
    "auto-site": Message("nvcc's error above is in the code pdcc wrote for this launch under --auto",
                         "check the --auto clauses' values: each becomes a macro ({macros}) in that code"),
    "definition": Message("nvcc's error above is in a definition pdcc wrote, not in your code",
                          "this is likely a bug in pdcc: please report it with the file and the command line"),
})
MISSED_IS_ERROR = Rule("PDCC309", "missed-is-error",
                       "--Werror-missed: a site that pdcc could not transform as asked stops the build.", messages={
    "missed": Message("{count} missed remark(s) with --Werror-missed: nothing was compiled",
                      "each is shown above with its reason; change the code or the pragma, or drop --Werror-missed"),
})
DEVICE_LINK_FAILED = Rule("PDCC310", "device-link-failed",
                          "pdcc could not device-link an object compiled with the -rdc=true it added.", messages={
    "step": Message("cannot device-link '{object}' on its own: '{command}' failed ({status}){output}",
                    "add -rdc=true to your own flags and device-link the program (nvcc -rdc=true at the link, "
                    "or CMake's CUDA_SEPARABLE_COMPILATION ON); pdcc then adds nothing"),
})
DRY_RUN_NEEDS_DEVICE_LINK = Rule("PDCC311", "dry-run-needs-device-link",
                                 "A dry run (what sccache in front of pdcc runs) of a compile that needs the device "
                                 "link pdcc adds after it, which the printed steps cannot hold.", messages={
    "dry-run": Message("a dry run of this compile cannot hold the device link pdcc adds after it (-c without "
                       "-rdc=true of your own, with launches from the device): the object the printed steps make "
                       "would fail the host link",
                       "put -rdc=true in your own flags (CMake: CUDA_SEPARABLE_COMPILATION ON), or run pdcc in "
                       "front of the cache (CMAKE_CUDA_COMPILER_LAUNCHER=\"pdcc;sccache\")"),
})

# --- threshold pass (PDCC5xx) ----------------------------------------------------------------
THRESHOLD_APPLIED = Rule("PDCC500", "threshold-applied",
                         "Launch guarded by a thread-count threshold with a serial fallback in the parent thread.",
                         "launch of '{child}' runs serially in the parent thread below {macro} (= {default}) child threads")
THREAD_COUNT = Rule("PDCC501", "thread-count",
                    "How the number of child threads was derived from the launch configuration.",
                    "child-thread count {thread_count} from {derivation}")
CHILD_BARRIER = Rule("PDCC510", "child-uses-barrier", "The child synchronises its threads; it cannot run serially.", _WHY_NOT)
CHILD_SHARED = Rule("PDCC511", "child-uses-shared-memory", "The child uses shared memory; it cannot run serially.", _WHY_NOT)
CHILD_WARP = Rule("PDCC512", "child-uses-warp-intrinsic", "The child uses warp-level intrinsics; it cannot run serially.", _WHY_NOT)
CHILD_COOPERATIVE = Rule("PDCC513", "child-uses-cooperative-groups",
                         "The child uses cooperative groups; it cannot run serially.", _WHY_NOT)
CHILD_RECURSIVE = Rule("PDCC514", "child-launches-itself", "The child launches itself; serialising it could recurse without bound.", _WHY_NOT)
CHILD_LAUNCHES = Rule("PDCC522", "child-launches-kernels",
                      "The child launches kernels itself; pdcc's serial, coarsened and aggregated copies of its body "
                      "would hold those launches without their pragmas and checks.", _WHY_NOT)
LAUNCH_FORM = Rule("PDCC523", "launch-form-unsupported",
                   "The launch is written in a form pdcc does not rewrite (e.g. no block size in its configuration).",
                   _WHY_NOT)
CHILD_UNSEEN = Rule("PDCC524", "child-calls-unseen-function",
                    "The child calls a device function defined in another translation unit, which pdcc cannot read.",
                    _WHY_NOT)
CHILD_SLEEPS = Rule("PDCC525", "child-sleeps",
                    "The child calls __nanosleep; its serial version beside launching lanes of the same warp hangs.",
                    _WHY_NOT)
CHILD_WAITS = Rule("PDCC526", "child-waits",
                   "The child waits in a loop for another thread; run one thread after another, it would wait forever.",
                   _WHY_NOT)
CHILD_UNKNOWN = Rule("PDCC515", "child-not-found",
                     "The launched kernel is not defined in this file, so pdcc cannot build its serial version.", _WHY_NOT)
CHILD_ASM = Rule("PDCC516", "child-uses-inline-asm", "The child contains inline assembly pdcc cannot reason about.", _WHY_NOT)
CHILD_HIDDEN_BUILTINS = Rule("PDCC518", "child-builtins-hidden",
                             "The child reads thread or block indices through a helper function, macro or lambda "
                             "that pdcc does not rewrite.", _WHY_NOT)
STREAM_ORDER = Rule("PDCC519", "launch-into-a-stream",
                    "The launch names a stream; running the child serially at once would break that stream's order.",
                    "the launch goes into stream '{stream}' (a tail launch or an ordered stream); running '{child}' "
                    "serially right away would break that order, so it is not thresholded")
EARLIER_LAUNCH = Rule("PDCC520", "serial-path-after-earlier-launch",
                      "An earlier launch of the parent may still run when this child's work runs serially.",
                      "the launch at line {earlier_line} goes into the same stream: a launched '{child}' waits for it, "
                      "the serial path below the threshold does not; make sure the two do not share data")
# PDCC521 (device launch in a loop beside the serial path) is retired: the hang it warned of is fixed.
CHILD_UNSUPPORTED = Rule("PDCC517", "child-signature-unsupported",
                         "The child's parameter list has a form pdcc cannot forward to a serial version.", _WHY_NOT)

# --- coarsen pass (PDCC55x) --------------------------------------------------------------------
COARSEN_APPLIED = Rule("PDCC550", "coarsen-applied",
                       "Child launched with fewer blocks, each doing the work of several original blocks.",
                       "'{child}' coarsened: each block runs {macro} (= {default}) original blocks")

# --- aggregate pass (PDCC56x) -------------------------------------------------------------------
AGGREGATE_APPLIED = Rule("PDCC560", "aggregate-applied",
                         "The launches of a group of parents become one launch of an aggregated child grid.",
                         "launches of '{child}' aggregated per {granularity}{blocks}; {uniform_count} of {parameters} "
                         "arguments passed once per group")
AGGREGATE_STORAGE = Rule("PDCC561", "aggregate-storage", "Device memory reserved for an aggregated site's records.",
                         "record storage: a pool of {pool_macro} (= {pool_mib} MiB) reserved on the device; each group "
                         "takes {wanted}, of {fields} arguments plus grid and block, at run time, up to its share of the "
                         "pool; a record that does not fit launches directly{malloc}")

# --- consolidate pass (PDCC57x) -----------------------------------------------------------------
CONSOLIDATE_APPLIED = Rule("PDCC570", "consolidate-applied",
                           "The launches of a kernel by itself (or by the kernels it launches: mutual recursion) become "
                           "work items, run level by level by consumer grids that tail-launch one another.",
                           "launches of '{kernel}' by {launcher} consolidated per {granularity}: each becomes a work "
                           "item ({fields}) of the next level, run {mapping} by a consumer of {threads_macro} threads "
                           "per block; each level's last block tail-launches the next{shared}")
CONSOLIDATE_STORAGE = Rule("PDCC571", "consolidate-storage", "Device memory reserved for a consolidated kernel's work "
                           "items.",
                           "work queue of {kernels}: {pool_macro} (= {pool_mib} MiB) reserved on the device, half for "
                           "the items of the level that runs, half for those it appends; a level keeps {per_level}; an "
                           "item past that is launched as a grid of its own, whose items the queue takes while its "
                           "memory lasts; the queue is one per recursion, so two runs of it must not overlap (the "
                           "host's launches of the recursion on two streams at once)")
CONSOLIDATE_POST_WORK = Rule("PDCC572", "consolidate-post-work",
                             "Work after a recursive launch reads what the launched grids write: without device "
                             "synchronization it cannot wait for them.",
                             "this reads '{name}', which the launch of '{kernel}' at line {launch_line} writes in the "
                             "grids it starts; without device synchronization (gone on sm_90) it cannot wait for them, "
                             "so it runs before them; the launches of '{kernel}' are not consolidated")
CONSOLIDATE_REFUSED = Rule("PDCC573", "consolidate-recursion-refused",
                           "A recursion is consolidated whole or not at all, and another launch of the kernel stops it.",
                           "{reason}; the launches of '{kernel}' are not consolidated")
CONSOLIDATE_CLAUSE_UNUSED = Rule("PDCC574", "consolidate-clause-unused",
                                 "A clause of a consolidated launch that changes nothing there.",
                                 "'{clause}' changes nothing here: {why}")

# --- clauses whose transformation does not exist yet (PDCC6xx) -------------------------------
CLAUSE_NOT_SUPPORTED = Rule("PDCC600", "clause-not-supported-yet",
                            "The clause parses but its transformation is not implemented yet; the launch is left as written.",
                            "{construct} is not supported yet; {outcome}")
PRAGMA_NOT_READ = Rule("PDCC602", "pragma-not-read",
                       "A pdcc pragma pdcc cannot see: written as _Pragma (or through a macro), or in an included header.")
SITE_OPTED_OUT = Rule("PDCC601", "site-opted-out", "'#pragma dp off' keeps --auto away from this launch.")
HEADER_NOT_READ = Rule("PDCC603", "header-not-read",
                       "A header the file includes with quotes that pdcc does not read, so its analyses do not see "
                       "its functions.",
                       "'{header}' is not read ({why}): pdcc does not see its functions when it asks what a child's "
                       "or a melded branch's callees do, and takes a call into it for one that does not synchronise, "
                       "share memory or read thread indices")

LAUNCH_BOUNDS = Rule("PDCC530", "launch-bounds-added",
                     "A kernel pdcc rewrites or writes is bounded to the block size the original allowed, so the "
                     "registers fixed at device link still fit its largest block.",
                     "'{kernel}' is compiled for blocks of up to {threads} threads (__launch_bounds__({threads})){why}")

# --- the build (PDCC7xx) ---------------------------------------------------------------------
RDC_ADDED = Rule("PDCC700", "rdc-added",
                 "The result launches kernels from the device; -rdc=true (and -lcudadevrt when linking) was added.",
                 "added {flags}: this code launches kernels from the device")
DEVICE_LINKED_ALONE = Rule("PDCC701", "device-linked-alone",
                           "An object compiled with the -rdc=true pdcc added is device-linked on its own, so it "
                           "links with any linker, as an object compiled without -rdc would.",
                           "'{object}' is device-linked on its own (nvcc -dlink, then ld -r into it): it links with "
                           "any linker, like an object compiled without -rdc")

# --- meld pass (PDCC8xx) -------------------------------------------------------------------------
MELD_APPLIED = Rule("PDCC800", "meld-applied",
                    "The two sides of a divergent if/else are melded into one path: aligned statements run once "
                    "with their differing operands selected by the condition, the rest stay guarded.",
                    "branches melded: {aligned} of {statements} statements aligned, profitability {score} >= "
                    "{macro} (= {threshold}); {selects} selects, {guarded} statements left guarded")
MELD_ALIGNMENT = Rule("PDCC801", "meld-alignment",
                      "Which statements of the two sides were aligned with each other (Smith-Waterman).",
                      "alignment: {pairs}")
MELD_UNPROFITABLE = Rule("PDCC802", "meld-unprofitable",
                         "The melding profitability of the two sides is below the site's threshold.",
                         "profitability {score} is below {macro} (= {threshold}){why}; the if/else is left as written")
MELD_UNIFORM = Rule("PDCC803", "meld-condition-uniform",
                    "The condition is the same for every thread of a warp, so the branch does not diverge.",
                    "the condition '{condition}' does not depend on the thread ({why}): the branch does not diverge, "
                    "nothing to meld")
MELD_TOO_SHORT = Rule("PDCC805", "meld-sides-too-short",
                      "Both sides are a few arithmetic operations without memory access, loop or call: melding saves "
                      "a few instructions per thread, which the memory traffic around them hides.",
                      "both sides are short arithmetic ({then_cost} and {else_cost} cycles, no memory access, loop "
                      "or call): melding would save a few instructions per thread, which the loads and stores "
                      "around them hide; the if/else is left as written")
MELD_BARRIER = Rule("PDCC810", "meld-barrier",
                    "A side synchronises threads; melding would change which threads reach the barrier.", _WHY_NOT)
MELD_WARP = Rule("PDCC811", "meld-warp-intrinsic",
                 "A side uses a warp-level intrinsic, whose result depends on which lanes run it together.", _WHY_NOT)
MELD_COOPERATIVE = Rule("PDCC812", "meld-cooperative-groups",
                        "A side uses cooperative groups, whose collective operations need the branch as written.", _WHY_NOT)
MELD_JUMP = Rule("PDCC813", "meld-jump-out",
                 "A side leaves the branch with break, continue, return or goto.", _WHY_NOT)
MELD_ATOMIC = Rule("PDCC814", "meld-volatile-or-atomic-mismatch",
                   "Aligned statements differ in volatile or atomic access, which a select cannot express.", _WHY_NOT)
MELD_ADDRESS_SPACE = Rule("PDCC815", "meld-address-space-mix",
                          "Aligned accesses are to pointers of different address spaces (shared and global).", _WHY_NOT)
MELD_CONDITION_EFFECTS = Rule("PDCC816", "meld-condition-side-effects",
                              "The condition has side effects (an assignment, an increment or a call) that melding "
                              "would have to reorder.", _WHY_NOT)
MELD_UNSUPPORTED = Rule("PDCC817", "meld-construct-unsupported",
                        "A side holds a statement or declaration pdcc cannot move or guard safely.", _WHY_NOT)
MELD_AUTO = Rule("PDCC804", "meld-candidate",
                 "Under --auto: a divergent if/else that pdcc considered for melding.",
                 "divergent branch considered under --auto{why}")

# --- pdcc itself (PDCC9xx) ----------------------------------------------------------------------
# `cause` is the exception in one line. The help is added by the command once it has written the reproducer
# (or failed to): messages with a help line alone.
INTERNAL_ERROR = Rule("PDCC900", "internal-error",
                      "pdcc failed on this input: a bug in pdcc. A reproducer is written for the report.", messages={
    "pass-site": Message("internal error in pass {pass_name} at this site: {cause}"),
    "pass-file": Message("internal error in pass {pass_name} on this file: {cause}"),
    "site": Message("internal error in pdcc at this site: {cause}"),
    "file": Message("internal error in pdcc on this file: {cause}"),
    "command": Message("internal error in pdcc: {cause}"),
    "reproducer": Message("", "this is a bug in pdcc, not in your code; please report it with the reproducer in "
                              "'{reproducer}' ({files})"),
    "no-reproducer": Message("", "this is a bug in pdcc, not in your code; no reproducer could be written ({reasons})"),
})

ALL_RULES = [value for value in list(globals().values()) if isinstance(value, Rule)]
