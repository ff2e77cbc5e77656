"""The catalogue of stable rule ids. Errors are PDCC1xx-3xx, remarks PDCC5xx and up.

Ids never change meaning once released; add new ones at the end of their range.
"""

from __future__ import annotations

from pragmadp.report.remarks import Rule

_WHY_NOT = "{reason}{outcome}"  # what stops a pass at a child, then what happens to the launch

# --- errors in the pragma language (PDCC1xx) -------------------------------------------------
PRAGMA_SYNTAX = Rule("PDCC100", "pragma-syntax", "The pragma text does not follow the pragma grammar.")
UNKNOWN_CLAUSE = Rule("PDCC101", "unknown-clause", "The pragma names a clause that does not exist.")
BAD_VALUE = Rule("PDCC102", "bad-clause-value", "A clause has a value of the wrong kind or range.")
DUPLICATE_CLAUSE = Rule("PDCC103", "duplicate-clause", "A clause appears twice in one pragma.")
CONFLICTING_CLAUSES = Rule("PDCC104", "conflicting-clauses", "Clauses that cannot be used together.")

# --- errors binding pragmas to code (PDCC2xx) ------------------------------------------------
NOT_A_LAUNCH = Rule("PDCC201", "pragma-not-before-launch",
                    "A '#pragma dp' is not followed by a device-side kernel launch statement.")
HOST_LAUNCH = Rule("PDCC202", "pragma-on-host-launch",
                   "A '#pragma dp' annotates a launch in host code; only device-side launches are rewritten.")
UNPARSABLE_REGION = Rule("PDCC203", "unparsable-region",
                         "The annotated code could not be parsed, so it cannot be rewritten safely.")
NOT_AN_IF = Rule("PDCC204", "pragma-not-before-if", "A '#pragma meld' is not followed by an if/else statement.")

# --- errors with inputs and the toolchain (PDCC3xx) ------------------------------------------
UNREADABLE_INPUT = Rule("PDCC301", "unreadable-input", "An input file cannot be read or is not text.")
NVCC_NOT_FOUND = Rule("PDCC302", "nvcc-not-found", "The nvcc compiler could not be found.")
BAD_COMMAND_LINE = Rule("PDCC303", "bad-command-line", "A pdcc option is malformed.")
OUTPUT_FAILED = Rule("PDCC304", "output-failed", "A file pdcc writes (emitted source, report) could not be written.")
NVCC_KILLED = Rule("PDCC305", "nvcc-killed", "nvcc was killed by a signal; pdcc exits with 128 + the signal number.")

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

# --- clauses whose transformation does not exist yet (PDCC6xx) -------------------------------
CLAUSE_NOT_SUPPORTED = Rule("PDCC600", "clause-not-supported-yet",
                            "The clause parses but its transformation is not implemented yet; the launch is left as written.",
                            "{construct} is not supported yet; {outcome}")
PRAGMA_NOT_READ = Rule("PDCC602", "pragma-not-read",
                       "A pdcc pragma pdcc cannot see: written as _Pragma (or through a macro), or in an included header.")
SITE_OPTED_OUT = Rule("PDCC601", "site-opted-out", "'#pragma dp off' keeps --auto away from this launch.")

LAUNCH_BOUNDS = Rule("PDCC530", "launch-bounds-added",
                     "A kernel pdcc rewrites or writes is bounded to the block size the original allowed, so the "
                     "registers fixed at device link still fit its largest block.",
                     "'{kernel}' is compiled for blocks of up to {threads} threads (__launch_bounds__({threads})){why}")

# --- the build (PDCC7xx) ---------------------------------------------------------------------
RDC_ADDED = Rule("PDCC700", "rdc-added",
                 "The result launches kernels from the device; -rdc=true (and -lcudadevrt when linking) was added.")

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
INTERNAL_ERROR = Rule("PDCC900", "internal-error",
                      "pdcc failed on this input: a bug in pdcc. A reproducer is written for the report.")

ALL_RULES = [value for value in list(globals().values()) if isinstance(value, Rule)]
