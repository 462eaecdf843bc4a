"""Each rule's `stage` is true: the rule is raised by a module of that stage (check/rules.STAGES)."""

from __future__ import annotations

import re
from pathlib import Path

import mcptape
from mcptape.check import modernrules, rules
from mcptape.check.http import sessionrules

PACKAGE = Path(mcptape.__file__).parent
REGISTRIES = (rules, modernrules, sessionrules)  # where the ids' constants are defined


def constants(rule_id: str) -> set[str]:
    """The names the registries give `rule_id` (`DUPLICATE_ID` for "duplicate-id")."""
    return {
        name
        for module in REGISTRIES
        for name, value in vars(module).items()
        if name.isupper() and value == rule_id
    }


def raised_in(path: str, rule_id: str) -> bool:
    """`path` names the rule: one of its constants, or its id as a string."""
    text = (PACKAGE / path).read_text(encoding="utf-8")
    return f'"{rule_id}"' in text or any(re.search(rf"\b{name}\b", text) for name in constants(rule_id))


def test_every_rule_names_a_known_stage() -> None:
    """A rule's stage is one of STAGES, and every stage has rules and modules that exist."""
    assert {rule.stage for rule in rules.RULES.values()} == set(rules.STAGES)
    assert all((PACKAGE / path).is_file() for paths in rules.STAGES.values() for path in paths)


def test_every_rule_is_raised_by_a_module_of_its_stage() -> None:
    """The rule's constant (or id) appears in a module its stage names: the stage says where it is raised."""
    wrong = {
        rule.id: rule.stage
        for rule in rules.RULES.values()
        if not any(raised_in(path, rule.id) for path in rules.STAGES[rule.stage])
    }
    assert wrong == {}, "move the rule to the stage whose module raises it, or name that module in STAGES"


def test_the_check_can_fail() -> None:
    """A rule put in another stage is seen: duplicate-id is not raised by classify's module."""
    assert not any(raised_in(path, rules.DUPLICATE_ID) for path in rules.STAGES["classify"])
    assert raised_in("check/pairing.py", rules.DUPLICATE_ID)
