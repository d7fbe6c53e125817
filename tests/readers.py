#!/usr/bin/env python3
"""Check that every Parquet file under a folder opens in pyarrow, DuckDB and polars.

The data contract promises that every table bridgehcp writes is readable by other
Parquet tools. This script opens each ``.parquet`` file below DIR (hive partition
folders included) with all three readers and checks that they agree on the row count and
the column names, and that pyarrow and polars read the same values.

Usage::

    python3 tests/readers.py DIR

Exit status: 0 when every file passed, 1 when a reader failed or the readers disagree,
2 when DIR holds no Parquet file at all (so a wrong path never passes silently).

CI installs the three readers with::

    pip install pyarrow duckdb polars

and runs it on the outputs of a run and on the sample dataset that
``cargo test --test tables`` leaves behind (flat and hive-partitioned)::

    python3 tests/readers.py out
    python3 tests/readers.py target/tmp/readers
"""

import sys
from pathlib import Path


def check_file(path, pa_parquet, duckdb, pl):
    """Return a list of problems with one file (empty when all readers agree)."""
    problems = []
    counts = {}
    columns = {}

    table = pa_parquet.read_table(path)
    counts["pyarrow"] = table.num_rows
    columns["pyarrow"] = list(table.column_names)

    con = duckdb.connect()
    try:
        counts["duckdb"] = con.execute(
            "SELECT count(*) FROM read_parquet(?, hive_partitioning = false)", [str(path)]
        ).fetchone()[0]
        described = con.execute(
            "DESCRIBE SELECT * FROM read_parquet(?, hive_partitioning = false)", [str(path)]
        ).fetchall()
        columns["duckdb"] = [row[0] for row in described]
    finally:
        con.close()

    frame = pl.read_parquet(path, hive_partitioning=False)
    counts["polars"] = frame.height
    columns["polars"] = list(frame.columns)

    if len(set(counts.values())) != 1:
        problems.append(f"row counts differ: {counts}")
    if len({tuple(c) for c in columns.values()}) != 1:
        problems.append(f"column names differ: {columns}")
    elif not pl.from_arrow(table).equals(frame):
        problems.append("pyarrow and polars read different values")
    return problems, counts["pyarrow"]


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[1])
    files = sorted(p for p in root.rglob("*.parquet") if p.is_file())
    if not files:
        print(f"{root}: no .parquet files found", file=sys.stderr)
        return 2

    import duckdb
    import polars as pl
    import pyarrow
    import pyarrow.parquet as pa_parquet

    failed = 0
    for path in files:
        try:
            problems, rows = check_file(path, pa_parquet, duckdb, pl)
        except Exception as error:  # any reader refusing the file is a failure
            problems, rows = [f"{type(error).__name__}: {error}"], None
        if problems:
            failed += 1
            for problem in problems:
                print(f"FAIL {path}: {problem}")
        else:
            print(f"ok   {path}: {rows} rows")
    print(
        f"{len(files) - failed} of {len(files)} files read alike in pyarrow "
        f"{pyarrow.__version__}, duckdb {duckdb.__version__}, "
        f"polars {pl.__version__}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
