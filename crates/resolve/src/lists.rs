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
    /// The lists laid out read-only in a caller's memory ([`NameLists::freeze`]); the fields
    /// above are then empty.
    frozen: Option<Frozen>,
}

/// 32-bit words in memory the caller keeps (a map of a temporary file): frozen name lists.
pub trait MappedWords: Send + Sync + std::fmt::Debug {
    fn words(&self) -> &[u32];
}

/// Writable words, as many as asked for, in memory the caller keeps (a map of a temporary
/// file): [`NameLists::freeze`] lays the lists out in them, then reads them through
/// [`WordsOut::finish`]'s read-only words. Laid out on the heap first, the largest table's
/// words were a second copy of it at the peak of the tables' build.
pub trait WordsOut {
    fn words_mut(&mut self) -> &mut [u32];
    /// The words written, read-only.
    fn finish(self: Box<Self>) -> std::io::Result<Box<dyn MappedWords>>;
}

/// Name lists laid out as words: a header (log2 of the bucket count, entries, long lists),
/// each bucket's first entry (one more word: the end), the entries (hash, head, long list or
/// [`ONE`]) by bucket, each long list's first position (one more: the end), the positions.
/// A bucket is the top bits of the spread hash, so a lookup reads one bucket's few entries.
#[derive(Debug)]
struct Frozen {
    words: Box<dyn MappedWords>,
    bits: u32,
    entries: usize,
    more: usize,
    positions: usize,
}

impl Frozen {
    /// Checks `words` (every offset in range, in order) once, so that lookups index safely.
    fn new(words: Box<dyn MappedWords>) -> Result<Frozen, String> {
        let w = words.words();
        let bad = |what: &str| format!("frozen name lists: {what}");
        let head = w.get(..3).ok_or_else(|| bad("header"))?;
        let (bits, n_entries, n_more) = (head[0], head[1] as usize, head[2] as usize);
        if !(1..=31).contains(&bits) {
            return Err(bad("bucket count"));
        }
        let buckets = 1usize << bits;
        let entries = 3 + buckets + 1;
        let more = entries + 3 * n_entries;
        let positions = more + n_more + 1;
        if w.len() < positions {
            return Err(bad("truncated"));
        }
        let in_order = |offsets: &[u32], end: usize| {
            offsets.first() == Some(&0)
                && offsets.windows(2).all(|p| p[0] <= p[1])
                && offsets.last().is_some_and(|&l| l as usize <= end)
        };
        if !in_order(&w[3..entries], n_entries) || w[3 + buckets] as usize != n_entries {
            return Err(bad("buckets"));
        }
        if !in_order(&w[more..positions], w.len() - positions)
            || w[positions - 1] as usize != w.len() - positions
        {
            return Err(bad("long lists"));
        }
        if w[entries..more]
            .chunks_exact(3)
            .any(|e| e[2] != ONE && e[2] as usize >= n_more)
        {
            return Err(bad("entries"));
        }
        Ok(Frozen {
            words,
            bits,
            entries,
            more,
            positions,
        })
    }

    fn get(&self, h: u32, is_key: impl Fn(u32) -> bool) -> &[u32] {
        let w = self.words.words();
        let bucket = (spread(h) >> (64 - self.bits)) as usize;
        let (lo, hi) = (w[3 + bucket] as usize, w[4 + bucket] as usize);
        for e in lo..hi {
            let at = self.entries + 3 * e;
            if w[at] == h && is_key(w[at + 1]) {
                let more = w[at + 2];
                if more == ONE {
                    return &w[at + 1..at + 2];
                }
                let m = self.more + more as usize;
                return &w[self.positions + w[m] as usize..self.positions + w[m + 1] as usize];
            }
        }
        &[]
    }
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

    /// Lays the lists out read-only in words `map` makes (of the number asked: a map of a
    /// temporary file), and drops them from the heap; they can no longer change. On an error of
    /// `map` or of its words they stay as they are.
    pub(crate) fn freeze(
        &mut self,
        map: &mut dyn FnMut(usize) -> std::io::Result<Box<dyn WordsOut>>,
    ) -> std::io::Result<()> {
        if self.frozen.is_some() {
            return Ok(());
        }
        let n = self.table.len().max(1);
        let bits = (n.next_power_of_two().trailing_zeros()).max(1);
        let buckets = 1usize << bits;
        let bucket_of = |s: &Slot| (spread(s.hash) >> (64 - bits)) as usize;
        let long = self.table.iter().filter(|s| s.more != ONE).count();
        let long_positions: usize = self
            .table
            .iter()
            .filter(|s| s.more != ONE)
            .map(|s| self.more[s.more as usize].len())
            .sum();
        let entries = 3 + buckets + 1;
        let more_at = entries + 3 * self.table.len();
        let positions_at = more_at + long + 1;
        let mut out = map(positions_at + long_positions)?;
        let w = out.words_mut();
        if w.len() != positions_at + long_positions {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "words for name lists of the wrong length",
            ));
        }
        w[0] = bits;
        w[1] = self.table.len() as u32;
        w[2] = long as u32;
        // Each bucket's first entry, then one past the last bucket's last.
        let counts = &mut w[3..entries];
        counts.fill(0);
        for s in self.table.iter() {
            counts[bucket_of(s) + 1] += 1;
        }
        for b in 0..buckets {
            counts[b + 1] += counts[b];
        }
        let mut next = counts[..buckets].to_vec();
        let (mut long_next, mut position_next) = (0usize, 0usize);
        for s in self.table.iter() {
            let b = bucket_of(s);
            let at = entries + 3 * next[b] as usize;
            next[b] += 1;
            w[at] = s.hash;
            w[at + 1] = s.head;
            w[at + 2] = if s.more == ONE {
                ONE
            } else {
                let list = &self.more[s.more as usize];
                w[more_at + long_next] = position_next as u32;
                w[positions_at + position_next..positions_at + position_next + list.len()]
                    .copy_from_slice(list);
                position_next += list.len();
                long_next += 1;
                (long_next - 1) as u32
            };
        }
        w[more_at + long] = position_next as u32;
        drop(next);
        let frozen = Frozen::new(out.finish()?)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        *self = NameLists {
            frozen: Some(frozen),
            ..NameLists::default()
        };
        Ok(())
    }

    /// Lists laid out read-only as they are built, without a hash table on the heap: `fill`
    /// gives each position with its key's hash (at most `capacity` of them, in increasing
    /// position order), they wait in scratch words `map` makes (a map of a temporary file: 8
    /// bytes a position), sorted there by hash; `key_of(head)` tells the positions with the
    /// key of position `head`. The layout is [`NameLists::freeze`]'s: the same lookups find the
    /// same lists. On the heap first, the table of a name table over every definition was the
    /// largest part of the tables' build (13 bytes a bucket, 2^20 buckets for 490k symbols).
    pub(crate) fn frozen_from<K: Fn(u32) -> bool>(
        capacity: usize,
        fill: impl FnOnce(&mut dyn FnMut(u64, u32)),
        key_of: impl Fn(u32) -> K,
        map: &mut dyn FnMut(usize) -> std::io::Result<Box<dyn WordsOut>>,
    ) -> std::io::Result<NameLists> {
        let invalid = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
        let mut scratch = map(2 * capacity.max(1))?;
        let words = scratch.words_mut();
        if words.len() != 2 * capacity.max(1) {
            return Err(invalid("scratch words of the wrong length"));
        }
        let (pairs, _) = words.as_chunks_mut::<2>();
        let mut len = 0usize;
        fill(&mut |hash, p| {
            if let Some(pair) = pairs.get_mut(len) {
                *pair = [short(hash), p];
            }
            len += 1;
        });
        if len > pairs.len() {
            return Err(invalid("more positions than room for them"));
        }
        let pairs = &mut pairs[..len];
        // Equal hashes together, each hash's positions in order (`spread` is one-to-one, and
        // its top bits are the bucket).
        pairs.sort_unstable_by_key(|&[h, p]| (spread(h), p));
        let pairs: &[[u32; 2]] = pairs;
        // The runs of one hash; a run holds one key but where 32-bit hashes collide.
        let runs = move || {
            let mut at = 0;
            std::iter::from_fn(move || {
                let start = at;
                let h = pairs.get(start)?[0];
                at += pairs[start..].iter().take_while(|x| x[0] == h).count();
                Some(start..at)
            })
        };
        let one_key = |run: &[[u32; 2]]| {
            let is_head = key_of(run[0][1]);
            run[1..].iter().all(|x| is_head(x[1]))
        };
        // A run of several keys as lists, each in position order (by their first positions).
        let split = |run: &[[u32; 2]]| -> Vec<Vec<u32>> {
            let mut lists: Vec<Vec<u32>> = Vec::new();
            for &[_, p] in run {
                match lists.iter_mut().find(|l| key_of(l[0])(p)) {
                    Some(list) => list.push(p),
                    None => lists.push(vec![p]),
                }
            }
            lists
        };
        // First pass: how many keys, how many of one position; where the collisions are.
        let (mut keys, mut lone) = (0usize, 0usize);
        let mut mixed: Vec<usize> = Vec::new();
        for run in runs() {
            if one_key(&pairs[run.clone()]) {
                keys += 1;
                lone += usize::from(run.len() == 1);
            } else {
                let lists = split(&pairs[run.clone()]);
                keys += lists.len();
                lone += lists.iter().filter(|l| l.len() == 1).count();
                mixed.push(run.start);
            }
        }
        let bits = (keys.max(1).next_power_of_two().trailing_zeros()).max(1);
        let buckets = 1usize << bits;
        let long = keys - lone;
        let entries = 3 + buckets + 1;
        let more_at = entries + 3 * keys;
        let positions_at = more_at + long + 1;
        let mut out = map(positions_at + len - lone)?;
        let w = out.words_mut();
        if w.len() != positions_at + len - lone {
            return Err(invalid("words for name lists of the wrong length"));
        }
        w[0] = bits;
        w[1] = keys as u32;
        w[2] = long as u32;
        // Second pass: the entries in bucket order, each bucket's first entry as it starts.
        let (mut entry, mut bucket_next, mut long_next, mut position_next) = (0, 0, 0, 0);
        let mut put = |w: &mut [u32], h: u32, list: &mut dyn Iterator<Item = u32>, n: usize| {
            let bucket = (spread(h) >> (64 - bits)) as usize;
            while bucket_next <= bucket {
                w[3 + bucket_next] = entry as u32;
                bucket_next += 1;
            }
            let at = entries + 3 * entry;
            entry += 1;
            w[at] = h;
            let mut list = list.peekable();
            w[at + 1] = list.peek().copied().unwrap_or(ONE);
            w[at + 2] = if n == 1 {
                ONE
            } else {
                w[more_at + long_next] = position_next as u32;
                for p in list {
                    w[positions_at + position_next] = p;
                    position_next += 1;
                }
                long_next += 1;
                (long_next - 1) as u32
            };
        };
        let mut mixed = mixed.into_iter().peekable();
        for run in runs() {
            let h = pairs[run.start][0];
            if mixed.next_if_eq(&run.start).is_some() {
                for list in split(&pairs[run]) {
                    put(w, h, &mut list.iter().copied(), list.len());
                }
            } else {
                let n = run.len();
                put(w, h, &mut pairs[run].iter().map(|x| x[1]), n);
            }
        }
        for b in bucket_next..=buckets {
            w[3 + b] = keys as u32;
        }
        w[more_at + long] = position_next as u32;
        drop(scratch);
        let frozen = Frozen::new(out.finish()?).map_err(|e| invalid(&e))?;
        Ok(NameLists {
            frozen: Some(frozen),
            ..NameLists::default()
        })
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
        let list = match &self.frozen {
            Some(frozen) => frozen.get(h, is_key),
            None => self
                .table
                .find(spread(h), |s| s.hash == h && is_key(s.head))
                .map(|s| self.slot_list(s))
                .unwrap_or(&[]),
        };
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
        assert!(self.frozen.is_none(), "frozen name lists do not change");
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
        assert!(self.frozen.is_none(), "frozen name lists do not change");
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
        assert!(self.frozen.is_none(), "frozen name lists do not change");
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
pub(crate) mod tests {
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

    /// Words kept in a vector (the engine's are a map of a temporary file).
    #[derive(Debug)]
    pub(crate) struct HeapWords(pub(crate) Vec<u32>);

    impl MappedWords for HeapWords {
        fn words(&self) -> &[u32] {
            &self.0
        }
    }

    /// Words to write, in a vector.
    pub(crate) struct HeapOut(pub(crate) Vec<u32>);

    impl WordsOut for HeapOut {
        fn words_mut(&mut self) -> &mut [u32] {
            &mut self.0
        }
        fn finish(self: Box<Self>) -> std::io::Result<Box<dyn MappedWords>> {
            Ok(Box::new(HeapWords(self.0)))
        }
    }

    pub(crate) fn heap_words(n: usize) -> std::io::Result<Box<dyn WordsOut>> {
        Ok(Box::new(HeapOut(vec![u32::MAX; n])))
    }

    /// Frozen lists answer every lookup as the table did: lone positions and long lists, keys
    /// whose hashes collide, absent keys, in buckets of several entries.
    #[test]
    fn frozen_lists_answer_as_the_table_did() {
        let names: Vec<String> = (0..3000).map(|i| format!("n{}", i % 1100)).collect();
        let hash = |name: &str| key_hash(None, name) % 700; // many shared hashes
        let mut lists = NameLists::default();
        for (p, name) in names.iter().enumerate() {
            lists.push(hash(name), |q| names[q as usize] == *name, p as u32);
        }
        let probe = |lists: &NameLists| -> Vec<Vec<u32>> {
            (0..1200)
                .map(|i| format!("n{i}"))
                .map(|name| {
                    lists
                        .get(hash(&name), |q| names[q as usize] == name)
                        .to_vec()
                })
                .collect()
        };
        let before = probe(&lists);
        assert!(before.iter().any(|l| l.len() == 3) && before.iter().any(|l| l.len() == 2));
        assert!(before[1100..].iter().all(Vec::is_empty));
        lists.freeze(&mut heap_words).unwrap();
        assert!(lists.frozen.is_some() && lists.table.is_empty() && lists.more.is_empty());
        assert_eq!(lists.heap_bytes(), 0);
        assert_eq!(probe(&lists), before);
        // Nothing: still a valid table.
        let mut empty = NameLists::default();
        empty.freeze(&mut heap_words).unwrap();
        assert_eq!(empty.get(1, |_| true), &[] as &[u32]);
    }

    /// Lists laid out as they are built answer every lookup as the table frozen afterwards
    /// does, and are laid out in as many words: keys whose 32-bit hashes collide (several keys
    /// in one run of the sorted hashes), lone positions and long lists, absent keys.
    #[test]
    fn lists_built_frozen_answer_as_the_frozen_table() {
        // 500 names of 6 positions each, then 100 of one position.
        let names: Vec<String> = (0..3000)
            .map(|i| format!("n{}", (i * 7) % 500))
            .chain((0..100).map(|i| format!("u{i}")))
            .collect();
        let hash = |name: &str| key_hash(None, name) % 200; // many keys a hash
        let names = &names;
        let key_of = |head: u32| {
            let name = &names[head as usize];
            move |q: u32| names[q as usize] == *name
        };
        let mut table = NameLists::default();
        for (p, name) in names.iter().enumerate() {
            table.push(hash(name), key_of(p as u32), p as u32);
        }
        let table_words = std::cell::Cell::new(0);
        table
            .freeze(&mut |n| {
                table_words.set(n);
                heap_words(n)
            })
            .unwrap();
        let asked = std::cell::RefCell::new(Vec::new());
        let built = NameLists::frozen_from(
            names.len(),
            |push| {
                for (p, name) in names.iter().enumerate() {
                    // Every third position is not listed.
                    if p % 3 != 1 {
                        push(hash(name), p as u32);
                    }
                }
            },
            key_of,
            &mut |n| {
                asked.borrow_mut().push(n);
                heap_words(n)
            },
        )
        .unwrap();
        // The scratch (two words a position), then the layout.
        assert_eq!(asked.borrow()[0], 2 * names.len());
        let probe = |lists: &NameLists, listed: &dyn Fn(u32) -> bool| -> Vec<Vec<u32>> {
            (0..600)
                .map(|i| format!("n{i}"))
                .chain((0..100).map(|i| format!("u{i}")))
                .map(|name| {
                    let list = lists.get(hash(&name), |q| names[q as usize] == name);
                    list.iter().copied().filter(|&p| listed(p)).collect()
                })
                .collect()
        };
        let expected = probe(&table, &|p| p % 3 != 1);
        assert!(expected[..500].iter().all(|l| l.len() > 2));
        assert!(expected[500..600].iter().all(Vec::is_empty));
        assert!(expected[600..].iter().all(|l| l.len() <= 1));
        assert_eq!(probe(&built, &|_| true), expected);
        // Every listed position once (none of the unlisted ones).
        let mut all: Vec<u32> = probe(&built, &|_| true).concat();
        all.sort_unstable();
        assert_eq!(all, (0..3100).filter(|p| p % 3 != 1).collect::<Vec<u32>>());
        // All positions listed: the same number of words as the frozen table.
        let whole = NameLists::frozen_from(
            names.len(),
            |push| {
                for (p, name) in names.iter().enumerate() {
                    push(hash(name), p as u32);
                }
            },
            key_of,
            &mut heap_words,
        )
        .unwrap();
        let w = whole.frozen.as_ref().unwrap().words.words().len();
        assert_eq!(w, table_words.get());
        assert_eq!(probe(&whole, &|_| true), probe(&table, &|_| true));
        // Nothing listed: a valid table that finds nothing.
        let empty = NameLists::frozen_from(0, |_| {}, key_of, &mut heap_words).unwrap();
        assert_eq!(empty.get(hash("n1"), |_| true), &[] as &[u32]);
    }

    /// More positions than the room asked for, or scratch words of the wrong length: an error,
    /// never a table that misses positions.
    #[test]
    fn lists_built_frozen_refuse_too_many_positions() {
        let key_of = |_: u32| |_: u32| true;
        let over = NameLists::frozen_from(
            2,
            |push| (0..3).for_each(|p| push(u64::from(p), p)),
            key_of,
            &mut heap_words,
        );
        assert!(over.is_err());
        let short =
            NameLists::frozen_from(2, |push| push(1, 0), key_of, &mut |n| heap_words(n - 1));
        assert!(short.is_err());
    }

    #[test]
    #[should_panic(expected = "frozen name lists do not change")]
    fn frozen_lists_refuse_changes() {
        let mut lists = NameLists::default();
        lists.push(1, |_| true, 0);
        lists.freeze(&mut heap_words).unwrap();
        lists.push(1, |_| true, 1);
    }

    #[test]
    fn malformed_words_are_refused() {
        let mut lists = NameLists::default();
        for p in 0..10u32 {
            lists.push(u64::from(p % 4), move |q| q % 4 == p % 4, p);
        }
        lists.freeze(&mut heap_words).unwrap();
        let words = lists.frozen.as_ref().unwrap().words.words().to_vec();
        // Words of another length than asked for are refused.
        let mut other = NameLists::default();
        other.push(1, |_| true, 1);
        let short = other.freeze(&mut |n| heap_words(n - 1));
        assert!(short.is_err());
        assert!(other.frozen.is_none());
        assert_eq!(other.get(1, |_| true), &[1]);
        let check = |w: Vec<u32>| Frozen::new(Box::new(HeapWords(w))).map(|_| ());
        assert!(check(words.clone()).is_ok());
        assert!(
            check(words[..words.len() - 1].to_vec()).is_err(),
            "truncated"
        );
        assert!(check(vec![0, 0, 0]).is_err(), "no buckets");
        let mut bad = words.clone();
        bad[4] = 99; // a bucket past the entries
        assert!(check(bad).is_err());
        let mut bad = words.clone();
        let entries = 3 + (1 << words[0]) + 1;
        bad[entries + 2] = 7; // a long list that does not exist
        assert!(check(bad).is_err());
    }

    #[test]
    fn the_owner_is_part_of_the_key() {
        assert_ne!(key_hash(Some(1), "x"), key_hash(Some(2), "x"));
        assert_ne!(key_hash(None, "x"), key_hash(Some(0), "x"));
        assert_eq!(key_hash(Some(1), "x"), key_hash(Some(1), "x"));
    }
}
