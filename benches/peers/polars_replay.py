"""A second implementation of the frozen-mode handicap replay, in vectorised polars.

Why it exists
-------------
`bridgehcp run --mode frozen` applies the handicap model (docs/model.md) month by
month: every competition of a calendar month reads the handicaps the month opened with,
each member's changes of the month are summed, and the cap (and the factor set's floor,
if it has one) apply once, at month end. Nothing within a month depends on anything else
in that month, so a month's work is a handful of joins and group-bys over all of its
competitions at once, with no loop over competitions. This script does that,
independently of the Rust code, for two purposes:

* a **peer** for the scale benchmark: how long a vectorised dataframe replay of the same
  federation takes, beside the program's own replay stage;
* a **cross-check** of the model: its final handicaps must agree with the run's
  `handicaps.parquet` to about 1e-12 on every member it covers.

It does not score boards. Results of competitions reported as results come from the
dataset's `results` table, turned into the model's unit as the model does (percentage
points over 50; IMPs per board; summed cross-IMPs divided by the comparisons; a team
match's net margin per board). Results of competitions scored from board rows come from
the run's own output: `standings.parquet` (percentages, boards played, team-match
totals) and `board_scores.parquet` (each table's IMPs, summed per entrant, summed
cross-IMPs turned back into averages per comparison as the model reads them; and who met
whom at the table). Competitions the run quarantined (`quarantine.csv`) are left out, as
the run leaves them out.

What it covers
--------------
Every field kind of the model, each month in one pass of dataframe operations:

* pairs across the field (`pairs` with `matchpoints` or `cross_imps`): expected result
  against the mean of the other pairs; a fixed-direction field with both directions (a
  Mitchell) is rated per direction;
* pairs against a datum (`pairs` with `butler`, and Swiss pairs, `pairs` with
  `swiss_pairs`, whose boards are scored against the datum of all tables and whose
  matches and VPs play no part in the model): against the mean of all pairs;
* individuals (`individual`): against the mean of the other players, over
  `result_scale`·C_b;
* team matches (`teams` with `team_imps`): the opposing team's two pairs against the
  team's own;
* pairs of a team event scored across the field (`teams` with another scoring): the
  table opponents plus the pair's direction mean against the opposite direction's.

Members, foreign guests (`kind = foreign`) and non-members (any other player id, or an
empty slot) get temporary pair handicaps by the factor set's `guest_methods` (a: the
reported level, b: the partner's handicap, c: the estimate from the pair's own result,
closed form; a non-member pair tries c first). The one step that is not a dataframe
operation: for a pair of a team event scored across the field, estimate c solves a small
linear system per competition (as the model does), in plain Python, for the few
competitions that have such pairs. A competition in which some unit's handicap cannot be
settled is unrated, as in the run; the script checks its list against `unrated.csv`.

The factor set's values are read from the TOML given with `--factors` (default
data/factors/fsb-2007.toml): impact, cap, floor, start formula, S and C_b per method,
C_k, C_u and result_scale per format, class weights and guest methods.

What it leaves out, and how
---------------------------
* Individual events with IMP scoring scored from board rows (their board scores name
  the four seats, not entrants); summed cross-IMP events scored from board rows that
  have a split score (one side artificial: which side the average applies to is not in
  `board_scores.parquet`); and, when the run was made with `--no-board-scores`, every
  IMP or team event scored from board rows. None of these occurs in a `bridgehcp
  sample` federation run without `--no-board-scores`. Such competitions are not
  replayed. Their players' handicaps are then not the run's, and neither are those of
  anyone who later meets such a player in a field, since a field's expected results
  read every handicap in it. So the script keeps a **taint** per member: a member is
  tainted by playing in a competition it does not replay, or by playing in a replayed
  competition whose field held a tainted member when the month opened. Tainted members
  are left out of the comparison, never adjusted; the output says how many were
  compared and how many were left out.
* Factor set options that make a month's changes depend on their order within the month
  or on more history than the handicap (`newcomer`, `inactivity`), or that keep a
  second set of handicaps (`separate_by_method`): such a set is refused. `confidence`
  does not move handicaps and is ignored.
* Runs with `--state` or `--until`: compare with a run over the whole dataset.

Running it
----------
    bridgehcp sample --out /tmp/fed --members 2000 --months 12 --by-month
    bridgehcp run --data /tmp/fed --mode frozen --out /tmp/out --quiet
    python3 benches/peers/polars_replay.py --data /tmp/fed --run /tmp/out [--json]

It prints the time to read the inputs, the time of the replay alone (preparing the
model's inputs from the tables, then the months), the number of player updates (one per
updated member per entrant of a replayed competition: the rows of `changes.parquet`
with `updated`), and the largest absolute difference from the run's
`handicaps.parquet` over the members compared, with their number. `--json` prints the
same figures as one JSON line instead.

Needs python3 (3.11 or newer, for tomllib) with polars (`pip install polars`).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time
import tomllib

import polars as pl

REPO = pathlib.Path(__file__).resolve().parents[2]
DEFAULT_FACTORS = REPO / "data" / "factors" / "fsb-2007.toml"

# Field kinds, as the model tells them apart, and the factor set's name for each format.
PAIRS, DATUM, INDIVIDUAL, TEAM_MATCH, ACROSS = 0, 1, 2, 3, 4
FORMAT_KEY = {
    PAIRS: "pairs",
    DATUM: "pairs_datum",
    INDIVIDUAL: "individual",
    TEAM_MATCH: "team_match",
    ACROSS: "team_pair_across",
}
# Player status.
MEMBER, FOREIGN, NON_MEMBER = 0, 1, 2
# Unit class, as the model's guest settling classifies a pair (or an individual).
KNOWN, GUEST, NON_MEMBER_UNIT = 0, 1, 2
# How a unit's handicap is settled.
DONE_KNOWN, DONE_A, DONE_B, ESTIMATE, NO_METHOD = 0, 1, 2, 3, 4


# --------------------------------------------------------------------------- factors


def load_factors(path: pathlib.Path) -> dict:
    """The factor set, refusing the options this replay does not follow."""
    with open(path, "rb") as f:
        t = tomllib.load(f)
    for option in ("newcomer", "inactivity"):
        if t.get(option) is not None:
            sys.exit(f"{path}: option `{option}` is set; this replay does not implement it")
    if t.get("separate_by_method", False):
        sys.exit(f"{path}: `separate_by_method = true` is not implemented by this replay")
    formats = t["formats"]
    return {
        "name": t["name"],
        "impact": float(t["impact"]),
        "cap": float(t["cap"]),
        "floor": None if t.get("floor") is None else float(t["floor"]),
        "start_base": float(t["start"]["base"]),
        "start_c": float(t["start"]["c"]),
        "methods": {m: (float(v["s"]), float(v["c_b"])) for m, v in t["methods"].items()},
        "formats": {
            kind: (
                float(formats[key]["c_k"]),
                float(formats[key]["c_u"]),
                float(formats[key].get("result_scale", 1.0)),
            )
            for kind, key in FORMAT_KEY.items()
        },
        "guest_methods": list(t["guest_methods"]),
        "class_weights": {k: float(v) for k, v in (t.get("class_weights") or {}).items()},
    }


# --------------------------------------------------------------------------- reading


def table_files(dataset: pathlib.Path, name: str) -> tuple[str, list[pathlib.Path]]:
    """The form of a dataset table (`parquet`, `csv` or `folder`) and its files."""
    for single in (dataset / f"{name}.parquet", dataset / f"{name}.csv"):
        if single.exists():
            return single.suffix[1:], [single]
    folder = dataset / name
    if folder.is_dir():
        files = sorted(
            p
            for p in folder.rglob("*.parquet")
            if not any(part.startswith((".", "_")) for part in p.relative_to(folder).parts)
        )
        return "folder", files
    return "missing", []


def read_table(
    dataset: pathlib.Path, name: str, wanted: list[str], non_null: str | None = None
) -> pl.DataFrame | None:
    """The columns of `wanted` that the table has (partition columns aside); with
    `non_null`, only the rows where that column is set (none when it is missing)."""
    form, files = table_files(dataset, name)
    if form == "missing":
        return None
    if form == "csv":
        lazy = pl.scan_csv(files[0], infer_schema_length=None)
    elif files:
        lazy = pl.scan_parquet(
            files, hive_partitioning=False, missing_columns="insert", extra_columns="ignore"
        )
    else:
        return pl.DataFrame()
    have = lazy.collect_schema().names()
    if non_null is not None:
        if non_null not in have:
            return lazy.select([c for c in wanted if c in have]).head(0).collect()
        lazy = lazy.filter(pl.col(non_null).is_not_null())
    return lazy.select([c for c in wanted if c in have]).collect()


def ensure(frame: pl.DataFrame, column: str, dtype, default=None) -> pl.DataFrame:
    """`frame` with `column` of `dtype`, added when missing, nulls set to `default`."""
    if column not in frame.columns:
        return frame.with_columns(pl.lit(default, dtype=dtype).alias(column))
    value = pl.col(column).cast(dtype)
    return frame.with_columns(value if default is None else value.fill_null(default))


def ids_in_csv(path: pathlib.Path) -> set[str]:
    if not path.exists() or not path.read_text().strip():
        return set()
    frame = pl.read_csv(path, columns=["competition_id"], schema_overrides={"competition_id": pl.String})
    return set(frame["competition_id"].drop_nulls().to_list())


def read_inputs(data: pathlib.Path, run: pathlib.Path) -> dict:
    t = {
        "members": read_table(data, "members", ["member_id", "masterpoints", "start_handicap", "kind"]),
        "competitions": read_table(
            data,
            "competitions",
            ["competition_id", "date", "format", "scoring", "boards", "rated", "class", "imp_aggregate"],
        ),
        "entrants": read_table(
            data,
            "entrants",
            ["competition_id", "entrant", "player1", "player2", "player3", "player4", "direction"],
        ),
        "results": read_table(
            data, "results", ["competition_id", "entrant", "boards_played", "score", "opponent"]
        ),
        "standings": pl.read_parquet(
            run / "standings.parquet",
            columns=["competition_id", "entrant", "score", "percent", "boards_played"],
        ),
        "quarantined": ids_in_csv(run / "quarantine.csv"),
        "unrated": ids_in_csv(run / "unrated.csv"),
    }
    # The run's board scores hold every board row of the competitions it scored. Without
    # them (a run with --no-board-scores) the dataset's board rows say which those were.
    scores = run / "board_scores.parquet"
    if scores.exists():
        t["board_scores"] = pl.read_parquet(
            scores, columns=["competition_id", "board", "ns", "ew", "ns_score", "ns_points", "ew_points"]
        )
        t["boards"] = None
    else:
        t["board_scores"] = None
        t["boards"] = read_table(data, "boards", ["competition_id", "board"])
    # Board rows with an artificial score (to tell split scores).
    t["adjusted"] = read_table(data, "boards", ["competition_id", "adjusted"], non_null="adjusted")
    manifest = run / "run.json"
    t["manifest"] = json.loads(manifest.read_text()) if manifest.exists() else {}
    return t


# --------------------------------------------------------------------------- preparing


def prepare(t: dict, f: dict) -> dict:
    """Every input of the month loop as flat frames: the members with their starting
    handicaps; `units`, one row per pair (or individual player) of a replayed
    competition, with its players, its entrant's result and opponent, and its
    competition's factors; and `seated`, every member of every rated competition (for
    the taint)."""
    members = ensure(t["members"], "masterpoints", pl.Float64, 0.0)
    members = ensure(members, "kind", pl.String, "member")
    members = ensure(members, "start_handicap", pl.Float64)
    members = (
        members.with_columns(pl.col("member_id").cast(pl.Int64))
        .sort("member_id")
        .with_row_index("idx")
        .with_columns(
            start=pl.when(pl.col("start_handicap").is_not_null())
            .then(pl.col("start_handicap"))
            .otherwise(f["start_base"] / (1.0 + f["start_c"] * pl.col("masterpoints")))
        )
    )

    comps = ensure(t["competitions"], "competition_id", pl.String)
    comps = ensure(comps, "rated", pl.Boolean, True)
    comps = ensure(comps, "imp_aggregate", pl.String, "average")
    comps = ensure(comps, "class", pl.String)
    comps = ensure(comps, "boards", pl.Int64)
    # A date, a timestamp at midnight, or text (CSV).
    date = comps.schema["date"]
    date = pl.col("date").str.to_date("%Y-%m-%d") if date == pl.String else pl.col("date").cast(pl.Date)
    comps = comps.filter(
        pl.col("rated") & ~pl.col("competition_id").is_in(sorted(t["quarantined"]))
    ).with_columns(month=date.dt.year().cast(pl.Int32) * 12 + date.dt.month().cast(pl.Int32) - 1)
    comps = comps.sort("competition_id").with_row_index("comp")

    # Board rows: which competitions were scored from them, N_B when not stated, and
    # how many of their rows have an artificial score (in the dataset, and as scored).
    scores = t["board_scores"]
    if scores is not None:
        facts = scores.group_by("competition_id").agg(
            distinct_boards=pl.col("board").n_unique(),
            artificial_rows=pl.col("ns_score").is_null().sum(),
        )
    else:
        boards = t["boards"]
        if boards is None or boards.width == 0:
            boards = pl.DataFrame(schema={"competition_id": pl.String, "board": pl.Int64})
        facts = boards.group_by("competition_id").agg(
            distinct_boards=pl.col("board").n_unique(),
            artificial_rows=pl.lit(None, dtype=pl.UInt32),
        )
    adjusted = t["adjusted"]
    if adjusted is None or adjusted.width == 0:
        adjusted = pl.DataFrame(schema={"competition_id": pl.String})
    comps = (
        comps.join(facts, on="competition_id", how="left")
        .join(
            adjusted.group_by("competition_id").agg(adjusted_rows=pl.len()),
            on="competition_id",
            how="left",
        )
        .with_columns(
            from_boards=pl.col("distinct_boards").is_not_null(),
            n_b=pl.coalesce(pl.col("boards").cast(pl.Int64), pl.col("distinct_boards").cast(pl.Int64)),
        )
    )

    fmt, scoring = pl.col("format"), pl.col("scoring")
    field_scoring = scoring.is_in(["matchpoints", "cross_imps", "butler"])
    imp_from_boards = pl.col("from_boards") & (scoring != "matchpoints")
    comps = comps.with_columns(
        kind=pl.when((fmt == "pairs") & scoring.is_in(["matchpoints", "cross_imps"]))
        .then(PAIRS)
        .when((fmt == "pairs") & scoring.is_in(["butler", "swiss_pairs"]))
        .then(DATUM)
        .when((fmt == "individual") & field_scoring)
        .then(INDIVIDUAL)
        .when((fmt == "teams") & (scoring == "team_imps"))
        .then(TEAM_MATCH)
        .when((fmt == "teams") & field_scoring)
        .then(ACROSS)
        .cast(pl.Int8),
        summed=(scoring == "cross_imps") & (pl.col("imp_aggregate") == "sum"),
    ).with_columns(
        covered=pl.col("kind").is_not_null()
        # IMP totals and table opponents from board rows are read in the board scores.
        & ~(
            pl.col("from_boards")
            & (imp_from_boards | pl.col("kind").is_in([TEAM_MATCH, ACROSS]))
            & pl.col("artificial_rows").is_null()
        )
        # An individual's board scores name the seats, not the entrant.
        & ~(imp_from_boards & (pl.col("kind") == INDIVIDUAL))
        # A split score hides which of its sides is artificial.
        & ~(
            pl.col("from_boards")
            & pl.col("summed")
            & (pl.col("adjusted_rows").fill_null(0) != pl.col("artificial_rows").fill_null(0))
        )
    )

    # Every member seated in a rated competition, whatever its format (for the taint).
    entrants = ensure(t["entrants"], "competition_id", pl.String)
    entrants = ensure(entrants, "entrant", pl.String)
    for column in ("player1", "player2", "player3", "player4"):
        entrants = ensure(entrants, column, pl.Int64)
    entrants = ensure(entrants, "direction", pl.String)
    seated = (
        entrants.join(comps.select("competition_id", "comp", "month", "covered"), on="competition_id")
        .unpivot(
            index=["comp", "month", "covered"],
            on=["player1", "player2", "player3", "player4"],
            value_name="member_id",
        )
        .drop_nulls("member_id")
        .join(members.filter(pl.col("kind") != "foreign").select("member_id", "idx"), on="member_id")
        .select("comp", "month", "covered", "idx")
    )

    # The replayed competitions' entrants, numbered, with their results and opponents.
    covered = comps.filter("covered")
    ents = (
        entrants.join(
            covered.select(
                "competition_id", "comp", "month", "kind", "scoring", "summed", "from_boards", "n_b", "class"
            ),
            on="competition_id",
        )
        .sort("competition_id", "entrant")
        .with_row_index("ent")
    )
    ents = ents.join(entrant_results(t, ents), on=["comp", "entrant"], how="left")
    missing = ents.filter(pl.col("achieved").is_null() | pl.col("n_g").is_null())
    if missing.height:
        first = missing.row(0, named=True)
        sys.exit(
            f"{missing.height} entrants of replayed competitions have no result, e.g. "
            f"`{first['entrant']}` of {first['competition_id']}: is --run the run of --data?"
        )
    ents = ents.join(
        ents.select("comp", opponent="entrant", opp="ent"), on=["comp", "opponent"], how="left"
    )

    # Per competition: the expected result's divisor C_b·result_scale, and Δh's
    # coefficient before N_G and the gap, multiplied in the model's order.
    s_top, cb_top = f["methods"]["topscore"]
    s_imp, cb_imp = f["methods"]["imp"]
    is_mp = pl.col("scoring") == "matchpoints"
    s = pl.when(is_mp).then(s_top).otherwise(s_imp)
    c_b = pl.when(is_mp).then(cb_top).otherwise(cb_imp)

    def per_kind(position: int) -> pl.Expr:
        value = pl.lit(None, dtype=pl.Float64)
        for kind, factors in f["formats"].items():
            value = pl.when(pl.col("kind") == kind).then(factors[position]).otherwise(value)
        return value

    c_k, c_u, result_scale = per_kind(0), per_kind(1), per_kind(2)
    n_b = pl.col("n_b").cast(pl.Float64)
    weight = (n_b + s) / (n_b - 1.0)
    multiplier = (
        pl.col("class").replace_strict(f["class_weights"], default=1.0, return_dtype=pl.Float64)
        if f["class_weights"]
        else pl.lit(1.0)
    )
    ents = ents.with_columns(
        divisor=c_b * result_scale,
        coef=-(1.0 / f["impact"]) * weight * multiplier * c_u * c_k * c_b,
    )

    # The field a pair is compared with: a fixed-direction pairs field with both
    # directions is two fields (a Mitchell has two winners); otherwise the competition.
    split = (
        pl.col("kind").is_in([PAIRS, DATUM])
        & pl.col("direction").is_not_null().all().over("comp")
        & (pl.col("direction") == "NS").any().over("comp")
        & (pl.col("direction") == "EW").any().over("comp")
    )
    ents = ents.with_columns(
        field=pl.col("comp").cast(pl.Int64) * 2 + (split & (pl.col("direction") == "EW")).cast(pl.Int64),
        dir=pl.col("direction").replace_strict({"NS": 0, "EW": 1}, default=None, return_dtype=pl.Int8),
    )

    # Units: a pair (players 1 and 2; a team's second pair is players 3 and 4), or an
    # individual player. Each player's member index, status and reported level.
    common = ["comp", "ent", "opp", "field", "month", "kind", "dir", "achieved", "n_g", "divisor", "coef"]
    units = pl.concat(
        [
            ents.select(*common, unit=pl.lit(0, pl.Int8), pa="player1", pb="player2"),
            ents.filter(pl.col("kind") == TEAM_MATCH).select(
                *common, unit=pl.lit(1, pl.Int8), pa="player3", pb="player4"
            ),
        ]
    ).with_columns(single=pl.col("kind") == INDIVIDUAL)
    status = members.select(
        "member_id",
        "idx",
        st=pl.when(pl.col("kind") == "foreign").then(FOREIGN).otherwise(MEMBER).cast(pl.Int8),
        level=pl.when(pl.col("kind") == "foreign").then(pl.col("start_handicap")),
    )
    for slot in ("a", "b"):
        units = units.join(
            status.rename(
                {"member_id": f"p{slot}", "idx": f"i{slot}", "st": f"st{slot}", "level": f"lvl{slot}"}
            ),
            on=f"p{slot}",
            how="left",
        ).with_columns(
            pl.col(f"st{slot}").fill_null(NON_MEMBER),
            # Only a member's handicap is read and updated; a guest's is settled.
            pl.when(pl.col(f"st{slot}") == MEMBER).then(pl.col(f"i{slot}")).alias(f"i{slot}"),
        )
    units = units.drop("pa", "pb").sort("ent", "unit")
    entrant_names = ents.select("ent", "competition_id", "entrant")
    return {"members": members, "comps": comps, "units": units, "seated": seated, "entrants": entrant_names}


def entrant_results(t: dict, ents: pl.DataFrame) -> pl.DataFrame:
    """`achieved` (r, in the model's unit), `n_g` and `opponent` (team events) of every
    entrant of a replayed competition (`comp`, `entrant`), from the reported results or
    from the run's scoring of the board rows."""
    info = ents.select("competition_id", "comp", "kind", "scoring", "summed", "from_boards").unique("comp")
    per_board = pl.col("score") / pl.col("n_g").cast(pl.Float64)
    out = []

    # Reported results. Summed cross-IMPs are divided by the comparisons: the other
    # tables, from the competition's number of entrants (four to a table in an
    # individual event, two otherwise).
    reported = info.filter(~pl.col("from_boards"))
    if reported.height and t["results"] is not None:
        results = ensure(t["results"], "opponent", pl.String)
        counts = ents.group_by("comp").agg(n_entrants=pl.len())
        rows = (
            results.select(
                pl.col("competition_id").cast(pl.String),
                pl.col("entrant").cast(pl.String),
                pl.col("score").cast(pl.Float64),
                n_g=pl.col("boards_played").cast(pl.Int64),
                opponent=pl.col("opponent").cast(pl.String),
            )
            .join(reported, on="competition_id")
            .join(counts, on="comp")
        )
        per_table = pl.when(pl.col("kind") == INDIVIDUAL).then(4).otherwise(2)
        tables = (pl.col("n_entrants") // per_table).cast(pl.Float64)
        comparisons = (
            pl.when(pl.col("summed")).then(pl.max_horizontal(tables - 1.0, pl.lit(1.0))).otherwise(1.0)
        )
        out.append(
            rows.select(
                "comp",
                "entrant",
                "kind",
                "score",
                "n_g",
                "opponent",
                achieved=pl.when(pl.col("scoring") == "matchpoints")
                .then(pl.col("score") - 50.0)
                .when(pl.col("scoring") == "cross_imps")
                .then(per_board / comparisons)
                .otherwise(per_board),
            )
        )

    scored = info.filter(pl.col("from_boards"))
    standings = t["standings"].join(scored, on="competition_id")
    # Who met whom at the table in a team event, from the run's board scores.
    opponents = None
    if t["board_scores"] is not None:
        teams = scored.filter(pl.col("kind").is_in([TEAM_MATCH, ACROSS])).select("competition_id", "comp")
        tables = t["board_scores"].join(teams, on="competition_id")
        opponents = (
            pl.concat(
                [
                    tables.select("comp", entrant="ns", opponent="ew"),
                    tables.select("comp", entrant="ew", opponent="ns"),
                ]
            )
            .group_by("comp", "entrant")
            .agg(pl.col("opponent").first())
        )
    # Matchpoints: the run's percentage. Team matches: the run's match total.
    simple = standings.filter((pl.col("scoring") == "matchpoints") | (pl.col("kind") == TEAM_MATCH))
    simple = simple.select(
        "comp",
        "entrant",
        "kind",
        pl.col("score").cast(pl.Float64),
        n_g=pl.col("boards_played").cast(pl.Int64),
        achieved=pl.when(pl.col("scoring") == "matchpoints").then(pl.col("percent").fill_null(50.0) - 50.0),
    )
    # IMPs across the field or against a datum: each entrant's IMPs over its boards.
    imp = scored.filter((pl.col("scoring") != "matchpoints") & (pl.col("kind") != TEAM_MATCH))
    if imp.height:
        rows = t["board_scores"].join(imp.select("competition_id", "comp", "summed"), on="competition_id")
        # Summed cross-IMPs back to averages, as the model reads them: a real score's
        # sum over the other real scores of the board, an artificial one's over the
        # comparisons a full board has.
        summed = rows.filter("summed").with_columns(
            divide=pl.when(pl.col("ns_score").is_not_null())
            .then(pl.col("ns_score").is_not_null().sum().over("comp", "board") - 1)
            .otherwise(pl.len().over("comp", "board").max().over("comp") - 1)
            .cast(pl.Float64)
        )

        def side(frame: pl.DataFrame, name: str, points: str) -> pl.DataFrame:
            value = pl.col(points)
            if "divide" in frame.columns:
                value = pl.when(pl.col("divide") > 0).then(value / pl.col("divide")).otherwise(0.0)
            return frame.select("comp", pl.col(name).alias("entrant"), points=value)

        plain = rows.filter(~pl.col("summed"))
        points = (
            pl.concat(
                [side(frame, name, name + "_points") for frame in (plain, summed) for name in ("ns", "ew")]
            )
            .group_by("comp", "entrant")
            .agg(pl.col("points").sum())
        )
        played = standings.filter(
            (pl.col("scoring") != "matchpoints") & (pl.col("kind") != TEAM_MATCH)
        ).select("comp", "entrant", "kind", n_g=pl.col("boards_played").cast(pl.Int64))
        simple = pl.concat(
            [
                simple,
                played.join(points, on=["comp", "entrant"], how="left").select(
                    "comp",
                    "entrant",
                    "kind",
                    score="points",
                    n_g="n_g",
                    achieved=pl.col("points") / pl.col("n_g").cast(pl.Float64),
                ),
            ]
        )
    if opponents is not None:
        simple = simple.join(opponents, on=["comp", "entrant"], how="left")
    else:
        simple = simple.with_columns(opponent=pl.lit(None, dtype=pl.String))
    out.append(simple)
    results = pl.concat(out, how="diagonal_relaxed")

    # A team match's result is the net margin per board: the match totals either add
    # up to 0 (net margins) or are both IMPs won.
    teams = results.filter(pl.col("kind") == TEAM_MATCH)
    teams = teams.join(
        teams.select("comp", opponent="entrant", other="score"), on=["comp", "opponent"], how="left"
    )
    own, other = pl.col("score"), pl.col("other")
    margin = (
        pl.when((own + other).abs() < 1e-9)
        .then(own)
        .when((own >= 0.0) & (other >= 0.0))
        .then(own - other)
    )
    teams = teams.with_columns(achieved=margin / pl.col("n_g").cast(pl.Float64))
    results = pl.concat([results.filter(pl.col("kind") != TEAM_MATCH), teams.drop("other")])
    return results.select(
        "comp",
        "entrant",
        "achieved",
        "n_g",
        opponent=pl.when(pl.col("kind").is_in([TEAM_MATCH, ACROSS])).then(pl.col("opponent")),
    )


# --------------------------------------------------------------------------- one month


def neumaier_sum(values: list[float]) -> float:
    """The model's order-free sum: sorted, with Neumaier's compensation."""
    total = compensation = 0.0
    for x in sorted(values):
        t = total + x
        compensation += (total - t) + x if abs(total) >= abs(x) else (x - t) + total
        total = t
    return total + compensation


def across_expected(hs: list[float], dirs: list[int], opps: list[int], divisor: float) -> list[float]:
    """Expected results of the pairs of a team event scored across the field (`dirs`:
    0 for N/S, 1 for E/W)."""
    means = []
    for d in (0, 1):
        own = [h for h, e in zip(hs, dirs) if e == d]
        means.append(neumaier_sum(own) / len(own) if own else 0.0)
    return [((hs[o] + means[d]) - means[1 - d] - h) / divisor for h, d, o in zip(hs, dirs, opps)]


def solve(m: list[list[float]]) -> list[float] | None:
    """Gaussian elimination with partial pivoting; None for a singular system."""
    n = len(m)
    for col in range(n):
        pivot = col
        for row in range(col + 1, n):
            if abs(m[row][col]) >= abs(m[pivot][col]):
                pivot = row
        if abs(m[pivot][col]) < 1e-12:
            return None
        m[col], m[pivot] = m[pivot], m[col]
        for row in range(col + 1, n):
            factor = m[row][col] / m[col][col]
            for k in range(col, n + 1):
                m[row][k] -= factor * m[col][k]
    x = [0.0] * n
    for row in reversed(range(n)):
        tail = sum(m[row][k] * x[k] for k in range(row + 1, n))
        x[row] = (m[row][n] - tail) / m[row][row]
    return x


def across_estimates(units: pl.DataFrame) -> pl.DataFrame:
    """Estimate c for the pairs of team events scored across the field: the handicaps
    at which every estimated pair's expected result, by that format's own formula,
    equals its result. Linear, so solved from the expected results at 0 and at 1 for
    each estimated pair, per competition. A competition whose system is singular (both
    pairs of a table estimated) keeps the across-the-field closed form."""
    exact: list[tuple[int, float]] = []
    columns = ["ent", "opp", "dir", "done", "how", "achieved", "divisor"]
    for comp in units.select("comp", *columns).partition_by("comp"):
        rows = comp.sort("ent").to_dict(as_series=False)
        position = {e: i for i, e in enumerate(rows["ent"])}
        opps = [position[o] for o in rows["opp"]]
        base = [0.0 if how == ESTIMATE else done for how, done in zip(rows["how"], rows["done"])]
        estimated = [i for i, how in enumerate(rows["how"]) if how == ESTIMATE]
        divisor = rows["divisor"][0]
        at_zero = across_expected(base, rows["dir"], opps, divisor)
        matrix = [[0.0] * len(estimated) + [rows["achieved"][i] - at_zero[i]] for i in estimated]
        for j, e in enumerate(estimated):
            moved = list(base)
            moved[e] = 1.0
            at_one = across_expected(moved, rows["dir"], opps, divisor)
            for row, i in zip(matrix, estimated):
                row[j] = at_one[i] - at_zero[i]
        solution = solve(matrix)
        if solution is not None:
            exact.extend((rows["ent"][i], x) for i, x in zip(estimated, solution))
    return pl.DataFrame(exact, schema={"ent": pl.UInt32, "exact": pl.Float64}, orient="row")


def rate_month(units: pl.DataFrame, h: pl.Series, f: dict) -> tuple[pl.DataFrame, set[int]]:
    """One month's fields, from the handicaps `h` the month opened with: every unit's
    settled handicap, every entrant's expected result, and Δh of every member it updates.
    Returns the updates (entrant `ent`, member `idx`, `delta`) and the competitions
    (`comp`) left unrated. Two lazy queries (on the in-memory engine, the faster one for
    a month's frames): settling the units, then, after the estimates of team events
    scored across the field, the expectations and changes."""
    single = pl.col("single")
    rated_a = pl.col("sta") == MEMBER
    rated_b = ~single & (pl.col("stb") == MEMBER)
    lazy = units.lazy().with_columns(
        ha=pl.lit(h).gather(pl.col("ia")),
        hb=pl.lit(h).gather(pl.col("ib")),
        cls=pl.when(rated_a & (single | rated_b))
        .then(KNOWN)
        .when((pl.col("sta") == NON_MEMBER) | (~single & (pl.col("stb") == NON_MEMBER)))
        .then(NON_MEMBER_UNIT)
        .otherwise(GUEST),
    )
    # A team match's estimate needs every pair of the opposing team known.
    team_known = lazy.group_by("ent").agg(opp_known=(pl.col("cls") == KNOWN).all())
    lazy = lazy.join(team_known.rename({"ent": "opp"}), on="opp", how="left")

    # Which of the guest methods can settle each unit, in the factor set's order (a
    # non-member unit tries c first).
    level_a = pl.when(rated_a).then(pl.col("ha")).otherwise(pl.col("lvla"))
    level_b = pl.when(rated_b).then(pl.col("hb")).otherwise(pl.col("lvlb"))
    can = {
        "a": (pl.col("cls") != NON_MEMBER_UNIT)
        & (rated_a | ((pl.col("sta") == FOREIGN) & pl.col("lvla").is_not_null()))
        & (single | rated_b | ((pl.col("stb") == FOREIGN) & pl.col("lvlb").is_not_null())),
        "b": ~single & (rated_a ^ rated_b),
        "c": pl.when(pl.col("kind") == TEAM_MATCH)
        .then(pl.col("opp_known").fill_null(False))
        .otherwise((pl.col("cls") == KNOWN).any().over("field")),
    }
    code = {"a": DONE_A, "b": DONE_B, "c": ESTIMATE}

    def first_of(order: list[str]) -> pl.Expr:
        chosen = pl.lit(NO_METHOD)
        for method in reversed(order):
            chosen = pl.when(can[method]).then(code[method]).otherwise(chosen)
        return chosen

    order = f["guest_methods"]
    lazy = lazy.with_columns(
        how=pl.when(pl.col("cls") == KNOWN)
        .then(DONE_KNOWN)
        .when(pl.col("cls") == GUEST)
        .then(first_of(order))
        .otherwise(first_of(["c"] + [m for m in order if m != "c"]))
    )
    # Settled units: the mean of the two handicaps (or levels), or the partner's.
    est = pl.col("how") == ESTIMATE
    lazy = lazy.with_columns(
        done=pl.when(pl.col("how") == DONE_KNOWN)
        .then(pl.when(single).then(pl.col("ha")).otherwise((pl.col("ha") + pl.col("hb")) / 2.0))
        .when(pl.col("how") == DONE_A)
        .then(pl.when(single).then(level_a).otherwise((level_a + level_b) / 2.0))
        .when(pl.col("how") == DONE_B)
        .then(pl.when(rated_a).then(pl.col("ha")).otherwise(pl.col("hb"))),
        # A competition with a unit no method settles is unrated, whole.
        unrated=(pl.col("how") == NO_METHOD).any().over("comp"),
        across_estimate=(pl.col("kind") == ACROSS) & est.any().over("comp"),
    )
    settled = lazy.collect(engine="in-memory")
    unrated = set(settled.filter("unrated")["comp"].unique().to_list())
    settled = settled.filter(~pl.col("unrated"))
    across = settled.filter("across_estimate")
    if across.height:
        settled = settled.join(across_estimates(across), on="ent", how="left")
    else:
        settled = settled.with_columns(exact=pl.lit(None, dtype=pl.Float64))

    # Estimated units, closed form (docs/model.md: X and x_i) over the field: the mean of the
    # others, or of all units against a datum. Pairs of a team event scored across the
    # field use it when their own system is singular.
    lazy = settled.lazy().with_columns(
        n=pl.len().over("field").cast(pl.Float64),
        n_est=est.sum().over("field").cast(pl.Float64),
        settled=pl.col("done").sum().over("field"),
        r_est=pl.when(est).then(pl.col("achieved")).sum().over("field"),
    )
    datum = pl.col("kind") == DATUM
    k = pl.when(datum).then(pl.col("n")).otherwise(pl.col("n") - 1.0)
    rate = pl.col("divisor")
    x_sum = (pl.col("n_est") * pl.col("settled") - k * rate * pl.col("r_est")) / (
        pl.col("n") - pl.col("n_est")
    )
    closed = (
        pl.when(datum)
        .then((pl.col("settled") + x_sum) / pl.col("n") - rate * pl.col("achieved"))
        .otherwise((pl.col("settled") + x_sum - k * rate * pl.col("achieved")) / pl.col("n"))
    )
    # A team match's estimated pairs share what the match leaves of the team's sum.
    team = lazy.group_by("ent").agg(own_known=pl.col("done").sum(), team_est=est.sum().cast(pl.Float64))
    lazy = lazy.join(team, on="ent", how="left").join(
        team.select(opp="ent", opp_sum="own_known"), on="opp", how="left"
    )
    team_share = (
        pl.col("opp_sum") - pl.col("divisor") * pl.col("achieved") - pl.col("own_known")
    ) / pl.col("team_est")
    lazy = lazy.with_columns(
        hp=pl.when(~est)
        .then(pl.col("done"))
        .when(pl.col("kind") == TEAM_MATCH)
        .then(team_share)
        .otherwise(pl.coalesce(pl.col("exact"), closed))
    )

    # Expected results. Across the field: the others' mean (all units' against a
    # datum). Team match: the opposing team's pairs against the own. Pair of a team
    # event: its table opponents and its direction's mean against the other direction's.
    lazy = lazy.with_columns(
        total=pl.col("hp").sum().over("field"),
        team_sum=pl.col("hp").sum().over("ent"),
        dir_mean=pl.col("hp").mean().over("comp", "dir"),
    )
    by_entrant = lazy.group_by("ent").agg(
        opp_team=pl.col("team_sum").first(),
        opp_hp=pl.col("hp").first(),
        opp_dir_mean=pl.col("dir_mean").first(),
    )
    lazy = lazy.join(by_entrant.rename({"ent": "opp"}), on="opp", how="left")
    field_mean = (
        pl.when(datum)
        .then(pl.col("total") / pl.col("n"))
        .when(pl.col("kind") == ACROSS)
        .then(pl.col("opp_hp") + pl.col("dir_mean") - pl.col("opp_dir_mean"))
        .otherwise((pl.col("total") - pl.col("hp")) / (pl.col("n") - 1.0))
    )
    expected = (
        pl.when(pl.col("kind") == TEAM_MATCH)
        .then((pl.col("opp_team") - pl.col("team_sum")) / pl.col("divisor"))
        .otherwise((field_mean - pl.col("hp")) / pl.col("divisor"))
    )
    lazy = lazy.with_columns(
        delta=pl.col("coef") * pl.col("n_g").cast(pl.Float64) * (pl.col("achieved") - expected)
    )
    # Members of a unit with a non-member are not updated; foreign guests never are.
    updated = lazy.filter(pl.col("cls") != NON_MEMBER_UNIT)
    updates = pl.concat(
        [
            updated.filter(rated_a).select("ent", idx="ia", delta="delta"),
            updated.filter(rated_b).select("ent", idx="ib", delta="delta"),
        ]
    ).collect(engine="in-memory")
    return updates, unrated


# --------------------------------------------------------------------------- the months


def replay(p: dict, f: dict) -> dict:
    """The months in order: each rated from the handicaps it opened with, its changes
    summed per member and capped once at its end. Also carries the taint forward."""
    members = p["members"]
    h = members["start"].rename("h")
    tainted = pl.Series("tainted", [False] * members.height)
    units_by_month = p["units"].partition_by("month", as_dict=True, include_key=False)
    seats_by_month = p["seated"].partition_by("month", as_dict=True, include_key=False)
    months = sorted({k[0] for k in units_by_month} | {k[0] for k in seats_by_month})
    updates_total = 0
    unrated: set[int] = set()
    for month in months:
        # The taint at the month's end, from the one it opened with.
        seats = seats_by_month.get((month,))
        if seats is not None:
            seats = seats.with_columns(was=pl.lit(tainted).gather(pl.col("idx")))
            reached = seats.filter(~pl.col("covered") | pl.col("was").any().over("comp"))["idx"]
            if reached.len():
                tainted = tainted.scatter(reached.unique(), True)
        units = units_by_month.get((month,))
        if units is None or units.height == 0:
            continue
        updates, left = rate_month(units, h, f)
        unrated |= left
        updates_total += updates.height
        # The month's changes summed per member; the cap (and floor) apply once.
        sums = updates.group_by("idx").agg(pl.col("delta").sum())
        moved = (h.gather(sums["idx"]) + sums["delta"]).clip(upper_bound=f["cap"])
        if f["floor"] is not None:
            moved = moved.clip(lower_bound=f["floor"])
        h = h.scatter(sums["idx"], moved)
    names = p["comps"].filter(pl.col("comp").is_in(sorted(unrated)))["competition_id"]
    return {
        "h": h,
        "tainted": tainted,
        "updates": updates_total,
        "unrated": set(names),
        "months": len(months),
    }


# --------------------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(
        description="Frozen-mode replay of the handicap model in polars, compared with a run."
    )
    ap.add_argument("--data", required=True, type=pathlib.Path, help="the dataset folder")
    ap.add_argument(
        "--run", required=True, type=pathlib.Path, help="output folder of `bridgehcp run --mode frozen`"
    )
    ap.add_argument("--factors", type=pathlib.Path, default=DEFAULT_FACTORS, help="factor set (TOML)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON line")
    args = ap.parse_args()

    f = load_factors(args.factors)
    started = time.perf_counter()
    t = read_inputs(args.data, args.run)
    read_s = time.perf_counter() - started

    manifest = t["manifest"]
    if manifest.get("mode") not in (None, "frozen"):
        sys.exit(f"{args.run} is a `{manifest['mode']}` run; this replay is of frozen mode")
    if manifest.get("until") or (manifest.get("inputs") or {}).get("state"):
        sys.exit(f"{args.run} is a run with --until or --state; compare with a run over the whole dataset")
    run_factors = ((manifest.get("inputs") or {}).get("factors") or {}).get("name")
    if run_factors not in (None, f["name"]):
        sys.exit(f"{args.run} ran factor set `{run_factors}`, not `{f['name']}` (see --factors)")

    started = time.perf_counter()
    prepared = prepare(t, f)
    prepare_s = time.perf_counter() - started
    started = time.perf_counter()
    out = replay(prepared, f)
    months_s = time.perf_counter() - started

    warnings = []
    comps = prepared["comps"]
    if t["board_scores"] is None and not comps["covered"].all():
        warnings.append(
            f"{args.run} has no board_scores.parquet (a run with --no-board-scores): "
            "IMP and team events scored from board rows are left out"
        )
    covered = set(comps.filter("covered")["competition_id"].to_list())
    run_unrated = t["unrated"] & covered
    if run_unrated != out["unrated"]:
        warnings.append(
            f"unrated competitions differ from unrated.csv: the run's only "
            f"{sorted(run_unrated - out['unrated'])[:5]}, this replay's only "
            f"{sorted(out['unrated'] - run_unrated)[:5]}"
        )

    # The comparison, on the members the replay follows exactly.
    members = prepared["members"].with_columns(peer=out["h"], tainted=out["tainted"])
    theirs = pl.read_parquet(args.run / "handicaps.parquet", columns=["member_id", "handicap"])
    both = members.join(theirs, on="member_id", how="inner")
    if both.height != members.height:
        warnings.append(f"{members.height - both.height} members are not in handicaps.parquet")
    players = prepared["seated"].filter("covered")["idx"].unique()
    candidates = both.filter(pl.col("kind") != "foreign")
    compared = candidates.filter(~pl.col("tainted")).with_columns(
        played=pl.col("idx").is_in(players.implode()),
        diff=(pl.col("peer") - pl.col("handicap")).abs(),
    )
    max_diff = compared["diff"].max() if compared.height else None
    figures = {
        "read_s": round(read_s, 4),
        "replay_s": round(prepare_s + months_s, 4),
        "prepare_s": round(prepare_s, 4),
        "months_s": round(months_s, 4),
        "months": out["months"],
        "competitions": comps.height,
        "competitions_replayed": len(covered) - len(out["unrated"]),
        "competitions_unrated": len(out["unrated"]),
        "competitions_left_out": comps.height - len(covered),
        "player_updates": out["updates"],
        "members_compared": compared.height,
        "members_compared_played": int(compared["played"].sum()),
        "members_left_out": candidates.height - compared.height,
        "max_abs_diff": max_diff,
        "warnings": warnings,
    }
    if args.json:
        print(json.dumps(figures))
        return
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    print(
        f"polars frozen replay: read {read_s:.2f} s, replay {prepare_s + months_s:.2f} s "
        f"(preparing {prepare_s:.2f} s, {out['months']} months {months_s:.2f} s), "
        f"{out['updates']} player updates"
    )
    print(
        f"competitions: {comps.height} rated and not quarantined, "
        f"{figures['competitions_replayed']} replayed, {len(out['unrated'])} unrated, "
        f"{figures['competitions_left_out']} left out (cases this replay does not cover)"
    )
    diff = "-" if max_diff is None else f"{max_diff:.3e}"
    print(
        f"against {args.run / 'handicaps.parquet'}: {compared.height} members compared "
        f"({figures['members_compared_played']} of them played), "
        f"{figures['members_left_out']} left out (tainted by competitions not replayed); "
        f"largest absolute difference {diff}"
    )


if __name__ == "__main__":
    main()
