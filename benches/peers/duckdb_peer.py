"""DuckDB beside the scoring: the floor (reading the columns the scoring reads) and a
peer (the same pairs matchpoints and cross-IMPs in SQL, benches/peers/scoring.sql).

    python3 benches/peers/duckdb_peer.py DATASET [BOARD_SCORES.parquet]

Prints the time of each, and, given this program's board_scores.parquet for the same
dataset, how many rows were compared and the largest difference.
"""

import pathlib
import sys
import time

import duckdb


def table(dataset: pathlib.Path, name: str) -> str:
    single = dataset / f"{name}.parquet"
    if single.exists():
        return f"read_parquet('{single}')"
    return f"read_parquet('{dataset / name}/**/*.parquet', hive_partitioning = true)"


def main() -> None:
    dataset = pathlib.Path(sys.argv[1])
    ours = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else None
    con = duckdb.connect()
    threads = con.execute("SELECT current_setting('threads')").fetchone()[0]
    con.execute(f"CREATE VIEW boards AS SELECT * FROM {table(dataset, 'boards')}")
    con.execute(f"CREATE VIEW competitions AS SELECT * FROM {table(dataset, 'competitions')}")

    started = time.perf_counter()
    rows, checksum = con.execute(
        "SELECT count(*), sum(length(competition_id) + board + length(coalesce(ns, ''))"
        " + length(coalesce(ew, '')) + coalesce(ns_score, 0) + length(coalesce(adjusted, ''))"
        " + length(coalesce(contract, '')) + coalesce(tricks, 0)) FROM boards"
    ).fetchone()
    floor = time.perf_counter() - started
    print(f"duckdb floor: read {rows} board rows (8 columns) in {floor:.2f} s "
          f"({rows / floor:.0f} rows/s, {threads} threads)")

    sql = (pathlib.Path(__file__).parent / "scoring.sql").read_text()
    started = time.perf_counter()
    con.execute(f"CREATE TABLE peer AS {sql}")
    elapsed = time.perf_counter() - started
    scored = con.execute("SELECT count(*) FROM peer").fetchone()[0]
    print(f"duckdb scoring.sql: {scored} pairs matchpoint and cross-IMP board scores in "
          f"{elapsed:.2f} s ({scored / elapsed:.0f} rows/s)")
    if ours is not None and ours.exists():
        compared, worst = con.execute(
            f"SELECT count(*), max(abs(p.ns_points - o.ns_points)) FROM peer p "
            f"JOIN read_parquet('{ours}') o USING (competition_id, board, ns, ew)"
        ).fetchone()
        print(f"duckdb scoring.sql against board_scores.parquet: {compared} rows compared, "
              f"largest difference {worst}")


if __name__ == "__main__":
    main()
