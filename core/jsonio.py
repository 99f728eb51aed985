"""JSON in with named errors and bounded size and depth: one reader for specs, recipes, layers and sidecars."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["MAX_JSON_BYTES", "MAX_JSON_DEPTH", "load_json"]

#: Largest JSON text read (bytes): a terrain spec with eight layers and a long filter stack is a few kB.
MAX_JSON_BYTES = 1 << 20
#: Deepest nesting accepted (a spec nests four levels).
MAX_JSON_DEPTH = 32


def _depth(text: str) -> int:
    """Deepest bracket nesting of JSON ``text`` (brackets inside strings are skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def load_json(text: str | bytes | bytearray, what: str, max_bytes: int = MAX_JSON_BYTES,
              max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Parse JSON ``text``, refusing oversized or deeply nested input before parsing.

    Parameters
    ----------
    text : str or bytes
        The JSON text.
    what : str
        What the text is, for messages ("recipe", "layers", "--set size").
    max_bytes, max_depth : int
        Bounds checked before parsing.

    Raises
    ------
    TypeError
        If ``text`` is not text.
    ValueError
        For text over ``max_bytes``, nesting over ``max_depth``, or a syntax
        error; the message names ``what`` and stays short.
    """
    if isinstance(text, (bytes, bytearray)):
        if len(text) > max_bytes:
            raise ValueError(f"the {what} is larger than {max_bytes} bytes")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"the {what} is not UTF-8 text") from None
    if not isinstance(text, str):
        raise TypeError(f"the {what}'s JSON must be text, got {type(text).__name__}")
    if len(text) > max_bytes:
        raise ValueError(f"the {what} is larger than {max_bytes} bytes")
    if _depth(text) > max_depth:
        raise ValueError(f"the {what} JSON is nested more than {max_depth} levels deep")
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"the {what} JSON is nested too deeply") from None
    except ValueError as err:  # syntax, or an integer of thousands of digits
        raise ValueError(f"the {what} is not valid JSON: {str(err)[:200]}") from None
