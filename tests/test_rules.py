"""The rule catalogue: every template renders from the names it uses, and an error says nothing else."""

from __future__ import annotations

import string

import pytest

from pragmadp.report import rules

ERROR_RULES = [rule for rule in rules.ALL_RULES if rule.id < "PDCC400" or rule.id >= "PDCC900"]


def template_names(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@pytest.mark.parametrize("rule", rules.ALL_RULES, ids=lambda rule: rule.id)
def test_every_template_renders_from_the_names_it_uses(rule):
    """A typo in a template (`{chlid`, `{0}`, `{a.b}`) fails here, not in a user's build."""
    remark_args = {name: f"<{name}>" for name in template_names(rule.message)}
    assert all(value in rule.render(remark_args) for value in remark_args.values())
    for name, message in rule.messages.items():
        args = {argument: f"<{argument}>" for argument in message.names}
        text, hint = message.render(args)
        assert text or hint, (rule.id, name)
        assert all(f"<{argument}>" in text + hint for argument in args), (rule.id, name)


@pytest.mark.parametrize("rule", ERROR_RULES, ids=lambda rule: rule.id)
def test_an_error_is_said_only_through_its_named_messages(rule):
    assert rule.messages and not rule.message


def test_an_argument_missing_or_unused_is_a_bug_in_pdcc():
    message = rules.BAD_VALUE.messages["granularity-suggested"]
    assert message.render({"granularity": "blok", "suggestion": "block"}) == (
        "unknown granularity 'blok' in 'consldt'", "did you mean 'block'?")
    with pytest.raises(KeyError):
        message.render({"granularity": "blok"})
    with pytest.raises(KeyError, match="typo"):
        message.render({"granularity": "blok", "suggestion": "block", "typo": 1})


def test_rules_stay_hashable_with_their_messages():
    assert len(set(rules.ALL_RULES)) == len(rules.ALL_RULES)
