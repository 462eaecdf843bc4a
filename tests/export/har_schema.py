"""The HAR 1.2 structure (http://www.softwareishard.com/blog/har-12-spec/) as a JSON Schema: every
object the spec defines, its required fields and their types. Custom fields start with `_`."""

from __future__ import annotations

from typing import Any


def _object(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict[str, Any]:
    properties = {**required, **(optional or {}), "comment": {"type": "string"}}
    return {
        "type": "object",
        "required": sorted(required),
        "properties": properties,
        "patternProperties": {"^_": {}},
        "additionalProperties": False,
    }


STRING, INTEGER, NUMBER = {"type": "string"}, {"type": "integer"}, {"type": "number"}
DATE = {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$"}
PAIR = _object({"name": STRING, "value": STRING})
PAIRS = {"type": "array", "items": PAIR}
COOKIE = _object(
    {"name": STRING, "value": STRING},
    {
        "path": STRING,
        "domain": STRING,
        "expires": DATE,
        "httpOnly": {"type": "boolean"},
        "secure": {"type": "boolean"},
    },
)
TIMING = {"type": "number", "minimum": -1}
HAR = _object(
    {
        "log": _object(
            {
                "version": {"const": "1.2"},
                "creator": _object({"name": STRING, "version": STRING}),
                "entries": {
                    "type": "array",
                    "items": _object(
                        {
                            "startedDateTime": DATE,
                            "time": {"type": "number", "minimum": 0},
                            "request": _object(
                                {
                                    "method": STRING,
                                    "url": {"type": "string", "pattern": "^[a-z][a-z0-9+.-]*://"},
                                    "httpVersion": STRING,
                                    "cookies": {"type": "array", "items": COOKIE},
                                    "headers": PAIRS,
                                    "queryString": PAIRS,
                                    "headersSize": INTEGER,
                                    "bodySize": INTEGER,
                                },
                                {
                                    "postData": _object(
                                        {"mimeType": STRING},
                                        {"text": STRING, "params": {"type": "array"}, "encoding": STRING},
                                    )
                                },
                            ),
                            "response": _object(
                                {
                                    "status": INTEGER,
                                    "statusText": STRING,
                                    "httpVersion": STRING,
                                    "cookies": {"type": "array", "items": COOKIE},
                                    "headers": PAIRS,
                                    "content": _object(
                                        {"size": INTEGER, "mimeType": STRING},
                                        {"compression": INTEGER, "text": STRING, "encoding": STRING},
                                    ),
                                    "redirectURL": STRING,
                                    "headersSize": INTEGER,
                                    "bodySize": INTEGER,
                                }
                            ),
                            "cache": _object({}, {"beforeRequest": {}, "afterRequest": {}}),
                            "timings": _object(
                                {"send": NUMBER, "wait": NUMBER, "receive": NUMBER},
                                {"blocked": TIMING, "dns": TIMING, "connect": TIMING, "ssl": TIMING},
                            ),
                        },
                        {"pageref": STRING, "serverIPAddress": STRING, "connection": STRING},
                    ),
                },
            },
            {
                "browser": _object({"name": STRING, "version": STRING}),
                "pages": {
                    "type": "array",
                    "items": _object(
                        {
                            "startedDateTime": DATE,
                            "id": STRING,
                            "title": STRING,
                            "pageTimings": _object({}, {"onContentLoad": NUMBER, "onLoad": NUMBER}),
                        }
                    ),
                },
            },
        )
    }
)
