//! What one compile did, as the witness search compares it: the compiler's coverage (per
//! file, per function, the lines run), or failing that the lines of a trace the compiler
//! prints (its remarks, its assembly). Two compiles differ by the Jaccard distance of these
//! sets (DiWi §3.2); coverage of a failing program against its witnesses ranks the
//! compiler's files and functions by Ochiai (DiWi §3.3).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// The lines one compile ran, per file and function: `{"tccgen.c": {"gen_op": [101, 102]}}`,
/// and how often each ran when the coverage command says (gcov does):
/// `{"tccgen.c": {"gen_op": [[101, 3], [102, 1]]}}`. The shape `whittle serve` answers with
/// and `whittle witness --coverage` reads; a line's entry is a number or a [line, count] pair.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage(pub Files<Vec<u32>>, pub Hits);

/// Per file, per function.
pub type Files<T> = BTreeMap<String, BTreeMap<String, T>>;

/// How often each covered line ran, per file and function; a line missing ran an unknown
/// number of times.
pub type Hits = Files<BTreeMap<u32, u64>>;

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

    /// Records that `line` ran `count` more times (0: an unknown number of times).
    pub fn add(&mut self, file: &str, function: &str, line: u32, count: u64) {
        let lines = self
            .0
            .entry(file.to_string())
            .or_default()
            .entry(function.to_string())
            .or_default();
        if let Err(at) = lines.binary_search(&line) {
            lines.insert(at, line);
        }
        if count > 0 {
            *self
                .1
                .entry(file.to_string())
                .or_default()
                .entry(function.to_string())
                .or_default()
                .entry(line)
                .or_default() += count;
        }
    }

    /// How often a covered statement ran, when known.
    pub fn hits(&self, (file, function, line): (&str, &str, u32)) -> Option<u64> {
        self.1.get(file)?.get(function)?.get(&line).copied()
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

/// A line's entry in the JSON: `101`, or `[101, 3]` with how often it ran.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum LineEntry {
    Line(u32),
    Counted(u32, u64),
}

impl Serialize for Coverage {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let files: Files<Vec<LineEntry>> = self
            .0
            .iter()
            .map(|(file, functions)| {
                let functions = functions
                    .iter()
                    .map(|(function, lines)| {
                        let entries = lines
                            .iter()
                            .map(|&l| match self.hits((file, function, l)) {
                                Some(n) => LineEntry::Counted(l, n),
                                None => LineEntry::Line(l),
                            })
                            .collect();
                        (function.clone(), entries)
                    })
                    .collect();
                (file.clone(), functions)
            })
            .collect();
        files.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Coverage {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let files = Files::<Vec<LineEntry>>::deserialize(d)?;
        let mut cov = Coverage::default();
        for (file, functions) in &files {
            for (function, entries) in functions {
                // A function with no lines is kept: it says the function is known.
                cov.0
                    .entry(file.clone())
                    .or_default()
                    .entry(function.clone())
                    .or_default();
                for e in entries {
                    match *e {
                        LineEntry::Line(l) => cov.add(file, function, l, 0),
                        LineEntry::Counted(l, n) => cov.add(file, function, l, n),
                    }
                }
            }
        }
        Ok(cov)
    }
}

impl Coverage {
    /// What this compile did without, of what `failing`'s did: the statements `failing` ran
    /// that this one did not, or (both counts known) ran fewer times. The only statements a
    /// witness tells Ochiai anything about (see [`rank`]); a witness near the failing
    /// program runs nearly all the rest as often.
    pub fn without(&self, failing: &Coverage) -> Profile {
        Profile::of(failing.statements().filter_map(|s| {
            (!self.ran_as(failing, s)).then(|| hash(&[s.0, s.1, &s.2.to_string()]))
        }))
    }

    /// Whether this compile ran statement `s` as often as `failing` did; without both
    /// counts, whether it ran it at all.
    fn ran_as(&self, failing: &Coverage, s: (&str, &str, u32)) -> bool {
        match (self.hits(s), failing.hits(s)) {
            (Some(n), Some(f)) => n >= f,
            _ => self.ran(s),
        }
    }

    fn ran(&self, (file, function, line): (&str, &str, u32)) -> bool {
        self.0
            .get(file)
            .and_then(|f| f.get(function))
            .is_some_and(|lines| lines.binary_search(&line).is_ok())
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
    /// The Ochiai scores of its statements the failing compile ran: the mean of their mean
    /// and their highest.
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

/// Ochiai over the failing program, the mutants of it that still fail, and the witnesses: a
/// statement the failing compile ran scores `ef / sqrt(F * (ef + ep))`, where F is the
/// number of failing compiles (the program and its failing mutants), ef how many of them ran
/// it and ep how many witnesses ran it as often as the failing compile; with the program
/// alone, `1 / sqrt(1 + ep)`. A file or function scores the mean of its statements' mean
/// score (DiWi's aggregation) and their highest score: the mean alone drowns a bug's one or
/// two statements in a large function or file. Statements the failing compile did not run
/// are not suspects.
///
/// With hit counts, a witness that ran a statement fewer times than the failing compile
/// does not count as running it: witnesses are near the failing program, so they run nearly
/// every statement it ran, and what tells the bug's code is the executions a witness did
/// without (a signed short loaded once less, a constant folded once less). A failing mutant
/// that did not run a statement at all tells the bug needs none of it (one bug at a time),
/// which breaks the ties the witnesses leave: most of the compiler's code runs in every
/// witness as often.
pub fn rank(failing: &Coverage, failing_mutants: &[Coverage], witnesses: &[Coverage]) -> Ranking {
    let mut ran_by: HashMap<(&str, &str, u32), Runs> = HashMap::new();
    for m in failing_mutants {
        for s in m.statements() {
            ran_by.entry(s).or_default().failing += 1;
        }
    }
    for w in witnesses {
        for s in w.statements().filter(|&s| w.ran_as(failing, s)) {
            ran_by.entry(s).or_default().passing += 1;
        }
    }
    let compiles = 1 + failing_mutants.len();
    let mut files: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut functions: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for s @ (file, function, _) in failing.statements() {
        let score = ran_by.get(&s).copied().unwrap_or_default().ochiai(compiles);
        for (map, key) in [
            (&mut files, file.to_string()),
            (&mut functions, format!("{file}:{function}")),
        ] {
            map.entry(key).or_default().push(score);
        }
    }
    Ranking {
        files: ordered(files),
        functions: ordered(functions),
    }
}

/// How many failing mutants and witnesses ran a statement (see [`rank`]).
#[derive(Clone, Copy, Debug, Default)]
struct Runs {
    failing: usize,
    passing: usize,
}

impl Runs {
    /// The statement's Ochiai score among `compiles` failing compiles, the program's one
    /// (which ran it) among them.
    fn ochiai(self, compiles: usize) -> f64 {
        let ef = (1 + self.failing) as f64;
        ef / (compiles as f64 * (ef + self.passing as f64)).sqrt()
    }
}

/// The score of statements scoring `scores` (see [`rank`]), rounded to 12 decimals:
/// floating-point sums in different orders left noise (0.5000000000000012 against 0.5) that
/// broke true ties, in either direction, by chance.
fn aggregate(scores: &[f64]) -> f64 {
    let mean = scores.iter().sum::<f64>() / scores.len() as f64;
    let max = scores.iter().copied().fold(0.0, f64::max);
    ((mean + max) / 2.0 * 1e12).round() / 1e12
}

fn ordered(map: BTreeMap<String, Vec<f64>>) -> Vec<Suspect> {
    let mut v: Vec<Suspect> = map
        .into_iter()
        .map(|(name, scores)| Suspect {
            name,
            score: aggregate(&scores),
            statements: scores.len(),
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
        let r = rank(&failing, &[], &passing);
        assert_eq!(r.files[0].name, "bug.c");
        // bug.c: g's two lines score 1 each, h's line 1/sqrt(3): mean (2 + 0.577) / 3, highest 1.
        let want = ((2.0 + 1.0 / 3f64.sqrt()) / 3.0 + 1.0) / 2.0;
        assert!((r.files[0].score - want).abs() < 1e-12);
        // ok.c: lines 1, 2 ran in both passing runs, line 3 in one.
        let ok = ((2.0 / 3f64.sqrt() + 1.0 / 2f64.sqrt()) / 3.0 + 1.0 / 2f64.sqrt()) / 2.0;
        assert!((r.files[1].score - ok).abs() < 1e-12);
        assert_eq!(r.functions[0].name, "bug.c:g");
        assert_eq!(r.functions[0].score, 1.0);
        assert_eq!(Ranking::rank_of(&r.functions, "bug.c:g"), Some(1));
        assert_eq!(Ranking::rank_of(&r.files, "ok.c"), Some(2));
        assert_eq!(Ranking::rank_of(&r.files, "none.c"), None);
    }

    #[test]
    fn one_statement_only_the_failing_compile_ran_lifts_a_large_function() {
        // big: 40 statements every witness ran, and the one none did (the bug); small: 2
        // statements, each skipped by one witness of two. By the mean alone small ranks first.
        let lines: Vec<u32> = (1..=41).collect();
        let failing = cov(&[("a.c", "big", &lines), ("a.c", "small", &[100, 101])]);
        let passing = vec![
            cov(&[("a.c", "big", &lines[..40]), ("a.c", "small", &[100])]),
            cov(&[("a.c", "big", &lines[..40]), ("a.c", "small", &[101])]),
        ];
        let r = rank(&failing, &[], &passing);
        assert_eq!(r.functions[0].name, "a.c:big", "{:?}", r.functions);
    }

    #[test]
    fn what_a_failing_mutant_skipped_ranks_below_what_every_failing_compile_ran() {
        // Both functions run in every witness as often as in the failing compile: the
        // witnesses tie them. A mutant that still fails without running `fold` clears it.
        let failing = cov(&[("gen.c", "fold", &[1, 2]), ("gen.c", "load", &[7])]);
        let witnesses = vec![failing.clone(), failing.clone()];
        let r = rank(&failing, &[], &witnesses);
        assert_eq!(r.functions[0].score, r.functions[1].score);
        let mutant = cov(&[("gen.c", "fold", &[1]), ("gen.c", "load", &[7])]);
        let r = rank(&failing, &[mutant.clone(), failing.clone()], &witnesses);
        assert_eq!(r.functions[0].name, "gen.c:load", "{:?}", r.functions);
        assert_eq!(Ranking::rank_of(&r.functions, "gen.c:load"), Some(1));
        // load: ef 3 of 3 compiles, ep 2: 3 / sqrt(3 * 5).
        assert!((r.functions[0].score - 3.0 / 15f64.sqrt()).abs() < 1e-12);
        // A witness that skipped a statement still outweighs: fold's line 2 alone then.
        let skipped = cov(&[("gen.c", "fold", &[1]), ("gen.c", "load", &[7])]);
        let r = rank(&failing, &[], &[skipped, failing.clone()]);
        assert_eq!(r.functions[0].name, "gen.c:fold", "{:?}", r.functions);
    }

    #[test]
    fn ties_count_against_the_rank() {
        let failing = cov(&[("a.c", "f", &[1]), ("b.c", "f", &[1])]);
        let r = rank(&failing, &[], &[]);
        assert_eq!(Ranking::rank_of(&r.files, "a.c"), Some(2));
        assert_eq!(Ranking::rank_of(&r.files, "b.c"), Some(2));
    }

    #[test]
    fn a_witness_that_ran_a_statement_fewer_times_did_not_run_it_as_the_failing_compile() {
        let counted = |load: u64, other: u64| {
            let mut c = Coverage::default();
            c.add("gen.c", "load", 7, load);
            c.add("gen.c", "store", 9, other);
            c
        };
        // The failing compile loads twice; the witness once, and stores as often.
        let r = rank(&counted(2, 5), &[], &[counted(1, 5)]);
        assert_eq!(r.functions[0].name, "gen.c:load");
        assert_eq!(r.functions[0].score, 1.0);
        assert_eq!(Ranking::rank_of(&r.functions, "gen.c:load"), Some(1));
        // Running it more often, or an unknown number of times, counts as running it.
        let r = rank(&counted(2, 5), &[], &[counted(3, 5)]);
        assert_eq!(Ranking::rank_of(&r.functions, "gen.c:load"), Some(2));
        let r = rank(
            &counted(2, 5),
            &[],
            &[cov(&[("gen.c", "load", &[7]), ("gen.c", "store", &[9])])],
        );
        assert_eq!(Ranking::rank_of(&r.functions, "gen.c:load"), Some(2));
    }

    #[test]
    fn equal_scores_tie_exactly_whatever_the_sizes() {
        // Means of 0.1-like scores over different counts differed in the last bits.
        let lines: Vec<u32> = (1..=7).collect();
        let failing = cov(&[
            ("a.c", "f", &lines),
            ("b.c", "f", &lines[..3]),
            ("c.c", "f", &lines[..5]),
        ]);
        let passing: Vec<Coverage> = (0..98).map(|_| failing.clone()).collect();
        let r = rank(&failing, &[], &passing);
        assert!(
            r.files.iter().all(|f| f.score == r.files[0].score),
            "{:?}",
            r.files
        );
        assert_eq!(Ranking::rank_of(&r.files, "a.c"), Some(3));
    }

    #[test]
    fn without_is_what_the_failing_compile_ran_more_often() {
        let c = |json: &str| serde_json::from_str::<Coverage>(json).unwrap();
        let failing = c(r#"{"a.c": {"f": [[1, 3], [2, 1], [3, 1], 4]}}"#);
        let witness = c(r#"{"a.c": {"f": [[1, 2], [2, 5], [9, 1], 4]}}"#);
        // Line 1 ran fewer times, line 3 not at all; line 2 more often, line 9 is its own.
        let want = c(r#"{"a.c": {"f": [1, 3]}}"#).profile();
        assert_eq!(witness.without(&failing), want);
        assert!(failing.without(&failing).is_empty());
    }

    #[test]
    fn coverage_json_carries_hit_counts_when_known() {
        let c: Coverage = serde_json::from_str(r#"{"a.c": {"f": [[3, 2], 5, [4, 7]]}}"#).unwrap();
        assert_eq!(c.0["a.c"]["f"], vec![3, 4, 5]);
        assert_eq!(c.hits(("a.c", "f", 3)), Some(2));
        assert_eq!(c.hits(("a.c", "f", 5)), None);
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(json, r#"{"a.c":{"f":[[3,2],[4,7],5]}}"#);
        assert_eq!(serde_json::from_str::<Coverage>(&json).unwrap(), c);
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
