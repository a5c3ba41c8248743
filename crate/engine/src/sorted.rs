//! Sorted sequences of hashes, as tree diffs and coverage profiles compare them.

/// How many items two sorted sequences share (each item of `a` matches at most one of `b`).
pub(crate) fn common(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_shared_items_with_repeats() {
        assert_eq!(super::common(&[1, 2, 2, 5], &[2, 2, 3, 5, 5]), 3);
        assert_eq!(super::common(&[], &[1]), 0);
    }
}
