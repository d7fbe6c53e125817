#!/usr/bin/env python3
"""Run every Python example of docs/analysts.md against real outputs.

The examples in the analysts' guide are only worth something if they run. This script
takes each fenced ``python`` block of the guide, runs it in a fresh namespace in the
current folder (where CI has left ``out/``, ``whatif/`` and ``study/``), and checks that
it left a non-empty ``result``. A block that raises, or leaves no rows, fails the run.

Usage::

    python3 tests/analysts.py docs/analysts.md

Exit status: 0 when every block ran and returned rows, 1 otherwise, 2 when the guide has
no Python block (so a wrong path never passes silently).
"""

import re
import sys
import traceback
from pathlib import Path


def blocks(text):
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def rows(result):
    """Row count of whatever a block returned: polars frame, list of tuples, ..."""
    if hasattr(result, "height"):
        return result.height
    if hasattr(result, "fetchall"):
        return len(result.fetchall())
    return len(result)


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    found = blocks(Path(argv[1]).read_text(encoding="utf-8"))
    if not found:
        print(f"{argv[1]}: no python block")
        return 2
    failed = 0
    for i, code in enumerate(found, 1):
        namespace = {"__name__": f"example_{i}"}
        first = code.strip().splitlines()[0] if code.strip() else ""
        try:
            exec(compile(code, f"{argv[1]} block {i}", "exec"), namespace)
            n = rows(namespace["result"])
            if n == 0:
                raise AssertionError("the example returned no rows")
            print(f"ok   block {i} ({first}): {n} rows")
        except Exception:  # noqa: BLE001 - every failure is reported, then counted
            failed += 1
            print(f"FAIL block {i} ({first})")
            traceback.print_exc()
    print(f"{len(found) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
