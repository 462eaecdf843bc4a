"""The built-in recognisers: which shapes they find inside a string, and which explain a change."""

from __future__ import annotations

import pytest

from mcptape.diff.shapes import NAMES, explain, mask


@pytest.mark.parametrize(
    ("name", "text", "masked"),
    [
        ("uuid", "id 3f2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f ok", "id <uuid> ok"),
        ("time", "at 2026-11-29T19:44:55.123+00:00.", "at <time>."),
        ("time", "at 2026-11-29T19:44:55Z and 2026-11-30", "at <time> and <time>"),
        ("time", "Date: Sun, 29 Nov 2026 19:44:55 GMT", "Date: <time>"),
        ("clock", "created at 6:22:57 AM", "created at <clock>"),
        ("clock", "at 19:44:55.5, not 12:30", "at <clock>, not 12:30"),
        ("epoch", "ts=1796000000 ms=1796000000123 n=123", "ts=<epoch> ms=<epoch> n=123"),
        ("path", "saved to /tmp/tmpx81_q/out.txt.", "saved to <path>."),
        (
            "path",
            "PATH=/usr/bin:/bin, and/or https://a.example/b",
            "PATH=<path>:<path>, and/or https://a.example/b",
        ),
        ("path", "file:///work/project and C:\\Users\\me\\x.txt", "<path> and <path>"),
        (
            "hex",
            "sha 9f86d081884c7d65 not 1234567890123456 nor deadbeefcafebabe",
            "sha <hex> not 1234567890123456 nor deadbeefcafebabe",
        ),
        ("number", "took 12.5 ms, -3 left", "took <number> ms, <number> left"),
    ],
)
def test_each_shape_is_replaced_by_its_typed_placeholder(name: str, text: str, masked: str) -> None:
    """A recogniser replaces each of its matches by `<name>` and leaves the rest of the text alone."""
    assert mask(text, [name]) == masked


def test_a_placeholder_holds_no_digit_so_a_broader_shape_never_eats_into_it() -> None:
    """Applied together, shapes run narrowest first: a UUID stays one `<uuid>`, not numbers."""
    text = "3f2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f at 2026-11-29T19:44:55Z, 5 items"
    assert mask(text, NAMES) == "<uuid> at <time>, <number> items"


@pytest.mark.parametrize(
    ("values", "shapes"),
    [
        (["same", "same"], ()),
        (["created 6:22:57 AM", "created 6:23:04 AM"], ("clock",)),
        (
            ['{"datetime": "2026-11-29T19:44:55+00:00"}', '{"datetime": "2026-12-01T06:40:01+00:00"}'],
            ("time",),
        ),
        (
            [
                "id 3f2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f at 1:00:00",
                "id 9b2a6c1e-7b0d-4c55-9d8e-0a1b2c3d4e5f at 1:00:09",
            ],
            ("uuid", "clock"),
        ),
        (["took 12 ms", "took 7 ms", "took 130 ms"], ("number",)),
        (["Hello, Ada", "Hi, Ada"], None),
    ],
)
def test_explain_picks_the_fewest_narrowest_shapes_or_none(
    values: list[str], shapes: tuple[str, ...] | None
) -> None:
    """Values that differ only by shapes are explained by the narrowest set; other changes by none."""
    assert explain(values) == shapes
