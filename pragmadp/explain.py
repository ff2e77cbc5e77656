"""`pdcc --explain PDCCnnn`: a rule's id, name and summary (from report/rules.py), and for the rules a user meets
while getting a build to work, a longer explanation: what it means, why pdcc says it, what to do.

`pdcc --explain all` lists every rule on one line each.
"""

from __future__ import annotations

import difflib
import textwrap

from pragmadp.report import rules
from pragmadp.report.remarks import CommandError, Rule

#: longer explanations, by rule id; a rule without one is explained by its summary alone
EXPLANATIONS: dict[str, str] = {
    "PDCC101": """\
        The pragma names a clause pdcc does not know. pdcc reads `#pragma dp CLAUSE*` and `#pragma meld
        [threshold(X)]` (grammar/pragma.lark); a misspelled clause is an error rather than a pragma silently
        ignored, and nothing is compiled. The message suggests the nearest clause name when there is one.""",
    "PDCC102": """\
        A clause value is an integer literal or the name of a macro you define. Its range depends on the
        clause (coarsen >= 1, a meld threshold between 0 and 1, ...). Each value becomes a macro named after
        the site (e.g. PDCC_THRESHOLD_parent_0), so `-DPDCC_THRESHOLD_parent_0=512` retunes it later.""",
    "PDCC301": """\
        pdcc reads the .cu files it compiles as UTF-8 text. A file that is not UTF-8 (e.g. Latin-1 comments)
        or holds NUL bytes is handed to nvcc untouched when it has no pdcc pragma; with a pragma it is refused,
        at the first byte pdcc cannot read, because its pragmas could not be applied. Convert the file to
        UTF-8 (`iconv -f latin1 -t utf-8`).""",
    "PDCC302": """\
        pdcc transforms the source and runs nvcc on the result. It runs, in this order: the nvcc named in
        launcher style (`pdcc /path/to/nvcc ARGS`), PDCC_NVCC, `nvcc` of pdcc.toml, else the first `nvcc` on
        PATH that is not pdcc itself: a symlink named nvcc that points at pdcc (ccache's masquerade style) is
        skipped, and an nvcc that leads back to pdcc is not run twice.""",
    "PDCC303": """\
        A pdcc option is malformed: a missing value, a --report whose extension names no format, a -Rpass
        regular expression that does not compile, or a bad setting in PDCC_* variables or pdcc.toml (or
        [tool.pdcc] of pyproject.toml). Nothing is compiled; the exit status is 2.""",
    "PDCC307": """\
        Code that launches kernels from the device needs relocatable device code: pdcc compiles it with
        -rdc=true (remark PDCC700). Such objects must be device-linked before the host link, else the host
        link fails with `undefined reference to __cudaRegisterLinkedBinary_...`. nvcc device-links when the
        link command has -rdc=true (`nvcc -rdc=true a.o b.o -o app`); a build that links with another linker
        device-links with `nvcc -dlink a.o b.o -o dlink.o` and links dlink.o too. CMake does this for a target
        with `set_target_properties(T PROPERTIES CUDA_SEPARABLE_COMPILATION ON)`. pdcc finds this mistake at a
        link it runs by reading the objects' symbol tables.""",
    "PDCC308": """\
        nvcc failed in code pdcc wrote. The usual cause is a clause value that names a macro nobody defines:
        `#pragma dp threshold(N_UNDEFINED)` becomes `#define PDCC_THRESHOLD_parent_0 N_UNDEFINED`, used in the
        site's code. nvcc's message is pointed at the pragma's line (not at a line of pdcc's output), and this
        note follows it. Define the macro (-DN_UNDEFINED=128) or write a number.""",
    "PDCC309": """\
        With --Werror-missed (or werror-missed = true in pdcc.toml, PDCC_WERROR_MISSED=1) a missed remark, a
        site pdcc could not transform as its pragma asks, stops the build before anything is compiled, as
        -Werror does for warnings: for CI that insists every pragma takes effect.""",
    "PDCC700": """\
        The transformed code launches kernels from the device (dynamic parallelism), which needs relocatable
        device code, so pdcc added -rdc=true to the compile (and -lcudadevrt to a link). Objects compiled so
        must be device-linked: at -c pdcc does it per object (PDCC701); at other phases (-lib, -ptx, ...) link
        with `nvcc -rdc=true`, or add an `nvcc -dlink` step; in CMake, set CUDA_SEPARABLE_COMPILATION ON on the
        target. Put -rdc=true in your own flags and pdcc adds nothing.""",
    "PDCC310": """\
        At -c without -rdc=true of your own, pdcc compiles with -rdc=true and then device-links the object on
        its own (PDCC701): `nvcc -v -dlink`, `ld -r` with libcudadevrt.a from the folders nvcc names, and
        `objcopy`. One of these steps failed; its command and output are in the message, and the object was
        removed so that no build takes it as done. Install binutils (ld, objcopy) where nvcc runs, or put
        -rdc=true in your own flags and device-link the program yourself.""",
    "PDCC701": """\
        An object compiled at -c with the -rdc=true pdcc added is device-linked on its own, as CMake's
        CUDA_RESOLVE_DEVICE_SYMBOLS does for a library: its device link and the device runtime's host side
        are put into the object, their symbols made local, and its relocatable device code renamed so that
        nvlink does not link it twice. Link it with anything: the host compiler, nvcc, nvcc -rdc=true. Its
        device code sees no other object's, as without -rdc.""",
    "PDCC900": """\
        pdcc failed: a bug in pdcc, not in your code. The message names the pass and the site, and a
        reproducer directory (pdcc-crash-<hash> in the temporary directory) holds the input, the command and
        the traceback. Nothing is compiled.""",
}

#: a help line pdcc prints under a remark where the build needs the user to act (not an error's help: errors
#: carry theirs in their rule's messages)
ADVICE: dict[str, str] = {
    "PDCC700": "objects compiled with -rdc=true need a device link: link with nvcc -rdc=true, or add an "
               "'nvcc -dlink' step (CMake: CUDA_SEPARABLE_COMPILATION ON); 'pdcc --explain PDCC700' says more",
}

_KIND_OF_RULE = {"PDCC1": "error", "PDCC2": "error", "PDCC3": "error", "PDCC9": "error"}


def _rules() -> dict[str, Rule]:
    return {rule.id: rule for rule in rules.ALL_RULES}


def _kind(rule: Rule) -> str:
    return _KIND_OF_RULE.get(rule.id[:5], "remark")


def explain(rule_id: str) -> str:
    """The text `pdcc --explain RULE_ID` prints; CommandError (PDCC303) for an id no rule has."""
    known = _rules()
    if rule_id.lower() == "all":
        return "".join(f"{rule.id}  {rule.name} ({_kind(rule)}): {rule.summary}\n"
                       for rule in sorted(known.values(), key=lambda r: r.id))
    rule = known.get(rule_id.upper()) or known.get(f"PDCC{rule_id}")
    if rule is None:
        by_name = {rule.name: rule for rule in known.values()}
        rule = by_name.get(rule_id)
    if rule is None:
        close = difflib.get_close_matches(rule_id.upper(), known, n=1) or \
            [by_name[name].id for name in difflib.get_close_matches(rule_id, by_name, n=1)]
        if close:
            raise CommandError(rules.BAD_COMMAND_LINE, "unknown-rule-suggested", rule=rule_id, suggestion=close[0])
        raise CommandError(rules.BAD_COMMAND_LINE, "unknown-rule", rule=rule_id)
    lines = [f"{rule.id} {rule.name} ({_kind(rule)})", "", textwrap.fill(rule.summary, 100)]
    if rule.id in EXPLANATIONS:
        lines += ["", textwrap.fill(" ".join(textwrap.dedent(EXPLANATIONS[rule.id]).split()), 100)]
    if rule.messages:
        lines += ["", "messages:"]
        lines += [f"  {message.text or '(help only)'}" for message in rule.messages.values()]
    elif rule.message:
        lines += ["", f"message: {rule.message}"]
    return "\n".join(lines) + "\n"

