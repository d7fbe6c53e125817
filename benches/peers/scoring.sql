-- The board scores of pairs matchpoint and cross-IMP competitions in plain SQL: the peer
-- the scoring is measured against (benches/scale.sh runs it through DuckDB).
--
-- Expects views `competitions` and `boards` over the dataset. A row without `ns_score`
-- is scored from its contract, declarer and tricks. Every real result is
-- compared with the other real results of its board; a board played fewer times than
-- the competition's fullest board is raised with Neuberg's formula when the competition
-- factors (matchpoints), and IMP comparisons are summed or averaged as the competition's
-- program does. Boards with an artificial score are left out (their conventions are
-- beyond this peer), so it covers the synthetic federation's ordinary boards.
WITH fields AS (
    SELECT competition_id, scoring, mp_scale, imp_aggregate, coalesce(neuberg, true) AS neuberg
    FROM competitions
    WHERE format = 'pairs' AND scoring IN ('matchpoints', 'cross_imps')
),
rows AS (
    SELECT b.competition_id, b.board, b.ns, b.ew, b.adjusted, b.contract, b.declarer,
        b.tricks, b.ns_score AS given_score
    FROM boards b JOIN fields f USING (competition_id)
),
-- The contract's parts and the board's vulnerability (the standard 16-board cycle).
contracts AS (
    SELECT *,
        upper(trim(contract)) = 'PASS' AS passed,
        TRY_CAST(substr(contract, 1, 1) AS INTEGER) AS level,
        CASE WHEN contract LIKE '_NT%' THEN 'NT' ELSE substr(contract, 2, 1) END AS strain,
        CASE WHEN contract LIKE '%XX' THEN 4 WHEN contract LIKE '%X' THEN 2 ELSE 1 END AS doubled,
        CASE WHEN declarer IN ('N', 'S')
             THEN ((board - 1) % 16) + 1 IN (2, 4, 5, 7, 10, 12, 13, 15)
             ELSE ((board - 1) % 16) + 1 IN (3, 4, 6, 7, 9, 10, 13, 16) END AS vulnerable
    FROM rows
),
-- The duplicate score (Law 77) for the declaring side.
declared AS (
    SELECT *,
        tricks - 6 - level AS over,
        CASE WHEN strain IN ('C', 'D') THEN 20 ELSE 30 END AS per_trick,
        (CASE WHEN strain IN ('C', 'D') THEN 20 * level WHEN strain = 'NT' THEN 30 * level + 10
              ELSE 30 * level END) * doubled AS contract_points
    FROM contracts
),
scored AS (
    SELECT competition_id, board, ns, ew, adjusted,
        coalesce(given_score, CASE
            WHEN passed THEN 0
            WHEN over >= 0 THEN
                (contract_points
                 + CASE WHEN contract_points >= 100 THEN (CASE WHEN vulnerable THEN 500 ELSE 300 END) ELSE 50 END
                 + CASE WHEN level = 6 THEN (CASE WHEN vulnerable THEN 750 ELSE 500 END)
                        WHEN level = 7 THEN (CASE WHEN vulnerable THEN 1500 ELSE 1000 END) ELSE 0 END
                 + CASE doubled WHEN 2 THEN 50 WHEN 4 THEN 100 ELSE 0 END
                 + over * CASE WHEN doubled = 1 THEN per_trick
                               ELSE (CASE WHEN vulnerable THEN 100 ELSE 50 END) * doubled END)
                * CASE WHEN declarer IN ('N', 'S') THEN 1 ELSE -1 END
            ELSE
                -(CASE
                    WHEN doubled = 1 THEN -over * (CASE WHEN vulnerable THEN 100 ELSE 50 END)
                    WHEN vulnerable THEN (200 + 300 * (-over - 1)) * doubled / 2
                    ELSE (100 + 200 * least(-over - 1, 2) + 300 * greatest(-over - 3, 0)) * doubled / 2
                  END)
                * CASE WHEN declarer IN ('N', 'S') THEN 1 ELSE -1 END
        END) AS ns_score
    FROM declared
),
counted AS (
    SELECT *,
        count(*) OVER (PARTITION BY competition_id, board) AS results,
        count(adjusted) OVER (PARTITION BY competition_id, board) AS artificial
    FROM scored
),
expected AS (
    SELECT competition_id, max(results) AS expected FROM counted GROUP BY competition_id
),
real AS (
    SELECT c.*, e.expected FROM counted c JOIN expected e USING (competition_id)
    WHERE c.artificial = 0
),
pairs_compared AS (
    SELECT a.competition_id, a.board, a.ns, a.ew, a.ns_score, a.results, a.expected,
        sum(CASE WHEN a.ns_score > b.ns_score THEN 2 WHEN a.ns_score = b.ns_score THEN 1 ELSE 0 END) - 1 AS mp21,
        -- IMPs (Law 78B): the number of band bounds below the difference.
        sum(sign(a.ns_score - b.ns_score) * len(list_filter(
            [10, 40, 80, 120, 160, 210, 260, 310, 360, 420, 490, 590, 740, 890, 1090, 1290,
             1490, 1740, 1990, 2240, 2490, 2990, 3490, 3990],
            lambda x: x < abs(a.ns_score - b.ns_score)))) AS imp_sum
    FROM real a JOIN real b ON a.competition_id = b.competition_id AND a.board = b.board
    GROUP BY ALL
)
SELECT p.competition_id, p.board, p.ns, p.ew,
    CASE
        WHEN f.scoring = 'matchpoints' THEN
            (CASE WHEN f.neuberg THEN (p.mp21 + 1) * greatest(p.expected, p.results) / p.results - 1 ELSE p.mp21 END)
            - CASE WHEN f.mp_scale = 'plus_minus'
                   THEN (CASE WHEN f.neuberg THEN greatest(p.expected, p.results) ELSE p.results END) - 1
                   ELSE 0 END
        WHEN f.imp_aggregate = 'sum' THEN p.imp_sum
        ELSE p.imp_sum / (p.results - 1)
    END AS ns_points
FROM pairs_compared p JOIN fields f USING (competition_id)
