//! The order of the module symbol table in a pnacl-freeze pexe (writer.md §8.3).
//!
//! pnacl-freeze wrote the entries of LLVM 3.3's `ValueSymbolTable`, a `StringMap`, in
//! bucket order. That order depends on the names' hashes, on the table's size, and, where
//! names collide, on the order they were inserted. This is the same hash table: Bernstein
//! hash `h = h * 33 + c` from 0, 16 buckets at first, quadratic probing (+1, +2, …), and
//! after each insertion a rebuild at double size when more than 3/4 full (a rebuild walks
//! the old buckets in index order and re-probes each entry from its new home bucket).

use crate::ir::{Module, ValueId};

/// The name of the LLVM named metadata that carries a module symbol table's order through
/// an LLVM module (`pnacl-llvm --target le32` writes it where the order is not the one
/// `derived` gives; `pnacl-freeze` follows it): one node of one string per entry.
pub const METADATA: &str = "pnacl.symtab";

/// The order pnacl-freeze gives the symbol table of `m` when nothing says otherwise: every
/// named function, then every named global, inserted in module order into a fresh
/// StringMap.
pub fn derived(m: &Module) -> Vec<ValueId> {
    derived_after(m, &[])
}

/// `derived`, with the values of `first` inserted first, in that order (an LLVM 3.x
/// file's names, which pnacl-freeze inserted in the order of the file's own table).
pub fn derived_after(m: &Module, first: &[ValueId]) -> Vec<ValueId> {
    let name_of = |i: ValueId| -> Option<&[u8]> {
        let i = i as usize;
        match m.functions.get(i) {
            Some(f) => f.name.as_deref(),
            None => m.globals.get(i - m.functions.len())?.name.as_deref(),
        }
    };
    let total = (m.functions.len() + m.globals.len()) as ValueId;
    let mut seen = vec![false; total as usize];
    let named: Vec<(ValueId, &[u8])> = first
        .iter()
        .copied()
        .chain(0..total)
        .filter(|&i| i < total && !std::mem::replace(&mut seen[i as usize], true))
        .filter_map(|i| name_of(i).map(|n| (i, n)))
        .collect();
    let names: Vec<&[u8]> = named.iter().map(|(_, n)| *n).collect();
    stringmap_order(&names)
        .into_iter()
        .map(|k| named[k].0)
        .collect()
}

/// `order` (names, as the metadata gives them) as value ids of `m`, if it names every
/// named function and global of `m` exactly once and nothing else.
pub fn from_names(m: &Module, order: &[Vec<u8>]) -> Option<Vec<ValueId>> {
    let mut by_name = std::collections::HashMap::new();
    for (i, n) in m
        .functions
        .iter()
        .map(|f| f.name.as_deref())
        .chain(m.globals.iter().map(|g| g.name.as_deref()))
        .enumerate()
    {
        if let Some(n) = n {
            by_name.insert(n, i as ValueId);
        }
    }
    if order.len() != by_name.len() {
        return None;
    }
    let mut out = Vec::with_capacity(order.len());
    for n in order {
        out.push(by_name.remove(n.as_slice())?);
    }
    Some(out)
}

/// Bernstein hash over unsigned bytes, as LLVM 3.3's `HashString`.
pub fn hash(name: &[u8]) -> u32 {
    name.iter()
        .fold(0u32, |h, &c| h.wrapping_mul(33).wrapping_add(c as u32))
}

/// The bucket order of a `StringMap` into which `names` were inserted in the given order
/// (no removals). Returns indices into `names`. Duplicate names keep the first.
pub fn stringmap_order(names: &[&[u8]]) -> Vec<usize> {
    let mut buckets: Vec<Option<(u32, usize)>> = vec![None; 16];
    let mut items = 0usize;
    for (i, name) in names.iter().enumerate() {
        let h = hash(name);
        let n = buckets.len();
        let mut b = (h as usize) & (n - 1);
        let mut probe = 1;
        let mut present = false;
        while let Some((bh, bi)) = buckets[b] {
            if bh == h && names[bi] == *name {
                present = true;
                break;
            }
            b = (b + probe) & (n - 1);
            probe += 1;
        }
        if present {
            continue;
        }
        buckets[b] = Some((h, i));
        items += 1;
        if items * 4 > buckets.len() * 3 {
            buckets = rehash(&buckets, buckets.len() * 2);
        }
    }
    buckets.iter().flatten().map(|&(_, i)| i).collect()
}

fn rehash(old: &[Option<(u32, usize)>], size: usize) -> Vec<Option<(u32, usize)>> {
    let mut new = vec![None; size];
    for &(h, i) in old.iter().flatten() {
        let mut b = (h as usize) & (size - 1);
        let mut probe = 1;
        while new[b].is_some() {
            b = (b + probe) & (size - 1);
            probe += 1;
        }
        new[b] = Some((h, i));
    }
    new
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproduces_the_globals_ll_expectation() {
        // writer.md §8.3: inserting the names in the order of the input's symbol table
        // (itself a StringMap order) gives pnacl-freeze's order for test globals.ll.
        let input = [
            "zero",
            "ptr_to_func",
            "compound",
            "bytes",
            "func",
            "ptr_to_ptr",
            "addend_array1",
            "addend_array2",
            "addend_array3",
            "addend_ptr",
            "addend_struct1",
            "ptr",
            "addend_struct2",
        ];
        let names: Vec<&[u8]> = input.iter().map(|s| s.as_bytes()).collect();
        let order = stringmap_order(&names);
        let out: Vec<&str> = order.iter().map(|&i| input[i]).collect();
        assert_eq!(out, input);
    }

    #[test]
    fn order_follows_buckets_not_insertion() {
        // "b" (98) hashes to bucket 2, "a" (97) to bucket 1: bucket order puts "a" first.
        let names: Vec<&[u8]> = vec![b"b", b"a"];
        assert_eq!(stringmap_order(&names), vec![1, 0]);
        // A collision keeps insertion order: "a" and "q" (113 = 97 + 16) share bucket 1.
        let names: Vec<&[u8]> = vec![b"q", b"a"];
        assert_eq!(stringmap_order(&names), vec![0, 1]);
        let names: Vec<&[u8]> = vec![b"a", b"q"];
        assert_eq!(stringmap_order(&names), vec![0, 1]);
    }

    #[test]
    fn the_table_grows_past_three_quarters() {
        let owned: Vec<String> = (0..100).map(|i| format!("name{i}")).collect();
        let names: Vec<&[u8]> = owned.iter().map(|s| s.as_bytes()).collect();
        let order = stringmap_order(&names);
        assert_eq!(order.len(), 100);
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(sorted, (0..100).collect::<Vec<_>>());
    }
}
