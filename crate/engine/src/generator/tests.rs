//! Generator-based reduction on generators with a known answer.

use super::*;
use crate::reduce::tests::drive_engine;
use crate::Query;

/// The paper's password generator: a random line of letters, then that line twice.
pub(crate) fn password(s: &mut Source) -> Result<String, Halt> {
    let mut w = String::new();
    s.repeat("char", 0, 19, |s| {
        let c = s.pick("letter", 26)?;
        w.push((b'a' + c as u8) as char);
        Ok(())
    })?;
    w.push('\n');
    Ok(format!("{w}{w}"))
}

/// The seed whose free run of [`password`] makes `abc\nabc\n`, as the paper's does.
pub(crate) const PASSWORD_SEED: u64 = 482_835;

/// Two equal lines that contain `c`.
fn two_equal_lines_with_c(t: &str) -> bool {
    let half = t.len() / 2;
    t.ends_with('\n') && t[..half] == t[half..] && t.contains('c')
}

fn settings(align: Align, trace: TraceStrategy) -> GeneratorSettings {
    GeneratorSettings {
        rng_seed: PASSWORD_SEED,
        align,
        trace,
    }
}

fn reduce<G: Generator>(
    g: G,
    s: GeneratorSettings,
    k: usize,
    scramble: bool,
    p: fn(&str) -> bool,
) -> GeneratorSession<G> {
    let mut session = GeneratorSession::new(g, s).unwrap();
    drive_engine(&mut session, k, scramble, |q: &Query| p(&q.text));
    session
}

#[test]
fn a_free_run_is_recorded_as_a_tree() {
    let mut source = Source::free(PASSWORD_SEED);
    let out = password(&mut source).unwrap();
    assert_eq!(out, "abc\nabc\n");
    let trace = source.finish().unwrap();
    let Node::Loop { iterations, .. } = &trace.nodes[0] else {
        panic!("{trace:?}");
    };
    assert_eq!(iterations.len(), 3);
    assert_eq!(trace.units().len(), 3);
    assert_eq!(trace.flat(), vec![3, 0, 1, 2]);
    // Replaying the trace gives the same run.
    let mut again = Source::replay(&trace, Align::Halt);
    assert_eq!(password(&mut again).unwrap(), out);
    assert_eq!(again.finish().unwrap(), trace);
}

#[test]
fn the_password_reduces_to_c_by_its_generator() {
    for align in Align::ALL {
        let s = reduce(
            password,
            settings(align, TraceStrategy::Hdd),
            1,
            false,
            two_equal_lines_with_c,
        );
        assert_eq!(s.best(), "c\nc\n", "{align:?}");
        assert_eq!(s.stats().invalid_queries, 0);
    }
}

#[test]
fn the_flat_sequence_baseline_reduces_it_too_with_more_queries() {
    let tree = reduce(
        password,
        settings(Align::Realign, TraceStrategy::Hdd),
        1,
        false,
        two_equal_lines_with_c,
    );
    let flat = reduce(
        password,
        settings(Align::Realign, TraceStrategy::Ddmin),
        1,
        false,
        two_equal_lines_with_c,
    );
    assert!(flat.best().len() >= tree.best().len(), "{:?}", flat.best());
    assert!(two_equal_lines_with_c(flat.best()));
}

/// Case 2 of the paper: a pick from a list whose length a selection decides. Deleting the
/// selection leaves the recorded pick out of range: halt gives up, bypass drops what
/// encloses the pick, re-align takes the smallest value.
fn case2(s: &mut Source) -> Result<String, Halt> {
    let mut x = vec![0];
    let mut out = String::new();
    s.repeat("round", 1, 1, |s| {
        if s.maybe_do("grow", |_| {
            x.push(1);
            Ok(())
        })? {
            out.push('g');
        }
        s.maybe_do("use", |s| {
            let y = x[s.pick("y", x.len())?];
            out.push_str(&format!("y{y}"));
            Ok(())
        })?;
        Ok(())
    })?;
    Ok(out)
}

#[test]
fn each_alignment_strategy_does_what_it_says_when_alignment_fails() {
    // A run where both selections were taken and y = 1.
    let trace = Trace {
        nodes: vec![Node::Loop {
            label: "round".into(),
            iterations: vec![vec![
                Node::Maybe {
                    label: "grow".into(),
                    body: Some(vec![]),
                },
                Node::Maybe {
                    label: "use".into(),
                    body: Some(vec![Node::Int {
                        label: "y".into(),
                        value: 1,
                        lo: 0,
                        hi: 9,
                        key: None,
                    }]),
                },
            ]],
        }],
    };
    assert_eq!(
        case2(&mut Source::replay(&trace, Align::Halt)).unwrap(),
        "gy1"
    );
    // Delete the `grow` body (unit 1: unit 0 is the iteration).
    let reduced = trace.without(&[false, true, false]);
    let run = |align| case2(&mut Source::replay(&reduced, align));
    assert!(run(Align::Halt).is_err(), "halt gives up");
    assert_eq!(
        run(Align::Bypass).unwrap(),
        "y0",
        "bypass drops the rest of `use`"
    );
    assert_eq!(
        run(Align::Realign).unwrap(),
        "y0",
        "re-align takes the smallest value"
    );
    // At the top level, with nothing enclosing the misaligned decision, bypass halts too.
    let top = Trace {
        nodes: vec![Node::Int {
            label: "other".into(),
            value: 3,
            lo: 0,
            hi: 9,
            key: None,
        }],
    };
    let mut s = Source::replay(&top, Align::Bypass);
    assert!(s.int("mine", 0, 9).is_err());
}

/// Re-align finds the next decision of the same label after ones the new run skips.
#[test]
fn realign_resumes_at_the_next_matching_label() {
    let trace = Trace {
        nodes: vec![
            Node::Int {
                label: "a".into(),
                value: 5,
                lo: 0,
                hi: 9,
                key: None,
            },
            Node::Int {
                label: "b".into(),
                value: 6,
                lo: 0,
                hi: 9,
                key: None,
            },
            Node::Int {
                label: "c".into(),
                value: 7,
                lo: 0,
                hi: 9,
                key: None,
            },
        ],
    };
    let mut s = Source::replay(&trace, Align::Realign);
    assert_eq!(s.int("c", 0, 9).unwrap(), 7, "skips a and b");
    assert_eq!(s.int("a", 0, 9).unwrap(), 0, "a is behind: smallest value");
    assert_eq!(s.misaligned, 2);
}

#[test]
fn same_result_for_any_k_and_report_order_and_by_replay() {
    let reference = reduce(
        password,
        settings(Align::Realign, TraceStrategy::Hdd),
        1,
        false,
        two_equal_lines_with_c,
    );
    for k in [2, 5] {
        for scramble in [false, true] {
            let s = reduce(
                password,
                settings(Align::Realign, TraceStrategy::Hdd),
                k,
                scramble,
                two_equal_lines_with_c,
            );
            assert_eq!(s.best(), reference.best());
            assert_eq!(s.recording(), reference.recording());
        }
    }
    let mut r = GeneratorSession::replay(
        password,
        settings(Align::Realign, TraceStrategy::Hdd),
        reference.recording(),
    )
    .unwrap();
    while !r.done() {
        r.step(16);
        assert!(r.next(1).is_empty());
    }
    assert_eq!(r.best(), "c\nc\n");
}

#[test]
fn a_generator_that_fails_is_an_error_not_a_panic() {
    let broken = |s: &mut Source| -> Result<String, Halt> {
        s.begin_loop("never-ended", 1, 1)?;
        Ok(String::new())
    };
    let err = GeneratorSession::new(broken, GeneratorSettings::default())
        .err()
        .unwrap();
    assert!(err.0.contains("never ended"), "{err:?}");
}

#[test]
fn nested_units_are_numbered_in_preorder_with_depths() {
    let g = |s: &mut Source| -> Result<String, Halt> {
        let mut out = String::new();
        s.repeat("outer", 2, 2, |s| {
            s.repeat("inner", 2, 2, |s| {
                out.push_str(&s.int("v", 0, 9)?.to_string());
                Ok(())
            })
        })?;
        Ok(out)
    };
    let mut src = Source::free(7);
    let mut g2 = g;
    g2.run(&mut src).unwrap();
    let units = src.finish().unwrap().units();
    let depths: Vec<usize> = units.iter().map(|u| u.depth).collect();
    assert_eq!(depths, [0, 1, 1, 0, 1, 1]);
    assert_eq!(units[2].parent, Some(0));
    assert_eq!(units[4].parent, Some(3));
}

/// What GReduce is for: deleting parts of the output can never keep its two lines equal,
/// so Perses and ddmin over lines cannot reduce it at all (the text parses as JavaScript).
#[test]
fn reducers_of_the_output_cannot_reduce_the_password() {
    use crate::reduce::{Session, Settings, Strategy};
    for strategy in [
        Strategy::Perses,
        Strategy::DdminLines,
        Strategy::DdminTokens,
    ] {
        let settings = Settings {
            strategy,
            ..Settings::default()
        };
        let mut s = Session::new(crate::Lang::JavaScript, "abc\nabc\n", settings).unwrap();
        drive_engine(&mut s, 1, false, |q: &Query| {
            two_equal_lines_with_c(&q.text)
        });
        assert_eq!(s.best(), "abc\nabc\n", "{strategy:?}");
    }
}

/// Statements that are a digit or a block of statements, nested as the decisions say.
fn blocks(s: &mut Source) -> Result<String, Halt> {
    fn statements(s: &mut Source, out: &mut String) -> Result<(), Halt> {
        s.repeat("stmt", 1, 2, |s| {
            if s.pick("kind", 2)? == 1 {
                out.push('{');
                statements(s, out)?;
                out.push('}');
            } else {
                out.push_str(&s.pick("digit", 10)?.to_string());
            }
            Ok(())
        })
    }
    let mut out = String::new();
    statements(s, &mut out)?;
    Ok(out)
}

#[test]
fn each_unit_lists_the_units_of_its_kind_inside_it_and_can_be_replaced_by_one() {
    let trace = {
        // Three statements deep: { { 5 } }.
        let mut s = Source::flat(vec![1, 1, 1, 1, 1, 0, 5]);
        blocks(&mut s).unwrap();
        s.finish().unwrap()
    };
    assert_eq!(
        blocks(&mut Source::replay(&trace, Align::Halt)).unwrap(),
        "{{5}}"
    );
    // Units 0, 1, 2: each statement holds the ones nested in it.
    assert_eq!(
        trace.same_kind_descendants(),
        vec![(0, vec![1, 2]), (1, vec![2])]
    );
    let hoisted = trace.replaced(0, 2);
    assert_eq!(
        blocks(&mut Source::replay(&hoisted, Align::Halt)).unwrap(),
        "5"
    );
    assert_eq!(trace.replaced(0, 1).units().len(), 2);
}

/// What deleting units cannot do: the digit deep in blocks comes out only if a statement is
/// replaced by one nested in it.
#[test]
fn a_nested_statement_is_hoisted_out_of_its_blocks() {
    // A seed whose free run nests a digit other than 0 at least two blocks deep.
    let (seed, digit) = (0..1000u64)
        .find_map(|seed| {
            let out = blocks(&mut Source::free(seed)).ok()?;
            let d = out.chars().find(|c| c.is_ascii_digit() && *c != '0')?;
            out.starts_with("{{").then_some((seed, d))
        })
        .expect("some seed nests a digit");
    let keeps = move |t: &str| t.contains(digit);
    let settings = GeneratorSettings {
        rng_seed: seed,
        align: Align::Realign,
        trace: TraceStrategy::Hdd,
    };
    let mut session = GeneratorSession::new(blocks, settings).unwrap();
    drive_engine(&mut session, 2, false, |q: &Query| keeps(&q.text));
    assert_eq!(session.best(), digit.to_string());
}

/// A word from a list, then `!`: which word is a plain pick, not a unit.
fn word(s: &mut Source) -> Result<String, Halt> {
    let w = ["a-long-word", "mid", "x"][s.pick("word", 3)?];
    Ok(format!("{w}!\n"))
}

#[test]
fn the_choose_pass_takes_a_picks_shorter_value_which_deleting_units_cannot() {
    let seed = (0..100)
        .find(|&seed| word(&mut Source::free(seed)).unwrap() == "a-long-word!\n")
        .expect("a seed that picks the long word");
    let run = |trace| {
        let s = GeneratorSettings {
            rng_seed: seed,
            ..settings(Align::Realign, trace)
        };
        reduce(word, s, 1, false, |t| t.ends_with("!\n"))
    };
    assert_eq!(run(TraceStrategy::Hdd).best(), "x!\n");
    // The flat baseline only deletes decisions (a deleted one takes its smallest value).
    assert_eq!(run(TraceStrategy::Ddmin).best(), "a-long-word!\n");
}

/// Two picks, and between them maybe a part.
fn parted(s: &mut Source, with_part: bool) -> Result<String, Halt> {
    let mut out = s.pick("a", 10)?.to_string();
    if with_part && s.part("p")? {
        out.push('+');
        s.end()?;
    }
    out.push_str(&s.pick("b", 10)?.to_string());
    Ok(out)
}

#[test]
fn a_part_is_in_every_free_run_without_a_draw_and_a_reduction_may_drop_it() {
    for seed in 0..20 {
        let with = parted(&mut Source::free(seed), true).unwrap();
        let without = parted(&mut Source::free(seed), false).unwrap();
        assert_eq!(
            with.replace('+', ""),
            without,
            "seed {seed}: the part changed other decisions"
        );
        assert!(with.contains('+'));
    }
    // A replay with no record of a part takes it, as a free run does.
    let unrecorded = parted(&mut Source::replay(&Trace::default(), Align::Realign), true).unwrap();
    assert_eq!(unrecorded, "0+0");
    let session = reduce(
        |s: &mut Source| parted(s, true),
        settings(Align::Realign, TraceStrategy::Hdd),
        1,
        false,
        |t| t.len() >= 2,
    );
    assert!(!session.best().contains('+'), "{}", session.best());
}

/// Variables with fresh names, then a use of one of them, picked by name.
fn declared(s: &mut Source) -> Result<String, Halt> {
    let mut names: Vec<String> = Vec::new();
    s.repeat("var", 0, 5, |s| {
        names.push(format!("v{}", s.fresh("name")?));
        Ok(())
    })?;
    if names.is_empty() {
        return Ok(String::new());
    }
    let keys: Vec<&str> = names.iter().map(String::as_str).collect();
    let i = s.pick_named("use", &keys)?;
    Ok(format!("{} use {}", names.join(","), names[i]))
}

#[test]
fn a_replay_without_an_earlier_variable_keeps_the_names_and_the_pick() {
    // A free run that declares at least three and uses one after the first.
    let (trace, out) = (0..200)
        .find_map(|seed| {
            let mut s = Source::free(seed);
            let out = declared(&mut s).unwrap();
            let names = out.split(' ').next().unwrap().split(',').count();
            (names >= 3 && !out.ends_with("use v0")).then(|| (s.finish().unwrap(), out))
        })
        .expect("a seed");
    let used = out.rsplit(' ').next().unwrap().to_string();
    // Delete the first variable (unit 0, the loop's first iteration).
    let mut deleted = vec![false; trace.units().len()];
    deleted[0] = true;
    let again = declared(&mut Source::replay(
        &trace.without(&deleted),
        Align::Realign,
    ))
    .unwrap();
    let (names, rest) = again.split_once(' ').unwrap();
    assert!(!names.split(',').any(|n| n == "v0"), "{again}");
    assert!(
        names.split(',').all(|n| out.contains(n)),
        "no variable renamed: {out} -> {again}"
    );
    assert_eq!(rest, format!("use {used}"), "{out} -> {again}");
}
