use super::*;

/// A fake compiler run: `fails` says whether a program shows the bug, `rejects` whether
/// the compiler refuses it; the coverage is one statement per distinct line of the program,
/// so programs that differ differ in coverage.
fn observe(
    text: &str,
    fails: &dyn Fn(&str) -> bool,
    rejects: &dyn Fn(&str) -> bool,
) -> Observation {
    let outcome = if rejects(text) {
        MutantOutcome::Rejected
    } else if fails(text) {
        MutantOutcome::Failing
    } else {
        MutantOutcome::Passing
    };
    let mut cov = Coverage::default();
    for (i, line) in text.lines().enumerate() {
        cov.0.entry("cc.c".into()).or_default().insert(
            format!("f{i}"),
            vec![line.len() as u32 * 1000 + line.bytes().map(u32::from).sum::<u32>()],
        );
    }
    Observation {
        outcome,
        coverage: Some(cov),
        trace: None,
        about: None,
    }
}

/// Runs a session to its end with `k` tests at a time, reporting each batch in reverse (as
/// parallel tests finish out of order).
fn run(
    text: &str,
    settings: WitnessSettings,
    k: usize,
    fails: &dyn Fn(&str) -> bool,
) -> WitnessSearch {
    let mut s = WitnessSearch::new(Lang::C, text, settings).unwrap();
    let mut parser = crate::tree::Parser::new(Lang::C);
    let mut rounds = 0;
    while !s.done() {
        let qs = s.next(k);
        assert!(
            !qs.is_empty() || s.done(),
            "a session that is not done gives queries"
        );
        for q in qs.into_iter().rev() {
            assert!(parser.is_valid(&q.text), "every query parses:\n{}", q.text);
            let obs = observe(&q.text, fails, &|_| false);
            s.report(q.id, obs);
        }
        rounds += 1;
        assert!(rounds < 10_000);
    }
    s
}

/// `main` starting `s` at `first`, adding `n` constants from 100 on, returning `s + last`:
/// many sites, of which the test says which matter.
fn sums(first: &str, n: u32, last: &str) -> String {
    let mut program = format!("int main(void) {{\n  int s = {first};\n");
    for i in 0..n {
        program.push_str(&format!("  s = s + {};\n", 100 + i));
    }
    program + &format!("  return s + {last};\n}}\n")
}

const PROGRAM: &str = "int main(void) {\n  int a = 3;\n  int b = 4;\n  int c = a * b;\n  if (c > 10)\n    c = c - 2;\n  return c + 12345;\n}\n";

#[test]
fn witnesses_pass_and_differ_from_the_failing_program_by_one_edit() {
    // The bug shows while `c > 10` is there.
    let fails = |t: &str| t.contains("c > 10");
    let s = run(
        PROGRAM,
        WitnessSettings {
            budget: 80,
            ..Default::default()
        },
        2,
        &fails,
    );
    assert_eq!(s.original_state(), OriginalState::Failing);
    assert!(!s.witnesses().is_empty());
    for w in s.witnesses() {
        assert!(!fails(&w.text), "a witness passes:\n{}", w.text);
        assert_eq!(w.order, 1);
        assert_eq!(w.changes.len(), 1);
        assert_eq!(
            w.changes[0].line, 5,
            "only a change on line 5 removes the bug"
        );
    }
    assert!(s.stats().queries <= 80);
    assert!(s.ranking().is_some(), "coverage came with every verdict");
    // Every failing mutant's coverage is kept for the ranking.
    assert!(s.stats().failing > 0);
    assert_eq!(s.failing_mutants().len(), s.stats().failing);
}

#[test]
fn the_same_seed_gives_the_same_witnesses_whatever_the_parallelism() {
    let fails = |t: &str| t.contains("a * b") && t.contains("c > 10");
    let texts = |k| -> Vec<String> {
        let s = run(
            PROGRAM,
            WitnessSettings {
                budget: 60,
                rng_seed: 7,
                ..Default::default()
            },
            k,
            &fails,
        );
        s.witnesses().iter().map(|w| w.text.clone()).collect()
    };
    let one = texts(1);
    assert!(!one.is_empty());
    assert_eq!(one, texts(3));
    assert_eq!(one, texts(8));
    let other = run(
        PROGRAM,
        WitnessSettings {
            budget: 60,
            rng_seed: 8,
            ..Default::default()
        },
        2,
        &fails,
    );
    let other: Vec<String> = other.witnesses().iter().map(|w| w.text.clone()).collect();
    assert_ne!(one, other, "another seed searches otherwise");
}

#[test]
fn the_diversity_filter_drops_witnesses_with_the_same_coverage() {
    // Every passing program covers the same single statement; the failing one another.
    let fails = |t: &str| t.contains("c > 10");
    let same = |keep| {
        let mut s = WitnessSearch::new(
            Lang::C,
            PROGRAM,
            WitnessSettings {
                budget: 80,
                keep,
                ..Default::default()
            },
        )
        .unwrap();
        while !s.done() {
            for q in s.next(4) {
                let mut obs = observe(&q.text, &fails, &|_| false);
                if obs.outcome == MutantOutcome::Passing {
                    obs.coverage = Some(serde_json::from_str(r#"{"cc.c": {"f": [1]}}"#).unwrap());
                }
                s.report(q.id, obs);
            }
        }
        s
    };
    let diverse = same(Keep::Diverse);
    assert_eq!(diverse.witnesses().len(), 1, "the second adds no diversity");
    assert!(diverse.stats().not_diverse > 0);
    let all = same(Keep::All);
    assert!(all.witnesses().len() > 1);
}

#[test]
fn metropolis_hastings_favours_the_rules_that_find_witnesses() {
    // Only a change of a constant removes the bug; variables and operators abound too.
    let mut program = String::from("int main(void) {\n");
    for i in 0..30 {
        program.push_str(&format!("  int a{i} = {};\n", 10 + i));
    }
    for i in 1..30 {
        program.push_str(&format!(
            "  a{i} = a{} * a{i} + a{i} - a{};\n",
            i - 1,
            (i + 7) % 30
        ));
    }
    program.push_str("  return a29;\n}\n");
    let fails = |t: &str| (0..30).all(|i| t.contains(&format!("a{i} = {};", 10 + i)));
    let share = |selection| {
        let mut total = 0.0;
        for seed in 1..=4 {
            let settings = WitnessSettings {
                budget: 150,
                rng_seed: seed,
                selection,
                ..Default::default()
            };
            let s = run(&program, settings, 4, &fails);
            let constant = |r: &RuleStats| r.rule.name().starts_with("constant");
            let hit: u32 = s
                .rules()
                .iter()
                .filter(|r| constant(r))
                .map(|r| r.selected)
                .sum();
            let all: u32 = s.rules().iter().map(|r| r.selected).sum();
            total += hit as f64 / all as f64;
        }
        total / 4.0
    };
    let (mh, random) = (share(Selection::Mh), share(Selection::Random));
    assert!(
        mh > random + 0.1,
        "MH chose constant rules {mh:.2} of the time, random {random:.2}"
    );
}

#[test]
fn higher_order_witnesses_shrink_to_the_edit_that_matters() {
    // Many sites, one that matters: the first phases miss it and the search moves to
    // mutants of several edits, which are then shrunk.
    let program = sums("0", 60, "777");
    let fails = |t: &str| t.contains("777");
    let mut shrunk = false;
    for seed in 1..=6 {
        let s = run(
            &program,
            WitnessSettings {
                budget: 300,
                rng_seed: seed,
                want: Some(1),
                ..Default::default()
            },
            2,
            &fails,
        );
        for w in s.witnesses() {
            assert_eq!(w.order, 1, "seed {seed}: {:?}", w.changes);
            assert_eq!(w.changes[0].before, "777");
        }
        shrunk |= s.stats().minimize_queries > 0 && !s.witnesses().is_empty();
    }
    assert!(
        shrunk,
        "some seed found its witness among higher-order mutants and shrank it"
    );
}

#[test]
fn an_original_that_does_not_fail_ends_the_search() {
    let mut s = WitnessSearch::new(Lang::C, PROGRAM, WitnessSettings::default()).unwrap();
    let q = s.next(4);
    assert_eq!(q.len(), 1, "the original goes alone");
    assert!(q[0].original);
    assert!(s.next(4).is_empty(), "nothing more before its verdict");
    s.report(q[0].id, Observation::of(MutantOutcome::Passing));
    assert!(s.done());
    assert_eq!(
        s.original_state(),
        OriginalState::NotFailing(MutantOutcome::Passing)
    );
}

#[test]
fn rejected_mutants_are_no_witnesses() {
    // The compiler rejects every mutant but those that change `4`.
    let mut s = WitnessSearch::new(
        Lang::C,
        PROGRAM,
        WitnessSettings {
            budget: 100,
            ..Default::default()
        },
    )
    .unwrap();
    while !s.done() {
        for q in s.next(3) {
            let obs = observe(&q.text, &|t| t.contains("c > 10"), &|t| {
                t.contains("int b = 4;") && !q.original
            });
            s.report(q.id, obs);
        }
    }
    assert!(s.stats().rejected > 0);
    for w in s.witnesses() {
        assert!(!w.text.contains("int b = 4;"));
    }
}

#[test]
fn a_program_that_does_not_parse_is_refused() {
    assert!(WitnessSearch::new(Lang::C, "int main( {", WitnessSettings::default()).is_err());
}

#[test]
fn a_repeated_verdict_changes_nothing() {
    let mut s = WitnessSearch::new(
        Lang::C,
        PROGRAM,
        WitnessSettings {
            budget: 30,
            ..Default::default()
        },
    )
    .unwrap();
    let q = s.next(1);
    s.report(q[0].id, Observation::of(MutantOutcome::Failing));
    let qs = s.next(4);
    assert_eq!(qs.len(), 4);
    s.report(qs[0].id, Observation::of(MutantOutcome::Failing));
    s.report(qs[0].id, Observation::of(MutantOutcome::Passing));
    s.report(99, Observation::of(MutantOutcome::Passing));
    assert!(!s.wants(qs[0].id) && s.wants(qs[1].id));
    assert!(
        s.next(4).is_empty(),
        "the round still waits for three verdicts"
    );
    for q in &qs[1..] {
        s.report(q.id, Observation::of(MutantOutcome::Failing));
    }
    assert!(
        !s.next(4).is_empty(),
        "the round is whole: the next one starts"
    );
    assert_eq!(s.stats().failing, 4);
}

#[test]
fn mutants_that_lose_part_of_the_failing_trace_seed_the_next_phase() {
    // Two places show the bug, like two misleadingly indented `if`s, and the compiler prints
    // a line for each: a witness must change both. A mutant that changes one prints less of
    // what the failing program printed about the bug: it is the seed to build on. The
    // compiler also prints a line for every constant over 100 (like -Woverflow), which many
    // mutants lose; what the bug is about (`about`) tells those apart.
    let program = sums("11111", 40, "22222");
    let bug = |t: &str| {
        ["11111", "22222"]
            .iter()
            .filter(|m| t.contains(*m))
            .map(|m| format!("warning: {m}\n"))
            .collect::<String>()
    };
    let others = |t: &str| {
        (100..140)
            .filter(|c| t.contains(&format!("+ {c};")))
            .map(|c| format!("warning: overflow {c}\n"))
            .collect::<String>()
    };
    let found = |with_about: bool| {
        let mut found = 0;
        for seed in 1..=4 {
            let settings = WitnessSettings {
                budget: 200,
                rng_seed: seed,
                want: Some(1),
                ..Default::default()
            };
            let mut s = WitnessSearch::new(Lang::C, &program, settings).unwrap();
            while !s.done() {
                for q in s.next(2) {
                    let about = bug(&q.text);
                    let outcome = if about.is_empty() {
                        MutantOutcome::Passing
                    } else {
                        MutantOutcome::Failing
                    };
                    let obs = Observation {
                        outcome,
                        coverage: None,
                        trace: Some(format!("{about}{}compiled\n", others(&q.text))),
                        about: with_about.then_some(about),
                    };
                    s.report(q.id, obs);
                }
            }
            for w in s.witnesses() {
                assert_eq!(w.order, 2, "seed {seed}: {:?}", w.changes);
            }
            found += usize::from(!s.witnesses().is_empty());
        }
        found
    };
    let (with, without) = (found(true), found(false));
    assert!(with >= 3, "witnesses for {with} of 4 random seeds");
    assert!(
        with > without,
        "{with} against {without} without knowing what the bug is about"
    );
}

#[test]
fn a_passing_mutant_whose_compile_did_without_nothing_is_no_witness() {
    // The failing compile runs statement 1 twice. Passing mutants that keep `c > 10`'s
    // comparison with 10 (any operator) run it as often, plus a statement of their own:
    // their runtime behaviour changed, the compile did all the failing one did. The others
    // run statement 1 once: they did without what may be the bug's code.
    let fails = |t: &str| t.contains("c > 10");
    let mut s = WitnessSearch::new(
        Lang::C,
        PROGRAM,
        WitnessSettings {
            budget: 120,
            ..Default::default()
        },
    )
    .unwrap();
    while !s.done() {
        for q in s.next(4) {
            let mut obs = observe(&q.text, &fails, &|_| false);
            let json = if q.original {
                r#"{"cc.c": {"f": [[1, 2]]}}"#.to_string()
            } else if q.text.contains(" 10)") {
                format!(
                    r#"{{"cc.c": {{"f": [[1, 2], [{}, 1]]}}}}"#,
                    2 + crate::digest::text(&q.text) % 1000
                )
            } else {
                r#"{"cc.c": {"f": [[1, 1]]}}"#.to_string()
            };
            obs.coverage = Some(serde_json::from_str(&json).unwrap());
            s.report(q.id, obs);
        }
    }
    assert!(s.stats().passing > 1);
    assert_eq!(
        s.witnesses().len(),
        1,
        "{:?}",
        s.witnesses().iter().map(|w| &w.changes).collect::<Vec<_>>()
    );
    assert!(!s.witnesses()[0].text.contains(" 10)"));
    // The ranking: statement 1 ran fewer times in the witness, so it stays suspicious.
    let r = s.ranking().unwrap();
    assert_eq!(r.functions[0].score, 1.0);
}
