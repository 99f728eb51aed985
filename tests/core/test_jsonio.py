"""The bounded JSON reader, the byte-size parser and recipe bounds: refusals are quick, named and short."""

import os
from pathlib import Path

import pytest

from core.io.jsonio import (
    JSONFileError,
    JSONSyntaxError,
    JSONTooDeepError,
    JSONTooLargeError,
    load_json,
)
from core.recipe import MAX_FILTERS, Recipe
from core.units import parse_bytes


def test_values_within_the_bounds_parse_as_json_does():
    assert load_json('{"a": [1, 2.5, "x]}", null]}', "t") == {"a": [1, 2.5, "x]}", None]}
    assert load_json(b"[[[]]]", "t", max_depth=3) == [[[]]]
    assert load_json("900", "--set faults") == 900


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("[" * 5000 + "]" * 5000, JSONTooDeepError, "--set x nests 5000 levels deep, more than the 32 allowed"),
        ("[" * 33 + "]" * 33, JSONTooDeepError, "nests 33 levels deep"),
        ("x" * 2_000_000, JSONTooLargeError, "has 2000000 bytes, more than the 1048576 allowed"),
        ("{'a': 1}", JSONSyntaxError, "is not valid JSON"),
        ("1" * 5000, JSONSyntaxError, "is not valid JSON"),  # Python's limit on integer digits
    ],
)
def test_bounds_and_syntax_give_named_short_errors(text, error, message):
    with pytest.raises(error, match=message) as caught:
        load_json(text, "--set x")
    assert isinstance(caught.value, ValueError) and len(str(caught.value)) < 300


def test_strings_do_not_count_as_nesting():
    assert load_json('["' + "[" * 100 + '"]', "t") == ["[" * 100]


def test_files_must_be_regular_and_bounded(tmp_path):
    good = tmp_path / "r.json"
    good.write_text('{"seed": 3}')
    assert load_json(good, "--recipe") == {"seed": 3}
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer forever
    with pytest.raises(JSONFileError, match="is not a regular file"):
        load_json(fifo, "sidecar")
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")  # would read until memory runs out
    with pytest.raises(JSONFileError, match="is not a regular file"):
        load_json(zero, "sidecar")
    with pytest.raises(JSONFileError, match="No such file"):
        load_json(tmp_path / "missing.json", "sidecar")
    big = tmp_path / "big.json"
    big.write_text(" " * 2000)
    with pytest.raises(JSONTooLargeError, match="has 2000 bytes"):
        load_json(big, "sidecar", max_bytes=1000)
    with pytest.raises(JSONSyntaxError, match="not UTF-8"):
        load_json(b'"\xff"', "t")
    assert load_json(Path(good), "x") == {"seed": 3}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1073741824", 2**30),
        ("1e9", 10**9),
        ("1G", 2**30),
        ("1g", 2**30),
        ("1GiB", 2**30),
        ("1GB", 10**9),
        ("1.5G", 3 * 2**29),
        ("512M", 2**29),
        ("512MiB", 2**29),
        ("64k", 65536),
        ("2kB", 2000),
        (" 7 ", 7),
        ("1B", 1),
        ("1T", 2**40),
    ],
)
def test_byte_sizes_in_the_usual_forms(text, value):
    assert parse_bytes(text, "OROGEN_MEMORY_LIMIT") == value


@pytest.mark.parametrize("text", ["-5", "0", "0.5", "1X", "nan", "inf", "1e999", "", "GB", "1 G B", "5iB", "1,000"])
def test_other_byte_sizes_are_refused_with_the_accepted_forms(text):
    with pytest.raises(ValueError, match="OROGEN_MEMORY_LIMIT must be"):
        parse_bytes(text, "OROGEN_MEMORY_LIMIT")


def test_recipe_counts_are_bounded_before_validation_with_short_messages():
    with pytest.raises(ValueError, match=rf"filters has 1000000 entries; at most {MAX_FILTERS}") as caught:
        Recipe.from_dict({"filters": [{"type": "flatten"}] * 1_000_000})
    assert len(str(caught.value)) < 200
    unknown = {f"key{i}": i for i in range(100_000)}
    with pytest.raises(ValueError, match=r"unknown recipe keys: key0, key1, .* and 99988 more$") as caught:
        Recipe.from_dict({"generator": "hills", **unknown})
    assert len(str(caught.value)) < 500
    with pytest.raises(ValueError, match="params has 100000 entries") as caught:
        Recipe.from_dict({"generator": "hills", "params": unknown})
    with pytest.raises(ValueError, match=r"hills: unknown parameters a, b; valid: "):
        Recipe.from_dict({"generator": "hills", "params": {"a": 1, "b": 2}})
    with pytest.raises(ValueError, match="the recipe nests 5001 levels deep"):
        Recipe.from_json('{"params": ' + "[" * 5000 + "]" * 5000 + "}")


def test_a_key_given_twice_is_refused_naming_the_key_and_the_file(tmp_path):
    from core.io.jsonio import JSONDuplicateKeyError
    from core.spec import TerrainSpec

    spec = tmp_path / "twice.json"
    spec.write_text('{"version": 4, "filters": [], "seed": 1, "filters": [{"kind": "terrace"}]}')
    with pytest.raises(JSONDuplicateKeyError) as caught:
        load_json(spec, "terrain spec")
    message = str(caught.value)
    assert message.startswith(f"terrain spec ({spec}) gives the key 'filters' twice in one object")
    assert isinstance(caught.value, ValueError) and len(message) < 300 + len(str(spec))
    # nested objects, equal values, and text (no file to name) alike
    for text in ('{"a": {"b": 1, "b": 1}}', '[{"x": 0}, {"y": 1, "y": 2}]'):
        with pytest.raises(JSONDuplicateKeyError, match=r"^--set x gives the key '[by]' twice"):
            load_json(text, "--set x")
    with pytest.raises(JSONDuplicateKeyError, match="gives the key 'filters' twice"):
        TerrainSpec.from_json(spec.read_bytes())
    # the same key in different objects is no duplicate
    assert load_json('[{"a": 1}, {"a": 2, "b": {"a": 3}}]', "t") == [{"a": 1}, {"a": 2, "b": {"a": 3}}]
