//! `whittle pair --seed DIR --variant DIR`: two folders reduced as a pair
//! ([`whittle::folder::pair`]). Each side's test runs in a fresh folder holding that side's
//! whole candidate tree. The inputs are never changed: each new best pair is written into
//! `SEED.min/` and `VARIANT.min/` (all of a side's changed files at once, so a stopped run
//! leaves two consistent trees) and their difference, file by file, into `VARIANT.diff`.

use crate::commands::pair::{say_side_fails, tests_for, Ended, PairArgs};
use crate::drive::{exit_status, run_tests, save, timed, write_stats, Ending, Shell};
use crate::folder::{read_tree, TREE};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use whittle::folder::pair::{FolderPair, FolderPairSession};
use whittle::pair::unified_diff;
use whittle::Side;

/// `DIR` without a trailing `/`, and `DIR.min` beside it.
fn outputs_of(dir: &Path) -> (PathBuf, PathBuf) {
    let dir: PathBuf = dir.components().collect();
    let min = PathBuf::from(format!("{}.min", dir.display()));
    (dir, min)
}

/// The two best trees' difference, file by file, as one unified diff.
fn trees_diff(session: &FolderPairSession, names: &[String; 2]) -> String {
    let [seed, variant] = session.best_trees();
    let mut out = String::new();
    for ((path, s), (_, v)) in seed.iter().zip(&variant) {
        if s != v {
            let (a, b) = (
                format!("{}/{path}", names[0]),
                format!("{}/{path}", names[1]),
            );
            out.push_str(&unified_diff(s.unwrap_or(""), v.unwrap_or(""), &a, &b));
        }
    }
    out
}

/// The pair loop's view of two folders: where each side's best goes and what is there.
struct PairFoldersShell {
    /// `SEED.min` and `VARIANT.min`.
    mins: [PathBuf; 2],
    diff: PathBuf,
    names: [String; 2],
    on_disk: RefCell<[HashMap<String, Option<String>>; 2]>,
}

impl Shell<FolderPair> for PairFoldersShell {
    fn file_name(&self, _side: Side) -> String {
        TREE.into()
    }

    fn sizes(&self, session: &FolderPairSession) -> Option<String> {
        let (_, s) = session.pair_sizes();
        Some(format!(
            "seed {}, variant {}, diff {} tokens",
            s.seed, s.variant, s.diff
        ))
    }

    fn save(&self, session: &FolderPairSession) -> Result<(), String> {
        let mut on_disk = self.on_disk.borrow_mut();
        for (side, tree) in session.best_trees().into_iter().enumerate() {
            let mut writes = Vec::new();
            for (path, text) in tree {
                if on_disk[side].get(path).map(Option::as_deref) != Some(text) {
                    let at = self.mins[side].join(path);
                    if let (Some(parent), Some(_)) = (at.parent(), text) {
                        std::fs::create_dir_all(parent)
                            .map_err(|e| format!("cannot make {}: {e}", parent.display()))?;
                    }
                    writes.push((at, text, path));
                }
            }
            let list: Vec<(PathBuf, Option<&str>)> =
                writes.iter().map(|(p, t, _)| (p.clone(), *t)).collect();
            crate::files::save_tree(&list)?;
            for (_, text, path) in writes {
                on_disk[side].insert(path.to_string(), text.map(String::from));
            }
        }
        save(&self.diff, &trees_diff(session, &self.names))
    }
}

/// A folder's files as `(path, text)`, without the test scripts.
fn files_of(dir: &Path, scripts: &[PathBuf]) -> Result<Vec<(String, String)>, String> {
    Ok(read_tree(dir, scripts)?
        .into_iter()
        .map(|f| (f.path, f.text))
        .collect())
}

pub fn pair(args: &PairArgs, interrupted: &AtomicBool) -> Result<i32, String> {
    let Some(seed_arg) = args.seed.as_deref().filter(|s| s.is_dir()) else {
        return Err(format!(
            "{} is a folder: give --seed the folder that does not show the behaviour (--auto-seed takes one file)",
            args.variant.display()
        ));
    };
    if !args.endpoint.endpoints.is_empty() {
        return Err("two folders are tested with --test-seed and --test-variant, or --cmd, here or on --cluster; --endpoint takes one file per side for now".into());
    }
    let (seed_dir, seed_min) = outputs_of(seed_arg);
    let (variant_dir, variant_min) = outputs_of(&args.variant);
    for min in [&seed_min, &variant_min] {
        if std::fs::read_dir(min).is_ok_and(|mut d| d.next().is_some()) {
            return Err(format!("{} is there already (an earlier result?): move it away or remove it, and run again", min.display()));
        }
    }
    let tests = [&args.test_seed, &args.test_variant].into_iter().flatten();
    let scripts: Vec<PathBuf> = tests
        .filter_map(|t| std::fs::canonicalize(t).ok())
        .collect();
    let seed = files_of(&seed_dir, &scripts)?;
    let variant = files_of(&variant_dir, &scripts)?;
    let settings = args.run.settings()?;
    let (runner, jobs) = tests_for(args)?;
    let started = Instant::now();
    let (session, setup_cpu) = timed(|| FolderPairSession::folder_pair(seed, variant, settings));
    let mut session = session.map_err(|e| {
        let dir = match e.error.side {
            Some(Side::Seed) => &seed_dir,
            _ => &variant_dir,
        };
        crate::input::unparseable(&dir.join(&e.path), &e.error)
    })?;
    let names = [&seed_dir, &variant_dir].map(|d| {
        let name = d.file_name().and_then(|n| n.to_str());
        name.unwrap_or("folder").to_string()
    });
    let diff = PathBuf::from(format!("{}.diff", variant_dir.display()));
    let shell = PairFoldersShell {
        mins: [seed_min, variant_min],
        diff,
        names,
        on_disk: RefCell::new([HashMap::new(), HashMap::new()]),
    };
    let (before, _) = session.pair_sizes();
    eprintln!(
        "whittle pair: seed {} tokens, variant {} tokens, diff {} tokens over {} paths ({} a grammar covers on both sides; {jobs} tests at a time)",
        before.seed,
        before.variant,
        before.diff,
        session.best_trees()[0].len(),
        session.parsed_paths().len()
    );
    let run = run_tests(
        &mut session,
        &shell,
        runner.as_ref(),
        jobs,
        args.run.common.quiet,
        interrupted,
        started,
    )?;
    match run.ending {
        Ending::OriginalFails { done, verdict } => {
            let dir = match done.side {
                Side::Seed => &seed_dir,
                Side::Variant => &variant_dir,
            };
            let what = format!("folder {}", dir.display());
            say_side_fails(args, &done, &verdict, &what, "the folder's files");
            return Ok(1);
        }
        Ending::Interrupted => {
            eprintln!("whittle pair: interrupted; the best pair so far is saved")
        }
        Ending::Done => {}
    }
    shell.save(&session)?;
    let ended = Ended {
        stats: session.pair_stats(),
        wall: started.elapsed().as_secs_f64(),
        engine: run.engine + setup_cpu,
        outputs: [&shell.mins[0], &shell.mins[1], &shell.diff].map(PathBuf::as_path),
    };
    ended.say();
    run.say_cache("pair", args.cluster.cache.is_some());
    if let Some(msg) = &run.first_failure {
        eprintln!("whittle pair: note: some tests could not run: {msg}");
    }
    print!("{}", trees_diff(&session, &shell.names));
    if let Some(path) = &args.run.common.stats_json {
        let mut json = ended.json(jobs, interrupted);
        run.add_test_figures(&mut json);
        write_stats(path, &json)?;
    }
    Ok(exit_status(interrupted))
}
