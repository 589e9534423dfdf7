//! The resolver's symbol tables: which symbols each key has, in one array.

use foldhash::{HashMap, HashMapExt};
use std::borrow::Borrow;
use std::hash::Hash;

/// Symbol indexes by key, each key's in the order given: one table of ranges over one
/// array instead of a vector per key (a kernel's million symbols made two million small
/// vectors: a fifth of the resolver's memory, 190 MB).
#[derive(Clone)]
pub(super) struct Postings<K> {
    ranges: HashMap<K, (u32, u32)>,
    ids: Vec<u32>,
}

impl<K: Hash + Eq> Postings<K> {
    pub(super) fn new() -> Self {
        Postings {
            ranges: HashMap::new(),
            ids: Vec::new(),
        }
    }

    /// The table of `keys()`: each symbol's keys with its index, the same every call
    /// (it is called twice: to count, then to place).
    pub(super) fn build<I>(keys: impl Fn() -> I) -> Self
    where
        I: Iterator<Item = (K, usize)>,
    {
        let mut ranges: HashMap<K, (u32, u32)> = HashMap::new();
        for (k, _) in keys() {
            ranges.entry(k).or_insert((0, 0)).1 += 1;
        }
        let mut start = 0u32;
        for r in ranges.values_mut() {
            let count = r.1;
            *r = (start, 0);
            start += count;
        }
        let mut ids = vec![0u32; start as usize];
        for (k, i) in keys() {
            if let Some(r) = ranges.get_mut(&k)
                && let Some(slot) = ids.get_mut((r.0 + r.1) as usize)
            {
                *slot = i as u32;
                r.1 += 1;
            }
        }
        Postings { ranges, ids }
    }

    /// The symbols of `k`, if any.
    pub(super) fn get<Q>(&self, k: &Q) -> Option<&[u32]>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let &(start, len) = self.ranges.get(k)?;
        self.ids.get(start as usize..(start + len) as usize)
    }

    /// How many keys.
    pub(super) fn len(&self) -> usize {
        self.ranges.len()
    }
}
