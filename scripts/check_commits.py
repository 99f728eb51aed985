"""Check commit messages: a subject of at most 72 characters, then a blank line before any body.

Two uses:

* the ``commit-msg`` hook of ``.pre-commit-config.yaml``: ``check_commits.py --message-file FILE`` checks the
  message being written (git's comment lines, ``#`` first, are ignored as git ignores them);
* ``scripts/test.sh``: ``check_commits.py --since REV`` checks every commit after ``REV`` up to ``HEAD``
  (``REV`` is the first commit made under this rule; older history is left as it was written).

Exits 1 with one line per bad message, 0 when all are good.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

MAX_SUBJECT = 72

#: The first commit of the rule (the tree-wide ``ruff format``); the commits after it are checked.
RULE_START = "275e3de"


def problems(message: str) -> list[str]:
    """What is wrong with one commit message (empty when nothing).

    Parameters
    ----------
    message : str
        The whole message, subject first; lines starting with ``#`` are dropped as git drops them.

    Returns
    -------
    list of str
        One sentence per problem: an empty subject, a subject over 72 characters, no blank line after it.
    """
    lines = [line for line in message.splitlines() if not line.startswith("#")]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines or not lines[0].strip():
        return ["the subject line is empty"]
    found = []
    if len(lines[0]) > MAX_SUBJECT:
        found.append(f"the subject has {len(lines[0])} characters (at most {MAX_SUBJECT})")
    if len(lines) > 1 and lines[1].strip():
        found.append("the subject is not followed by a blank line")
    return found


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--message-file", type=Path, help="a commit message being written (the commit-msg hook)")
    group.add_argument("--since", metavar="REV", help=f"check the commits after REV (the rule began at {RULE_START})")
    args = parser.parse_args(argv)
    if args.message_file is not None:
        found = problems(args.message_file.read_text(encoding="utf-8", errors="replace"))
        for problem in found:
            print(f"commit message: {problem}", file=sys.stderr)
        return 1 if found else 0
    try:
        _git("rev-parse", "--verify", "--quiet", f"{args.since}^{{commit}}")
    except subprocess.CalledProcessError:
        print(f"check_commits: {args.since} is not in this clone's history (a shallow clone?): nothing checked")
        return 0
    bad = 0
    for rev in _git("rev-list", "--no-merges", f"{args.since}..HEAD").split():
        for problem in problems(_git("log", "-1", "--format=%B", rev)):
            print(f"{rev[:10]}: {problem}", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
