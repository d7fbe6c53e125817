-- The board scores of pairs matchpoint and cross-IMP competitions in plain SQL: the peer
-- the scoring is measured against (benches/scale.sh runs it through DuckDB).
--
-- Expects views `competitions` and `boards` over the dataset. Every real result is
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
    SELECT b.competition_id, b.board, b.ns, b.ew, b.ns_score, b.adjusted
    FROM boards b JOIN fields f USING (competition_id)
),
counted AS (
    SELECT *,
        count(*) OVER (PARTITION BY competition_id, board) AS results,
        count(adjusted) OVER (PARTITION BY competition_id, board) AS artificial
    FROM rows
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
