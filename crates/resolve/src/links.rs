//! The type hierarchy's links, type → types (its bases, or the types deriving from it): a map
//! while the inheritance pass adds to them (and for good in a resolver the patcher changes),
//! then, once complete, three flat arrays. As a map of vectors they were about 100 bytes a
//! link (1.2 MiB for the 12.5k clauses of 73 MB of source); flat, 12 to 20.

use rustc_hash::FxHashMap;

pub(crate) enum Links {
    Map(FxHashMap<i64, Vec<i64>>),
    /// The keys sorted; key `k`'s types are `types[ends[k - 1]..ends[k]]` (from 0 for the
    /// first), in the order they were added.
    Flat {
        keys: Box<[i64]>,
        ends: Box<[u32]>,
        types: Box<[i64]>,
    },
}

impl Default for Links {
    fn default() -> Links {
        Links::Map(FxHashMap::default())
    }
}

impl Links {
    /// The types linked from `id`, in the order they were added.
    pub(crate) fn get(&self, id: i64) -> &[i64] {
        match self {
            Links::Map(m) => m.get(&id).map_or(&[], Vec::as_slice),
            Links::Flat { keys, ends, types } => match keys.binary_search(&id) {
                Ok(k) => {
                    let start = if k == 0 { 0 } else { ends[k - 1] as usize };
                    &types[start..ends[k] as usize]
                }
                Err(_) => &[],
            },
        }
    }

    pub(crate) fn contains(&self, id: i64) -> bool {
        !self.get(id).is_empty()
    }

    /// Adds a link (only to a map).
    pub(crate) fn push(&mut self, from: i64, to: i64) {
        self.map_mut().entry(from).or_default().push(to);
    }

    /// The links as a map, to change (only links never flattened change).
    pub(crate) fn map_mut(&mut self) -> &mut FxHashMap<i64, Vec<i64>> {
        match self {
            Links::Map(m) => m,
            Links::Flat { .. } => panic!("flat links do not change"),
        }
    }

    /// Lays the links out flat; they no longer change.
    pub(crate) fn flatten(&mut self) {
        let Links::Map(m) = self else {
            return;
        };
        let mut keys: Vec<i64> = m.keys().copied().filter(|k| !m[k].is_empty()).collect();
        keys.sort_unstable();
        let mut ends = Vec::with_capacity(keys.len());
        let mut types = Vec::with_capacity(m.values().map(Vec::len).sum());
        for k in &keys {
            types.extend_from_slice(&m[k]);
            ends.push(u32::try_from(types.len()).expect("fewer than 2^32 links"));
        }
        *self = Links::Flat {
            keys: keys.into(),
            ends: ends.into(),
            types: types.into(),
        };
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            Links::Map(m) => {
                m.values().map(|v| v.capacity() * 8).sum::<usize>()
                    + crate::lists::table_bytes::<(i64, Vec<i64>)>(m.capacity())
            }
            Links::Flat { keys, ends, types } => keys.len() * 8 + ends.len() * 4 + types.len() * 8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flat_links_answer_as_the_map_did() {
        let mut links = Links::default();
        for (from, to) in [(5, 1), (-3, 9), (5, 2), (i64::MAX, 0), (5, 1), (0, -7)] {
            links.push(from, to);
        }
        links.map_mut().insert(8, Vec::new());
        let seen = |l: &Links| {
            [-3, 0, 1, 5, 8, 9, i64::MAX, i64::MIN].map(|id| (l.get(id).to_vec(), l.contains(id)))
        };
        let before = seen(&links);
        assert_eq!(before[3], (vec![1, 2, 1], true));
        assert_eq!(before[4], (vec![], false));
        let map_bytes = links.heap_bytes();
        links.flatten();
        assert!(matches!(links, Links::Flat { .. }));
        assert_eq!(seen(&links), before);
        assert!(links.heap_bytes() < map_bytes);
    }
}
