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

/// Non-empty lists of positions, each filed under (32 bits of) the hash of its key. `is_key(p)`
/// answers whether the entry at position `p` has the key looked for; it is asked about a list's
/// first position only, so every position of a list must have the list's key.
///
/// Most keys have one position (a qualified name, a child of a parent, a name bound once in a
/// scope): a slot holds that position itself, and only a list of two or more has a vector, in
/// `more`. A slot is 12 bytes; a `(u64, Vec<u32>)` entry with its heap block was 48.
#[derive(Default)]
pub(crate) struct NameLists {
    table: HashTable<Slot>,
    /// The lists of two or more positions, whole; `free` are the places of dropped ones.
    more: Vec<Vec<u32>>,
    free: Vec<u32>,
}

#[derive(Clone, Copy)]
struct Slot {
    hash: u32,
    /// The list's first position (what `is_key` is asked about).
    head: u32,
    /// [`ONE`], or the list's place in [`NameLists::more`].
    more: u32,
}

/// About the heap bytes of a hash table of `capacity` entries of `T` (buckets are a power of
/// two at least 8/7 of the capacity, each with a control byte).
pub(crate) fn table_bytes<T>(capacity: usize) -> usize {
    capacity * 8 / 7 * (std::mem::size_of::<T>() + 1)
}

/// A slot whose list is its head alone.
const ONE: u32 = u32::MAX;

/// The 32 bits a slot keeps of a key's hash, and the table hash made from them again (spread
/// over 64 bits: the table files by the low bits and tells slots apart by the top ones).
fn short(hash: u64) -> u32 {
    (hash ^ (hash >> 32)) as u32
}

fn spread(short: u32) -> u64 {
    u64::from(short).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl NameLists {
    /// About the heap bytes held (the table's buckets and control bytes, the long lists).
    pub(crate) fn heap_bytes(&self) -> usize {
        table_bytes::<Slot>(self.table.capacity())
            + self.more.capacity() * std::mem::size_of::<Vec<u32>>()
            + self.more.iter().map(|v| v.capacity() * 4).sum::<usize>()
            + self.free.capacity() * 4
    }

    fn slot_list<'a>(&'a self, slot: &'a Slot) -> &'a [u32] {
        if slot.more == ONE {
            std::slice::from_ref(&slot.head)
        } else {
            &self.more[slot.more as usize]
        }
    }

    /// The positions with the key (none when there is no such list).
    pub(crate) fn get(&self, hash: u64, is_key: impl Fn(u32) -> bool) -> &[u32] {
        let h = short(hash);
        let list = self
            .table
            .find(spread(h), |s| s.hash == h && is_key(s.head))
            .map(|s| self.slot_list(s))
            .unwrap_or(&[]);
        crate::trace::traced!(
            if list.is_empty() { b'E' } else { b'N' },
            hash ^ (self as *const Self as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        );
        list
    }

    /// Adds `p` to the list of the key (made when missing) at the place `at` tells from the
    /// list as it is (`at(list) == list.len()` appends).
    pub(crate) fn insert_by(
        &mut self,
        hash: u64,
        is_key: impl Fn(u32) -> bool,
        p: u32,
        at: impl FnOnce(&[u32]) -> usize,
    ) {
        let h = short(hash);
        match self.table.entry(
            spread(h),
            |s| s.hash == h && is_key(s.head),
            |s| spread(s.hash),
        ) {
            Entry::Vacant(e) => {
                e.insert(Slot {
                    hash: h,
                    head: p,
                    more: ONE,
                });
            }
            Entry::Occupied(mut e) => {
                let slot = e.get_mut();
                if slot.more == ONE {
                    let list = if at(std::slice::from_ref(&slot.head)) == 0 {
                        vec![p, slot.head]
                    } else {
                        vec![slot.head, p]
                    };
                    slot.more = match self.free.pop() {
                        Some(place) => {
                            self.more[place as usize] = list;
                            place
                        }
                        None => {
                            self.more.push(list);
                            (self.more.len() - 1) as u32
                        }
                    };
                    slot.head = self.more[slot.more as usize][0];
                } else {
                    let list = &mut self.more[slot.more as usize];
                    let i = at(list);
                    list.insert(i, p);
                    slot.head = list[0];
                }
            }
        }
    }

    /// Appends `p` to the list of the key (made when missing).
    pub(crate) fn push(&mut self, hash: u64, is_key: impl Fn(u32) -> bool, p: u32) {
        self.insert_by(hash, is_key, p, <[u32]>::len);
    }

    /// Removes the positions `gone` accepts from the list of the key; an emptied list goes.
    pub(crate) fn remove(
        &mut self,
        hash: u64,
        is_key: impl Fn(u32) -> bool,
        gone: impl Fn(u32) -> bool,
    ) {
        let h = short(hash);
        let Ok(mut e) = self
            .table
            .find_entry(spread(h), |s| s.hash == h && is_key(s.head))
        else {
            return;
        };
        let slot = e.get_mut();
        if slot.more == ONE {
            if gone(slot.head) {
                e.remove();
            }
            return;
        }
        let place = slot.more;
        let list = &mut self.more[place as usize];
        list.retain(|&p| !gone(p));
        match list.len() {
            0 => {
                e.remove();
            }
            1 => {
                slot.head = list[0];
                slot.more = ONE;
            }
            _ => {
                slot.head = list[0];
                return;
            }
        }
        self.more[place as usize] = Vec::new();
        self.free.push(place);
    }

    /// Every list, in no particular order.
    #[cfg(test)]
    pub(crate) fn lists(&self) -> impl Iterator<Item = &[u32]> {
        self.table.iter().map(|s| self.slot_list(s))
    }

    /// Renumbers every position (keys do not change).
    pub(crate) fn renumber(&mut self, f: impl Fn(u32) -> u32) {
        for slot in self.table.iter_mut() {
            if slot.more == ONE {
                slot.head = f(slot.head);
            } else {
                let list = &mut self.more[slot.more as usize];
                list.iter_mut().for_each(|p| *p = f(*p));
                slot.head = list[0];
            }
        }
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
            lists.push(7, |q| names[q as usize] == *name, p as u32);
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
        lists.renumber(|p| p + 10);
        let mut all: Vec<Vec<u32>> = lists.lists().map(<[u32]>::to_vec).collect();
        all.sort();
        assert_eq!(all, vec![vec![10, 12, 15], vec![14]]);
    }

    /// A list grows from its slot into a vector and back, keeps the order `insert_by` asks for
    /// and its first position current (what the key is recognised by), and a dropped vector's
    /// place is used again.
    #[test]
    fn lists_grow_shrink_and_keep_their_order() {
        // A removed position's entry changes (as a patched table's does).
        let names = std::cell::RefCell::new(vec!["a", "a", "a", "b", "b", "a"]);
        let is = |name: &'static str| {
            let names = &names;
            move |q: u32| names.borrow()[q as usize] == name
        };
        let sorted = |p: u32| move |list: &[u32]| list.partition_point(|&x| x < p);
        let mut lists = NameLists::default();
        lists.insert_by(1, is("a"), 2, sorted(2));
        assert_eq!(lists.get(1, is("a")), &[2]);
        lists.insert_by(1, is("a"), 0, sorted(0));
        assert_eq!(lists.get(1, is("a")), &[0, 2]);
        lists.insert_by(1, is("a"), 1, sorted(1));
        lists.push(1, is("a"), 5);
        assert_eq!(lists.get(1, is("a")), &[0, 1, 2, 5]);
        lists.push(2, is("b"), 4);
        lists.insert_by(2, is("b"), 3, sorted(3));
        assert_eq!(lists.get(2, is("b")), &[3, 4]);
        // The first position goes: the list is still found by its new first one.
        lists.remove(1, is("a"), |p| p == 0);
        names.borrow_mut()[0] = "gone";
        assert_eq!(lists.get(1, is("a")), &[1, 2, 5]);
        lists.remove(1, is("a"), |p| p != 2);
        names.borrow_mut()[1] = "gone";
        assert_eq!(lists.get(1, is("a")), &[2]);
        lists.remove(2, is("b"), |p| p == 3);
        assert_eq!(lists.get(2, is("b")), &[4]);
        assert_eq!(lists.free.len(), 2);
        lists.push(2, is("b"), 3);
        assert_eq!(lists.get(2, is("b")), &[4, 3]);
        assert_eq!((lists.more.len(), lists.free.len()), (2, 1));
        lists.remove(2, is("b"), |_| true);
        lists.remove(1, is("a"), |p| p == 2);
        assert_eq!(lists.len(), 0);
        assert_eq!(lists.get(1, is("a")), &[] as &[u32]);
    }

    #[test]
    fn the_owner_is_part_of_the_key() {
        assert_ne!(key_hash(Some(1), "x"), key_hash(Some(2), "x"));
        assert_ne!(key_hash(None, "x"), key_hash(Some(0), "x"));
        assert_eq!(key_hash(Some(1), "x"), key_hash(Some(1), "x"));
    }
}
