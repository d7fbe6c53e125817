//! Glicko-2's rating period (Glickman 2012) for a field's entrants, every player of an
//! entrant at once.
//!
//! The study's Glicko-2 baseline plays each entrant against every other of its group,
//! and each player of the entrant carries the entrant's rating into the period with
//! their own deviation and volatility. The `skillratings` crate's
//! `glicko2_rating_period` takes one player at a time, so the sums over the games (a
//! logistic expectation per game), which are the entrant's and the same for both its
//! players, were computed twice, and each opponent's weight once per game: most of the
//! baseline's time. Here they are computed once per entrant, and the crate's arithmetic
//! is kept operation for operation, so that the ratings are the same to the bit (a
//! property test holds the two side by side).

use std::f64::consts::PI;

use skillratings::glicko2::{decay_deviation, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

/// Glicko-2's scale: a rating of 1500 is 0, and 173.7178 points are 1.
const SCALE: f64 = 173.7178;
const CENTRE: f64 = 1500.0;

/// An opponent as the expectations need it: the weight of its deviation and its
/// rating on Glicko-2's scale.
#[derive(Debug, Clone, Copy)]
pub struct Opponent {
    weight: f64,
    rating: f64,
}

impl Opponent {
    pub fn of(r: &Glicko2Rating) -> Opponent {
        let deviation = r.deviation / SCALE;
        Opponent {
            weight: (1.0 + ((3.0 * deviation.powi(2)) / (PI.powi(2))))
                .sqrt()
                .recip(),
            rating: (r.rating - CENTRE) / SCALE,
        }
    }
}

/// An entrant's period: its rating on Glicko-2's scale, the estimated variance of
/// its performance (`v`) and the sum of its results over expectations.
#[derive(Debug, Clone, Copy)]
pub struct Period {
    rating: f64,
    v: f64,
    scores: f64,
}

impl Period {
    /// The period of an entrant rated `rating` against `games`; none without a game.
    pub fn new(rating: f64, games: &[(Opponent, Outcomes)]) -> Option<Period> {
        if games.is_empty() {
            return None;
        }
        let rating = (rating - CENTRE) / SCALE;
        // Each game's expectation once, for both sums (the crate computes it for each).
        let expected: Vec<f64> = games
            .iter()
            .map(|(o, _)| (1.0 + (-o.weight * (rating - o.rating)).exp()).recip())
            .collect();
        let v = games
            .iter()
            .zip(&expected)
            .map(|((o, _), e)| o.weight.powi(2) * e * (1.0 - e))
            .sum::<f64>()
            .recip();
        let scores: f64 = games
            .iter()
            .zip(&expected)
            .map(|((o, outcome), e)| o.weight * (outcome.to_chess_points() - e))
            .sum();
        Some(Period { rating, v, scores })
    }
}

/// A player's rating after `period` (none: no game, the deviation only grows), the
/// player's own deviation and volatility carried in with the entrant's rating.
pub fn rate(
    player: &Glicko2Rating,
    period: Option<&Period>,
    config: &Glicko2Config,
) -> Glicko2Rating {
    let Some(p) = period else {
        return decay_deviation(player);
    };
    let deviation = player.deviation / SCALE;
    let delta = p.v * p.scores;
    let volatility = new_volatility(
        player.volatility,
        delta.powi(2),
        deviation.powi(2),
        p.v,
        config.tau,
        config.convergence_tolerance,
    );
    let deviation = (deviation.hypot(volatility).powi(2).recip() + p.v.recip())
        .sqrt()
        .recip();
    let rating = deviation.powi(2).mul_add(p.scores, p.rating);
    Glicko2Rating {
        rating: rating.mul_add(SCALE, CENTRE),
        deviation: deviation * SCALE,
        volatility,
    }
}

/// The new volatility: the root of Glickman's `f` by the Illinois method.
fn new_volatility(
    volatility: f64,
    delta_squared: f64,
    deviation_squared: f64,
    v: f64,
    tau: f64,
    tolerance: f64,
) -> f64 {
    let f = |x: f64| {
        let i = (x.exp() * (delta_squared - deviation_squared - v - x.exp()))
            / (2.0 * (deviation_squared + v + x.exp()).powi(2));
        let j = (x - volatility.powi(2).ln()) / tau.powi(2);
        i - j
    };
    let mut a = volatility.powi(2).ln();
    let mut b = if delta_squared > deviation_squared + v {
        (delta_squared - deviation_squared - v).ln()
    } else {
        let mut k: f64 = 1.0;
        while f(k.mul_add(-tau, a)) < 0.0 {
            k += 1.0;
        }
        k.mul_add(-tau, a)
    };
    let (mut fa, mut fb) = (f(a), f(b));
    while (b - a).abs() > tolerance {
        let c = a + ((a - b) * fa / (fb - fa));
        let fc = f(c);
        if fc * fb <= 0.0 {
            a = b;
            fa = fb;
        } else {
            fa /= 2.0;
        }
        b = c;
        fb = fc;
    }
    (a / 2.0).exp()
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillratings::glicko2::glicko2_rating_period;

    fn bits(r: &Glicko2Rating) -> [u64; 3] {
        [r.rating, r.deviation, r.volatility].map(f64::to_bits)
    }

    /// Glickman's example (a player of 1500, RD 200, against 1400/30 won, 1550/100
    /// and 1700/300 lost): 1464.06, RD 151.52, volatility 0.05999.
    #[test]
    fn glickmans_example() {
        let player = Glicko2Rating {
            rating: 1500.0,
            deviation: 200.0,
            volatility: 0.06,
        };
        let opponent = |rating, deviation| Glicko2Rating {
            rating,
            deviation,
            volatility: 0.06,
        };
        let games = [
            (Opponent::of(&opponent(1400.0, 30.0)), Outcomes::WIN),
            (Opponent::of(&opponent(1550.0, 100.0)), Outcomes::LOSS),
            (Opponent::of(&opponent(1700.0, 300.0)), Outcomes::LOSS),
        ];
        let config = Glicko2Config::new();
        let after = rate(&player, Period::new(1500.0, &games).as_ref(), &config);
        assert!((after.rating - 1464.06).abs() < 0.01);
        assert!((after.deviation - 151.52).abs() < 0.01);
        assert!((after.volatility - 0.05999).abs() < 0.00001);
    }

    proptest::proptest! {
        /// Any entrant's rating, any player's deviation and volatility, any games: the
        /// crate's rating period, to the bit.
        #[test]
        fn the_crates_rating_period_to_the_bit(
            entrant in 1000.0f64..2000.0,
            deviation in 10.0f64..350.0,
            volatility in 0.03f64..0.09,
            games in proptest::collection::vec(
                (1000.0f64..2000.0, 10.0f64..350.0, 0usize..3),
                0..14,
            ),
        ) {
            let player = Glicko2Rating { rating: entrant, deviation, volatility };
            let opponents: Vec<(Glicko2Rating, Outcomes)> = games
                .iter()
                .map(|&(rating, deviation, o)| {
                    let outcome = [Outcomes::LOSS, Outcomes::DRAW, Outcomes::WIN][o];
                    (Glicko2Rating { rating, deviation, volatility: 0.06 }, outcome)
                })
                .collect();
            let ours: Vec<(Opponent, Outcomes)> =
                opponents.iter().map(|(r, o)| (Opponent::of(r), *o)).collect();
            let config = Glicko2Config::new();
            let after = rate(&player, Period::new(entrant, &ours).as_ref(), &config);
            let theirs = glicko2_rating_period(&player, &opponents, &config);
            proptest::prop_assert_eq!(bits(&after), bits(&theirs));
        }
    }
}
