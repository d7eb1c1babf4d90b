"""The command line the page generators share: write a generated page, or ``--check`` it.

:mod:`.supported` (``docs/supported.md`` from the rule table) and :mod:`.apidoc`
(``docs/api.md`` from the docstrings) each render their page as text; this is how either
one is run: written in place, or with ``--check`` compared with the committed page (exit 1
and say which command regenerates it when they differ, as the docs tests do).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path


def page_main(argv: list[str] | None, *, page: Path, command: str, description: str,
              check_help: str, render: Callable[[], str]) -> int:
    """Run a page generator's command line (``command [--check]``); the exit status."""
    parser = argparse.ArgumentParser(prog=command, description=description)
    parser.add_argument("--check", action="store_true", help=check_help)
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not page.exists() or page.read_text() != text:
            print(f"{page} is stale; run `{command}`", file=sys.stderr)
            return 1
        return 0
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(text)
    print(f"wrote {page}")
    return 0
