"""`pdcc --explain`: every rule has a long explanation, and what is printed reads as text, never as a template."""

from __future__ import annotations

import string

import pytest

from conftest import run_pdcc
from pragmadp import explain
from pragmadp.report import rules
from pragmadp.report.remarks import CommandError, Rule

RULE_IDS = [rule.id for rule in rules.ALL_RULES]


def _words(text: str) -> str:
    """The text with every run of blanks one space (explain wraps lines at 100 columns)."""
    return " ".join(text.split())


def _templates(rule: Rule) -> list[str]:
    return [rule.message, *(template for message in rule.messages.values()
                            for template in (message.text, message.hint))]


def _without_literal_braces(text: str, rule: Rule) -> str:
    """`text` without the literal text of the rule's templates that holds an escaped brace (`{{md,json}}` prints
    `{md,json}`: a brace pdcc itself prints, not a placeholder)."""
    literals = sorted({literal for template in _templates(rule) for literal, *_ in string.Formatter().parse(template)
                       if "{" in literal or "}" in literal}, key=len, reverse=True)
    for literal in literals:
        text = text.replace(literal, "")
    return text


def test_every_rule_has_a_long_explanation():
    """A rule added to rules.py without an explanation in explain.EXPLANATIONS fails here, on purpose."""
    missing = [rule.id for rule in rules.ALL_RULES if rule.id not in explain.EXPLANATIONS]
    assert missing == [], f"rules without an explanation in pragmadp/explain.py: {missing}"
    assert sorted(set(explain.EXPLANATIONS) - set(RULE_IDS)) == []   # none for a rule that does not exist
    assert len(set(RULE_IDS)) == len(RULE_IDS)


@pytest.mark.parametrize("rule", rules.ALL_RULES, ids=RULE_IDS)
def test_explain_shows_id_name_summary_explanation_and_readable_messages(rule: Rule):
    text = explain.explain(rule.id)
    kind = "error" if rule.id[:5] in ("PDCC1", "PDCC2", "PDCC3", "PDCC9") else "remark"
    assert text.startswith(f"{rule.id} {rule.name} ({kind})\n\n")
    assert _words(rule.summary) in _words(text)
    long = _words(explain.EXPLANATIONS[rule.id])
    assert long in _words(text) and long != _words(rule.summary)
    stray = [c for c in _without_literal_braces(text, rule) if c in "{}"]
    assert stray == [], f"a template's brace in --explain {rule.id}:\n{text}"
    for template in filter(None, _templates(rule)):
        assert explain.readable(template, rule) in text
    assert explain.explain(rule.id.lower()) == explain.explain(rule.id[4:]) == explain.explain(rule.name) == text


def test_placeholders_read_as_angle_brackets():
    assert explain.readable("launch of '{child}' runs serially below {macro} (= {default})") == \
        "launch of '<child>' runs serially below <macro> (= <default>)"
    assert explain.readable("usage: -o FILE.{{md,json}} {option}") == "usage: -o FILE.{md,json} <option>"
    assert "message: launch of '<child>' runs serially in the parent thread below <macro> (= <default>) child " \
           "threads" in explain.explain("PDCC500")


def test_why_a_pass_stops_reads_as_its_two_parts():
    """The `{reason}{outcome}` of the rules that say why a pass stops at a child, or at an if/else."""
    for rule_id in ("PDCC510", "PDCC511", "PDCC514", "PDCC515", "PDCC517", "PDCC522", "PDCC523"):
        text = explain.explain(rule_id)
        assert "message: <what stops the pass, and its line>; <what is not done: the launch is left as written" \
               in text, text
    for rule_id in ("PDCC810", "PDCC813", "PDCC817"):
        assert "message: <what stops melding, and where>; the if/else is left as written\n" in explain.explain(rule_id)
    assert "<reason><outcome>" not in "".join(explain.explain(rule_id) for rule_id in RULE_IDS)


def test_an_error_shows_each_message_with_its_help_line():
    text = explain.explain("PDCC101")
    assert "messages:\n  unknown clause '<clause>' in '#pragma <family>'\n    = help: known clauses: <known>\n" in text
    assert "  = help: this is a bug in pdcc, not in your code; please report it with the reproducer in " \
           "'<reproducer>' (<files>)\n" in explain.explain("PDCC900")   # a message with a help line alone


def test_explain_all_lists_every_rule_once():
    done = run_pdcc("--explain", "all")
    assert done.returncode == 0 and done.stderr == ""
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == sorted(RULE_IDS)
    by_id = {rule.id: rule for rule in rules.ALL_RULES}
    for line in lines:
        rule = by_id[line.split()[0]]
        assert line.startswith(f"{rule.id}  {rule.name} (") and line.endswith(f"): {rule.summary}")


def test_explain_one_rule_on_the_command_line():
    done = run_pdcc("--explain", "PDCC511")
    assert done.returncode == 0 and done.stdout == explain.explain("PDCC511")
    assert "{" not in done.stdout and "coarsen" in done.stdout


def test_an_unknown_rule_is_pdcc303_with_a_suggestion():
    done = run_pdcc("--explain", "PDCC5000")
    assert done.returncode == 2 and done.stdout == ""
    assert "pdcc: error[PDCC303]: --explain PDCC5000: no rule has this id\n  = help: did you mean PDCC500?" \
        in done.stderr
    with pytest.raises(CommandError) as by_name:
        explain.explain("child-uses-shared-memroy")
    assert by_name.value.rule is rules.BAD_COMMAND_LINE and by_name.value.hint == "did you mean PDCC511?"
    with pytest.raises(CommandError) as nothing_close:
        explain.explain("zzzz")
    assert nothing_close.value.text == "--explain zzzz: no rule has this id"
    assert "'pdcc --explain all' lists every rule" in nothing_close.value.hint
