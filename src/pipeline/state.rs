//! Every member's running handicap, kept in dense arrays.
//!
//! Members are indexed densely in member-id order, so that the replay touches plain
//! vectors rather than maps, and so that every output comes out in the same order
//! whatever the input row order was.

use rustc_hash::FxHashMap as HashMap;

use crate::dataset::{Member, MemberId, MemberKind};
use crate::error::InputError;
use crate::model::{update, FactorSet};

pub use crate::model::player::{month_index, PlayerState};

/// A member list's explicit starting handicap must lie on the factor set's scale: at most
/// the cap, and at least the floor (without a floor, at least minus the cap, further
/// below 0 than any player has been).
fn check_start_handicap(factors: &FactorSet, member: &Member, h: f64) -> Result<f64, InputError> {
    let low = factors.floor.unwrap_or(-factors.cap);
    if (low..=factors.cap).contains(&h) {
        Ok(h)
    } else {
        Err(InputError::new(
            member.origin.location().column("start_handicap"),
            format!(
                "start_handicap must be between {low} and the factor set's cap {}, found {h}",
                factors.cap
            ),
        ))
    }
}

/// Dense member indices, in member-id order.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    pub members: Vec<Member>,
    index: Lookup,
}

/// A member id's dense index. Scoring looks up every player of every competition, and
/// a federation's numbers are usually handed out in a few runs: then one vector over
/// the ids' span answers by subtraction, where a hash map would hash each id.
#[derive(Debug, Clone)]
enum Lookup {
    /// `slots[id - first]`: the index, or [`Lookup::ABSENT`].
    Span { first: MemberId, slots: Vec<u32> },
    /// Numbers spread too thinly for a vector over their span.
    Map(HashMap<MemberId, u32>),
}

impl Default for Lookup {
    fn default() -> Self {
        Lookup::Span {
            first: 0,
            slots: Vec::new(),
        }
    }
}

impl Lookup {
    const ABSENT: u32 = u32::MAX;

    /// At most this many slots per member (plus [`Lookup::SPARE`]) go into a vector
    /// over the span: 4 bytes each, so a few tens of bytes a member at worst.
    const SLOTS_PER_MEMBER: u64 = 8;
    const SPARE: u64 = 1 << 16;

    /// The lookup of `ids`, unique and sorted.
    fn of(ids: &[MemberId]) -> Self {
        let (Some(&first), Some(&last)) = (ids.first(), ids.last()) else {
            return Lookup::default();
        };
        let span = last.abs_diff(first).saturating_add(1);
        let room = Self::SLOTS_PER_MEMBER
            .saturating_mul(ids.len() as u64)
            .saturating_add(Self::SPARE);
        // Indices must stay below ABSENT for the vector to tell them apart.
        if span > room || ids.len() >= Self::ABSENT as usize {
            return Lookup::Map(
                ids.iter()
                    .enumerate()
                    .map(|(i, &id)| (id, i as u32))
                    .collect(),
            );
        }
        let mut slots = vec![Self::ABSENT; span as usize];
        for (i, &id) in ids.iter().enumerate() {
            slots[id.abs_diff(first) as usize] = i as u32;
        }
        Lookup::Span { first, slots }
    }

    fn get(&self, id: MemberId) -> Option<u32> {
        match self {
            Lookup::Span { first, slots } => {
                // Below `first` the difference wraps (or overflows) past every slot.
                let at = usize::try_from(id.checked_sub(*first)?).ok()?;
                slots.get(at).copied().filter(|&i| i != Self::ABSENT)
            }
            Lookup::Map(map) => map.get(&id).copied(),
        }
    }
}

impl Registry {
    /// Members sorted by id. Ids are unique (the reader checks it).
    pub fn new(members: &[Member]) -> Self {
        let mut members = members.to_vec();
        members.sort_by_key(|m| m.member_id);
        let ids: Vec<MemberId> = members.iter().map(|m| m.member_id).collect();
        let index = Lookup::of(&ids);
        Registry { members, index }
    }

    pub fn get(&self, id: MemberId) -> Option<(u32, &Member)> {
        let i = self.index.get(id)?;
        Some((i, self.members.get(i as usize)?))
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The starting state of every member: the explicit starting handicap, or the
    /// masterpoint formula. Foreign guests get a slot too but are never updated.
    pub fn starting_states(&self, factors: &FactorSet) -> Result<Vec<PlayerState>, InputError> {
        self.members
            .iter()
            .map(|m| {
                let h = match m.start_handicap {
                    Some(h) => check_start_handicap(factors, m, h)?,
                    None => {
                        update::start_handicap(&factors.start, m.masterpoints).map_err(|e| {
                            InputError::new(
                                m.origin.location().column("masterpoints"),
                                e.to_string(),
                            )
                        })?
                    }
                };
                let sd = factors.confidence.map(|c| c.start_sd);
                Ok(PlayerState::starting(h, sd))
            })
            .collect()
    }

    pub fn is_foreign(&self, index: u32) -> bool {
        self.members[index as usize].kind == MemberKind::Foreign
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn registry(ids: &[MemberId]) -> Registry {
        let members: Vec<Member> = ids.iter().map(|&id| Member::new(id)).collect();
        Registry::new(&members)
    }

    /// The index each id had from the hash map over the sorted ids, and `None` for any
    /// other number.
    fn by_map(ids: &[MemberId], id: MemberId) -> Option<u32> {
        let mut sorted = ids.to_vec();
        sorted.sort_unstable();
        let map: std::collections::HashMap<MemberId, u32> = sorted
            .iter()
            .enumerate()
            .map(|(i, &id)| (id, i as u32))
            .collect();
        map.get(&id).copied()
    }

    /// Members 100001–100003 and foreign guests 110001–110002, listed out of order: the
    /// ids fall within a span the vector covers, each found at its place in id order,
    /// and the numbers between and around them are nobody.
    #[test]
    fn a_member_is_found_at_its_place_in_id_order() {
        let r = registry(&[110_002, 100_003, 100_001, 110_001, 100_002]);
        assert!(matches!(r.index, Lookup::Span { first: 100_001, .. }));
        let found = |id| r.get(id).map(|(i, m)| (i, m.member_id));
        assert_eq!(found(100_001), Some((0, 100_001)));
        assert_eq!(found(100_002), Some((1, 100_002)));
        assert_eq!(found(100_003), Some((2, 100_003)));
        assert_eq!(found(110_001), Some((3, 110_001)));
        assert_eq!(found(110_002), Some((4, 110_002)));
        for nobody in [
            0,
            -1,
            100_000,
            100_004,
            105_000,
            110_000,
            110_003,
            i64::MIN,
            i64::MAX,
        ] {
            assert_eq!(found(nobody), None, "{nobody}");
        }
        assert!(registry(&[]).get(0).is_none());
    }

    /// Ids spread over more than eight slots a member (plus 65 536) are kept in a map:
    /// 1 and 10 000 000 000 are two members 10¹⁰ apart.
    #[test]
    fn ids_spread_thinly_are_found_through_a_map() {
        let r = registry(&[10_000_000_000, 1, i64::MIN, i64::MAX]);
        assert!(matches!(r.index, Lookup::Map(_)));
        let found = |id| r.get(id).map(|(i, _)| i);
        assert_eq!(found(i64::MIN), Some(0));
        assert_eq!(found(1), Some(1));
        assert_eq!(found(10_000_000_000), Some(2));
        assert_eq!(found(i64::MAX), Some(3));
        assert_eq!(found(2), None);
        // Two members have room for 8·2 + 65 536 = 65 552 slots: ids 0 and 65 551 span
        // exactly that, one more and they are kept in a map.
        assert!(matches!(registry(&[0, 65_551]).index, Lookup::Span { .. }));
        assert!(matches!(registry(&[0, 65_552]).index, Lookup::Map(_)));
    }

    proptest! {
        /// The lookup answers as the hash map over the sorted ids did, for ids packed
        /// closely, spread widely or straddling zero, and for numbers near and far.
        #[test]
        fn the_lookup_answers_as_the_hash_map(
            base in prop_oneof![Just(0i64), Just(100_000), Just(-50), Just(i64::MAX - 5_000), Just(i64::MIN)],
            spread in prop_oneof![Just(1i64), Just(7), Just(1_000), Just(1 << 40)],
            offsets in prop::collection::btree_set(0i64..4_000, 0..60),
            probes in prop::collection::vec(-10i64..4_010, 0..40),
            far in prop::collection::vec(any::<i64>(), 0..10),
        ) {
            let id = |o: i64| base.saturating_add(o.saturating_mul(spread));
            let ids: Vec<MemberId> = offsets.iter().map(|&o| id(o)).collect();
            let mut unique = ids.clone();
            unique.sort_unstable();
            unique.dedup();
            prop_assume!(unique.len() == ids.len());
            let r = registry(&ids);
            let numbers = probes.iter().map(|&o| id(o)).chain(far).chain(ids.iter().copied());
            for number in numbers {
                let got = r.get(number).map(|(i, m)| (i, m.member_id));
                let expected = by_map(&ids, number).map(|i| (i, number));
                prop_assert_eq!(got, expected, "{}", number);
            }
        }
    }
}
