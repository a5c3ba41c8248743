//! What one compile did, as the witness search compares it: the compiler's coverage (per
//! file, per function, the lines run), or failing that the lines of a trace the compiler
//! prints (its remarks, its assembly). Two compiles differ by the Jaccard distance of these
//! sets (DiWi §3.2); coverage of a failing program against its witnesses ranks the
//! compiler's files and functions by Ochiai (DiWi §3.3).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// The lines one compile ran, per file and function: `{"tccgen.c": {"gen_op": [101, 102]}}`.
/// The shape `whittle serve` answers with and `whittle witness --coverage` reads.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Coverage(pub BTreeMap<String, BTreeMap<String, Vec<u32>>>);

impl Coverage {
    /// Every covered statement: (file, function, line).
    pub fn statements(&self) -> impl Iterator<Item = (&str, &str, u32)> {
        self.0.iter().flat_map(|(file, functions)| {
            functions.iter().flat_map(move |(function, lines)| {
                lines
                    .iter()
                    .map(move |&line| (file.as_str(), function.as_str(), line))
            })
        })
    }

    pub fn len(&self) -> usize {
        self.0.values().flat_map(|f| f.values()).map(Vec::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn profile(&self) -> Profile {
        Profile::of(
            self.statements()
                .map(|(f, g, l)| hash(&[f, g, &l.to_string()])),
        )
    }
}

/// A set of things a compile did, for distances: hashes of covered statements or of trace
/// lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile(Vec<u64>);

impl Profile {
    fn of(items: impl Iterator<Item = u64>) -> Profile {
        let mut v: Vec<u64> = items.collect();
        v.sort_unstable();
        v.dedup();
        Profile(v)
    }

    /// The distinct non-blank lines of a compiler's output, trimmed.
    pub fn of_trace(text: &str) -> Profile {
        Profile::of(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(|l| hash(&[l])),
        )
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Jaccard distance: 1 - |A ∩ B| / |A ∪ B|; 0 for two empty sets.
    pub fn distance(&self, other: &Profile) -> f64 {
        let (a, b) = (&self.0, &other.0);
        let common = crate::sorted::common(a, b);
        let union = a.len() + b.len() - common;
        if union == 0 {
            0.0
        } else {
            1.0 - common as f64 / union as f64
        }
    }
}

impl Profile {
    /// Whether this profile has only some of `other`'s items: a compile that did less of
    /// what `other` did and nothing else.
    pub fn is_strict_subset(&self, other: &Profile) -> bool {
        self.len() < other.len() && crate::sorted::common(&self.0, &other.0) == self.len()
    }
}

/// FNV-1a over the parts, each ended by a NUL: stable across runs and targets.
fn hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0)) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// A file or function of the compiler with its suspiciousness.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Suspect {
    /// `tccgen.c`, or `tccgen.c:gen_op` for a function.
    pub name: String,
    /// The mean Ochiai score of its statements the failing compile ran.
    pub score: f64,
    /// How many of its statements the failing compile ran.
    pub statements: usize,
}

/// The compiler's files and functions, most suspicious first.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Ranking {
    pub files: Vec<Suspect>,
    pub functions: Vec<Suspect>,
}

impl Ranking {
    /// The 1-based rank of `name` among `list`, counting ties against it (the number of
    /// suspects scored at least as high): what a developer reading down the list examines.
    pub fn rank_of(list: &[Suspect], name: &str) -> Option<usize> {
        let score = list.iter().find(|s| s.name == name)?.score;
        Some(list.iter().filter(|s| s.score >= score).count())
    }
}

/// Ochiai with one failing program: a statement the failing compile ran scores
/// `1 / sqrt(1 + passing runs that ran it)`; a file or function scores the mean of its
/// statements' scores (DiWi's aggregation). Statements the failing compile did not run are
/// not suspects.
pub fn rank(failing: &Coverage, passing: &[Coverage]) -> Ranking {
    let mut ran_by: HashMap<(&str, &str, u32), usize> = HashMap::new();
    for p in passing {
        for s in p.statements() {
            *ran_by.entry(s).or_default() += 1;
        }
    }
    let mut files: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let mut functions: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for s @ (file, function, _) in failing.statements() {
        let sus = 1.0 / (1.0 + *ran_by.get(&s).unwrap_or(&0) as f64).sqrt();
        for (map, key) in [
            (&mut files, file.to_string()),
            (&mut functions, format!("{file}:{function}")),
        ] {
            let e = map.entry(key).or_default();
            e.0 += sus;
            e.1 += 1;
        }
    }
    Ranking {
        files: ordered(files),
        functions: ordered(functions),
    }
}

fn ordered(map: BTreeMap<String, (f64, usize)>) -> Vec<Suspect> {
    let mut v: Vec<Suspect> = map
        .into_iter()
        .map(|(name, (sum, n))| Suspect {
            name,
            score: sum / n as f64,
            statements: n,
        })
        .collect();
    // Highest first; ties by name, so the order is the same everywhere.
    v.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.name.cmp(&b.name))
    });
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cov(items: &[(&str, &str, &[u32])]) -> Coverage {
        let mut c = Coverage::default();
        for (file, func, lines) in items {
            c.0.entry(file.to_string())
                .or_default()
                .insert(func.to_string(), lines.to_vec());
        }
        c
    }

    #[test]
    fn jaccard_distance_of_profiles() {
        let a = cov(&[("a.c", "f", &[1, 2, 3, 4])]).profile();
        let b = cov(&[("a.c", "f", &[3, 4, 5, 6])]).profile();
        assert!((a.distance(&b) - (1.0 - 2.0 / 6.0)).abs() < 1e-12);
        assert_eq!(a.distance(&a), 0.0);
        assert_eq!(Profile::default().distance(&Profile::default()), 0.0);
        let c = cov(&[("b.c", "f", &[1])]).profile();
        assert_eq!(a.distance(&c), 1.0);
        // The same line in another file or function is another statement.
        let d = cov(&[("a.c", "g", &[1, 2, 3, 4])]).profile();
        assert_eq!(a.distance(&d), 1.0);
    }

    #[test]
    fn trace_profiles_ignore_blank_lines_and_repeats() {
        let a = Profile::of_trace("mov a\n\n  mov a\nret\n");
        let b = Profile::of_trace("ret\nmov a");
        assert_eq!(a.len(), 2);
        assert_eq!(a.distance(&b), 0.0);
    }

    #[test]
    fn ochiai_ranks_what_only_the_failing_run_covers_first() {
        // bug.c:g runs only when the program fails; ok.c runs in every compile.
        let failing = cov(&[
            ("ok.c", "main", &[1, 2, 3]),
            ("bug.c", "g", &[10, 11]),
            ("bug.c", "h", &[20]),
        ]);
        let passing = vec![
            cov(&[("ok.c", "main", &[1, 2, 3]), ("bug.c", "h", &[20])]),
            cov(&[("ok.c", "main", &[1, 2]), ("bug.c", "h", &[20])]),
        ];
        let r = rank(&failing, &passing);
        assert_eq!(r.files[0].name, "bug.c");
        // bug.c: g's two lines score 1 each, h's line 1/sqrt(3): mean (2 + 0.577) / 3.
        let want = (2.0 + 1.0 / 3f64.sqrt()) / 3.0;
        assert!((r.files[0].score - want).abs() < 1e-12);
        // ok.c: lines 1, 2 ran in both passing runs, line 3 in one.
        let ok = (2.0 / 3f64.sqrt() + 1.0 / 2f64.sqrt()) / 3.0;
        assert!((r.files[1].score - ok).abs() < 1e-12);
        assert_eq!(r.functions[0].name, "bug.c:g");
        assert_eq!(r.functions[0].score, 1.0);
        assert_eq!(Ranking::rank_of(&r.functions, "bug.c:g"), Some(1));
        assert_eq!(Ranking::rank_of(&r.files, "ok.c"), Some(2));
        assert_eq!(Ranking::rank_of(&r.files, "none.c"), None);
    }

    #[test]
    fn ties_count_against_the_rank() {
        let failing = cov(&[("a.c", "f", &[1]), ("b.c", "f", &[1])]);
        let r = rank(&failing, &[]);
        assert_eq!(Ranking::rank_of(&r.files, "a.c"), Some(2));
        assert_eq!(Ranking::rank_of(&r.files, "b.c"), Some(2));
    }

    #[test]
    fn coverage_reads_the_json_shape() {
        let c: Coverage = serde_json_like();
        assert_eq!(c.len(), 3);
    }

    fn serde_json_like() -> Coverage {
        serde_json::from_str(r#"{"tccgen.c": {"gen_op": [101, 102]}, "tccpp.c": {"next": [7]}}"#)
            .unwrap()
    }
}
