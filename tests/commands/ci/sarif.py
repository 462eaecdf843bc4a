"""What SARIF 2.1.0 requires of a log, as a JSON Schema: the `required` members, types and enums of
the official schema (sarif-schema-2.1.0.json, OASIS) for the objects mcptape writes, and what a
consumer such as GitHub code scanning needs of each result (a rule id, a level, a message text, a
location with a file and a 1-based line)."""

from __future__ import annotations

from typing import Any

import jsonschema  # type: ignore[import-untyped]

LEVEL = {"enum": ["none", "note", "warning", "error"]}
MESSAGE = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}
ARTIFACT_LOCATION = {
    "type": "object",
    "required": ["uri"],
    "properties": {"uri": {"type": "string", "format": "uri-reference", "minLength": 1}},
}
REGION = {
    "type": "object",
    "required": ["startLine"],
    "properties": {"startLine": {"type": "integer", "minimum": 1}},
}
LOCATION = {
    "type": "object",
    "required": ["physicalLocation"],
    "properties": {
        "id": {"type": "integer", "minimum": -1},
        "physicalLocation": {
            "type": "object",
            "required": ["artifactLocation"],
            "properties": {"artifactLocation": ARTIFACT_LOCATION, "region": REGION},
        },
        "message": MESSAGE,
    },
}
RULE = {
    "type": "object",
    "required": ["id", "shortDescription", "fullDescription", "help", "defaultConfiguration"],
    "properties": {
        "id": {"type": "string", "minLength": 1},
        "name": {"type": "string"},
        "shortDescription": MESSAGE,
        "fullDescription": MESSAGE,
        "help": MESSAGE,
        "defaultConfiguration": {"type": "object", "properties": {"level": LEVEL}},
    },
}
RESULT = {
    "type": "object",
    "required": ["ruleId", "level", "message", "locations"],
    "properties": {
        "ruleId": {"type": "string", "minLength": 1},
        "ruleIndex": {"type": "integer", "minimum": -1},
        "level": LEVEL,
        "message": MESSAGE,
        "locations": {"type": "array", "minItems": 1, "items": LOCATION},
        "relatedLocations": {"type": "array", "items": LOCATION},
        "properties": {"type": "object"},
    },
}
SARIF_LOG = {
    "type": "object",
    "required": ["$schema", "version", "runs"],
    "properties": {
        "$schema": {"type": "string", "format": "uri"},
        "version": {"const": "2.1.0"},
        "runs": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "required": ["tool", "results"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name", "rules"],
                                "properties": {
                                    "name": {"type": "string", "minLength": 1},
                                    "version": {"type": "string"},
                                    "rules": {"type": "array", "items": RULE},
                                },
                            }
                        },
                    },
                    "invocations": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["executionSuccessful"],
                            "properties": {
                                "executionSuccessful": {"type": "boolean"},
                                "toolExecutionNotifications": {
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "required": ["message"],
                                        "properties": {"message": MESSAGE},
                                    },
                                },
                            },
                        },
                    },
                    "results": {"type": "array", "items": RESULT},
                },
            },
        },
    },
}


def assert_valid_sarif(log: dict[str, Any]) -> None:
    """The log has SARIF 2.1.0's required structure, and each result cites a rule of its driver
    (at the index it gives)."""
    jsonschema.validate(log, SARIF_LOG, format_checker=jsonschema.FormatChecker())
    for run in log["runs"]:
        rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
        assert len(rules) == len(set(rules)), "rule ids are unique"
        for result in run["results"]:
            assert result["ruleId"] in rules
            if "ruleIndex" in result:
                assert rules[result["ruleIndex"]] == result["ruleId"]
