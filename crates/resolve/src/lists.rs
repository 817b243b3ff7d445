//! Lists of table positions (symbols, bindings) by a key made of a name and an owner, that keep
//! no copy of the key: each list is found by the key's hash and recognised by asking the table
//! about its first position. A repository's name tables hold hundreds of thousands of keys;
//! copying each name into them cost more memory than the lists themselves.

use std::hash::{Hash, Hasher};

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;

/// The hash a list is filed under: of the owner (a parent or scope node id, or nothing) and the
/// name.
pub(crate) fn key_hash(owner: Option<i64>, name: &str) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    owner.hash(&mut h);
    name.hash(&mut h);
    h.finish()
}

/// Non-empty lists of positions, each with the hash of its key. `is_key(p)` answers whether the
/// entry at position `p` has the key looked for; it is asked about a list's first position only,
/// so every position of a list must have the list's key.
#[derive(Default)]
pub(crate) struct NameLists {
    table: HashTable<(u64, Vec<u32>)>,
}

impl NameLists {
    /// The positions with the key (none when there is no such list).
    pub(crate) fn get(&self, hash: u64, is_key: impl Fn(u32) -> bool) -> &[u32] {
        self.table
            .find(hash, |(h, list)| {
                *h == hash && list.first().is_some_and(|&p| is_key(p))
            })
            .map(|(_, list)| list.as_slice())
            .unwrap_or(&[])
    }

    /// The list of the key, made when missing: the caller adds at least one position to it.
    pub(crate) fn list_mut(&mut self, hash: u64, is_key: impl Fn(u32) -> bool) -> &mut Vec<u32> {
        let eq =
            |(h, list): &(u64, Vec<u32>)| *h == hash && list.first().is_some_and(|&p| is_key(p));
        match self.table.entry(hash, eq, |(h, _)| *h) {
            Entry::Occupied(e) => &mut e.into_mut().1,
            Entry::Vacant(e) => &mut e.insert((hash, Vec::new())).into_mut().1,
        }
    }

    /// Removes the positions `gone` accepts from the list of the key; an emptied list goes.
    pub(crate) fn remove(
        &mut self,
        hash: u64,
        is_key: impl Fn(u32) -> bool,
        gone: impl Fn(u32) -> bool,
    ) {
        let eq =
            |(h, list): &(u64, Vec<u32>)| *h == hash && list.first().is_some_and(|&p| is_key(p));
        if let Ok(mut e) = self.table.find_entry(hash, eq) {
            let list = &mut e.get_mut().1;
            list.retain(|&p| !gone(p));
            if list.is_empty() {
                e.remove();
            }
        }
    }

    /// Every list, in no particular order.
    #[cfg(test)]
    pub(crate) fn lists(&self) -> impl Iterator<Item = &[u32]> {
        self.table.iter().map(|(_, list)| list.as_slice())
    }

    /// Every list, to renumber positions (keys do not change).
    pub(crate) fn lists_mut(&mut self) -> impl Iterator<Item = &mut Vec<u32>> {
        self.table.iter_mut().map(|(_, list)| list)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.table.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys whose hashes collide keep separate lists: a list is recognised by its entries, not
    /// by its hash.
    #[test]
    fn colliding_hashes_keep_their_lists_apart() {
        let names = ["a", "b", "a", "c", "b", "a"];
        let mut lists = NameLists::default();
        // Every key filed under the same hash.
        for (p, name) in names.iter().enumerate() {
            lists
                .list_mut(7, |q| names[q as usize] == *name)
                .push(p as u32);
        }
        assert_eq!(lists.len(), 3);
        assert_eq!(lists.get(7, |q| names[q as usize] == "a"), &[0, 2, 5]);
        assert_eq!(lists.get(7, |q| names[q as usize] == "b"), &[1, 4]);
        assert_eq!(lists.get(7, |q| names[q as usize] == "c"), &[3]);
        assert_eq!(lists.get(7, |q| names[q as usize] == "d"), &[] as &[u32]);
        assert_eq!(lists.get(8, |q| names[q as usize] == "a"), &[] as &[u32]);
        lists.remove(7, |q| names[q as usize] == "b", |p| p == 1);
        assert_eq!(lists.get(7, |q| names[q as usize] == "b"), &[4]);
        lists.remove(7, |q| names[q as usize] == "c", |_| true);
        assert_eq!(lists.len(), 2);
        assert_eq!(lists.get(7, |q| names[q as usize] == "c"), &[] as &[u32]);
        for list in lists.lists_mut() {
            list.iter_mut().for_each(|p| *p += 10);
        }
        let mut all: Vec<Vec<u32>> = lists.lists().map(<[u32]>::to_vec).collect();
        all.sort();
        assert_eq!(all, vec![vec![10, 12, 15], vec![14]]);
    }

    #[test]
    fn the_owner_is_part_of_the_key() {
        assert_ne!(key_hash(Some(1), "x"), key_hash(Some(2), "x"));
        assert_ne!(key_hash(None, "x"), key_hash(Some(0), "x"));
        assert_eq!(key_hash(Some(1), "x"), key_hash(Some(1), "x"));
    }
}
