#!/usr/bin/env python3
"""Check that every Parquet file under a folder opens in pyarrow, DuckDB and polars.

The data contract promises that every table bridgehcp writes is readable by other
Parquet tools. This script opens each ``.parquet`` file below DIR (hive partition
folders included) with all three readers and checks that they agree on the row count and
the column names, and that pyarrow and polars read the same values. Opening is not
enough: an analyst sorts, filters and joins, so each file must also pass the ordinary
operations (pyarrow ``sort_by``, ``filter``, ``join``, ``to_pandas`` and CSV writing; a
DuckDB join; a polars ``group_by``), and no column may be stored as ``string_view``,
``binary_view`` or a dictionary, which some readers cannot compute on.

Usage::

    python3 tests/readers.py DIR [DIR...]

Exit status: 0 when every file passed, 1 when a reader failed or the readers disagree,
2 when DIR holds no Parquet file at all (so a wrong path never passes silently).

CI installs the readers with::

    pip install pyarrow duckdb polars pandas

and runs it on the outputs of a run and on the sample dataset that
``cargo test --test tables`` leaves behind (flat and hive-partitioned)::

    python3 tests/readers.py out
    python3 tests/readers.py target/tmp/readers
"""

import io
import sys
from pathlib import Path

PLAIN_TEXT = ("string", "large_string")


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
    problems += check_operations(path, table, frame, duckdb)
    return problems, counts["pyarrow"]


def key_column(table):
    """The column to sort, join and group on: the first text column, else the first."""
    for field in table.schema:
        if str(field.type) in PLAIN_TEXT:
            return field.name
    return table.column_names[0]


def check_operations(path, table, frame, duckdb):
    """Problems found by the operations an analyst runs first on a table."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pa_csv

    problems = []
    for field in table.schema:
        kind = str(field.type)
        if "view" in kind or pa.types.is_dictionary(field.type):
            problems.append(f"column {field.name} is stored as {kind}")
    if not table.column_names:
        return problems
    key = key_column(table)
    non_null = table.num_rows - table.column(key).null_count

    first = table.column_names[0]
    ordered = table.sort_by([(key, "ascending"), (first, "descending")])
    if ordered.num_rows != table.num_rows:
        problems.append("pyarrow sort_by lost rows")
    kept = table.filter(pc.is_valid(table.column(key)))
    if kept.num_rows != non_null:
        problems.append(f"pyarrow filter kept {kept.num_rows} of {non_null} rows")
    keys = table.select([key]).group_by(key).aggregate([])
    joined = table.join(keys, key, join_type="inner")
    if joined.num_rows != non_null:
        problems.append(f"pyarrow join gave {joined.num_rows} rows, expected {non_null}")
    if len(table.to_pandas()) != table.num_rows:
        problems.append("pyarrow to_pandas lost rows")
    pa_csv.write_csv(table, io.BytesIO())

    con = duckdb.connect()
    try:
        source = "read_parquet(?, hive_partitioning = false)"
        quoted = '"' + key.replace('"', '""') + '"'
        matched = con.execute(
            f"SELECT count(*) FROM {source} AS a JOIN (SELECT DISTINCT {quoted} FROM "
            f"{source}) AS b USING ({quoted})",
            [str(path), str(path)],
        ).fetchone()[0]
    finally:
        con.close()
    if matched != non_null:
        problems.append(f"DuckDB join gave {matched} rows, expected {non_null}")

    counts = frame.group_by(key).len()
    if counts["len"].sum() != frame.height:
        problems.append("polars group_by lost rows")
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    files = []
    for root in map(Path, argv[1:]):
        found = sorted(p for p in root.rglob("*.parquet") if p.is_file())
        if not found:
            print(f"{root}: no .parquet files found", file=sys.stderr)
            return 2
        files += found

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
