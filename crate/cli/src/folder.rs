//! `whittle reduce DIR`: a folder reduced as one test case ([`whittle::folder`]). Each test
//! runs in a fresh folder holding the whole candidate tree; each new best is written back
//! into DIR (the original kept as DIR.orig), all changed files at once
//! ([`crate::files::save_tree`]), so a stopped run leaves a consistent tree.

use crate::commands::reduce::ReduceArgs;
use crate::drive::{
    exit_status, interrupt_flag, pass_table, run_tests, say_original_fails, stats_json,
};
use crate::drive::{timed, write_stats, Ending, Shell};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use whittle::folder::command::COMMAND;
use whittle::folder::{bundle, Folder, FolderSession};
use whittle::reduce::Settings;
use whittle::Side;

/// The file name of a folder's queries: the test's folder itself holds the tree (and `{}`
/// in a `--cmd` stands for it).
pub const TREE: &str = ".";

/// Writes a query's tree (a [`bundle`]) into the fresh folder `dir`.
pub fn write_tree(dir: &Path, tree: &str) -> Result<(), String> {
    let files = bundle::decode(tree).ok_or("a folder's query is not a tree of files")?;
    for (path, text) in files {
        let at = dir.join(&path);
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot make {}: {e}", parent.display()))?;
        }
        std::fs::write(&at, text).map_err(|e| format!("cannot write {}: {e}", at.display()))?;
    }
    Ok(())
}

/// A file of the folder: its path (relative, `/`-separated), text and permission bits.
pub struct Read {
    pub path: String,
    pub text: String,
    mode: u32,
}

/// Every regular file under `dir` (not in `.git`, not a test script), sorted by path; an
/// error when there is none.
pub fn read_tree(dir: &Path, skip: &[PathBuf]) -> Result<Vec<Read>, String> {
    let mut out = Vec::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(rel) = folders.pop() {
        let here = dir.join(&rel);
        let list =
            std::fs::read_dir(&here).map_err(|e| format!("cannot read {}: {e}", here.display()))?;
        for item in list {
            let item = item.map_err(|e| format!("cannot read {}: {e}", here.display()))?;
            let name = item.file_name().to_string_lossy().into_owned();
            let kind = item.file_type().map_err(|e| format!("{name}: {e}"))?;
            let path = rel.join(&name);
            if kind.is_dir() {
                if name != ".git" {
                    folders.push(path);
                }
            } else if std::fs::canonicalize(item.path()).is_ok_and(|p| skip.contains(&p)) {
                continue;
            } else if rel.as_os_str().is_empty() && name == COMMAND {
                return Err(format!(
                    "{}: whittle keeps this name for the test's command (--reduce-flags); rename the file",
                    item.path().display()
                ));
            } else {
                // Links and non-text files are refused with their own messages.
                let own = crate::files::read_own(&dir.join(&path))?;
                let path = path.to_string_lossy().into_owned();
                out.push(Read {
                    path,
                    text: own.text,
                    mode: own.mode,
                });
            }
        }
    }
    if out.is_empty() {
        return Err(format!("{} holds no file to reduce", dir.display()));
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// Keeps the original tree as `orig`, unless something is there already (an earlier
/// run's original: never touched). Whether it made it.
fn keep_original(orig: &Path, files: &[Read]) -> Result<bool, String> {
    if std::fs::symlink_metadata(orig).is_ok() {
        crate::files::own_folder(orig)?;
        return Ok(false);
    }
    crate::files::own_folder(orig)?;
    for f in files {
        let at = orig.join(&f.path);
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot make {}: {e}", parent.display()))?;
        }
        crate::files::keep_original(&at, &f.text, f.mode)?;
    }
    Ok(true)
}

/// The loop's view of a folder run: what is on disk, to write only what changed.
struct FolderShell {
    dir: PathBuf,
    on_disk: RefCell<HashMap<String, Option<String>>>,
}

/// Where the reduced command goes (`--reduce-flags`): beside DIR, never into it.
fn command_file(dir: &Path) -> PathBuf {
    PathBuf::from(format!("{}.cmd", dir.display()))
}

impl Shell<Folder> for FolderShell {
    fn file_name(&self, _side: Side) -> String {
        TREE.into()
    }

    fn save(&self, session: &FolderSession) -> Result<(), String> {
        let mut on_disk = self.on_disk.borrow_mut();
        let mut writes = Vec::new();
        for (path, text) in session.best_files() {
            if on_disk.get(path).map(Option::as_deref) != Some(text) {
                let at = match path == COMMAND {
                    true => command_file(&self.dir),
                    false => self.dir.join(path),
                };
                writes.push((at, text, path));
            }
        }
        let list: Vec<(PathBuf, Option<&str>)> =
            writes.iter().map(|(p, t, _)| (p.clone(), *t)).collect();
        crate::files::save_tree(&list)?;
        for (_, text, path) in writes {
            on_disk.insert(path.to_string(), text.map(String::from));
        }
        Ok(())
    }
}

/// The folder's own files in the best tree (not the command line).
fn files_of(session: &FolderSession) -> impl Iterator<Item = (&str, Option<&str>)> {
    session
        .best_files()
        .into_iter()
        .filter(|(p, _)| *p != COMMAND)
}

/// `whittle reduce --test T DIR`.
pub fn reduce(args: ReduceArgs, dir: &Path) -> Result<i32, String> {
    // Without a trailing `/`: DIR.orig goes beside DIR, not into it.
    let dir: PathBuf = dir.components().collect();
    let dir = dir.as_path();
    let recipe = &args.recipe;
    let one_file = !args.endpoint.endpoints.is_empty()
        || recipe.wrong_code.is_some()
        || recipe.crash
        || recipe.print_test
        || recipe.confirm.is_some();
    if one_file {
        return Err("a folder is reduced with --test or --cmd, here or on --cluster; --endpoint, --wrong-code, --crash, --print-test and --confirm take one FILE for now".into());
    }
    let mut property = args.property.property()?;
    // The command line joins the tree, where `make-flags` takes its words; the test runs it.
    let command = match (&mut property, recipe.reduce_flags) {
        (crate::runner::Property::Command { cmd, .. }, true) => {
            let line = cmd.replace("{}", TREE);
            *cmd = format!("sh ./{COMMAND}");
            Some(line)
        }
        (_, true) => return Err("--reduce-flags with a folder needs --cmd: its flags and the files it names are reduced with the folder".into()),
        (_, false) => None,
    };
    let script = args.property.test.as_deref();
    let script: Vec<PathBuf> = script
        .and_then(|t| std::fs::canonicalize(t).ok())
        .into_iter()
        .collect();
    let files = read_tree(dir, &script)?;
    let settings = Settings {
        strict: args.strict,
        implicit_int: !args.no_implicit_int,
        format: !args.keep_layout,
        ..args.run.settings()?
    };
    let started = Instant::now();
    let pairs = files
        .iter()
        .map(|f| (f.path.clone(), f.text.clone()))
        .chain(command.clone().map(|c| (COMMAND.to_string(), c)))
        .collect();
    let (session, parse_cpu) = timed(|| FolderSession::folder(pairs, settings));
    let mut session = session.map_err(|e| {
        let refusal = crate::input::unparseable(&dir.join(&e.path), &e.error);
        format!("{refusal} (or drop --strict: whittle then reduces it, adding no syntax error)")
    })?;
    let orig = PathBuf::from(format!("{}.orig", dir.display()));
    let made_orig = keep_original(&orig, &files)?;
    let shell = FolderShell {
        dir: dir.to_path_buf(),
        // The command is not on disk yet: the first save writes it.
        on_disk: RefCell::new(files.into_iter().map(|f| (f.path, Some(f.text))).collect()),
    };
    eprintln!(
        "whittle reduce: {} files, {} a grammar covers",
        files_of(&session).count(),
        session.parsed_files().len()
    );
    let interrupted = interrupt_flag();
    // This machine's threads or a cluster, behind the verdict cache if asked, as for a file.
    let (runner, jobs) = crate::cluster::tests_for(
        &args.cluster,
        property,
        args.run.common.jobs,
        Duration::from_secs_f64(args.run.common.timeout_seconds()),
    )?;
    // A run the main thread has to end (the engine busy past a signal's grace) writes these.
    if let Some(path) = &args.run.common.stats_json {
        crate::stop::figures_to(path);
    }
    let run = run_tests(
        &mut session,
        &shell,
        runner.as_ref(),
        jobs,
        args.run.common.quiet,
        &interrupted,
        started,
    )?;
    match run.ending {
        Ending::OriginalFails { done, verdict } => {
            let what = format!("folder {}", dir.display());
            let by_hand = "copy the folder's files into an empty folder and run the test there";
            say_original_fails(&what, &done, &verdict, by_hand);
            if made_orig {
                let _ = std::fs::remove_dir_all(&orig);
            }
            return Ok(1);
        }
        Ending::Interrupted => eprintln!(
            "whittle reduce: interrupted; the best so far ({} tokens) is in {}",
            session.stats().tokens_now,
            dir.display()
        ),
        Ending::Done => {}
    }
    shell.save(&session)?;
    let wall = started.elapsed().as_secs_f64();
    let s = session.stats();
    eprintln!(
        "whittle reduce: {} -> {} tokens, {} -> {} bytes in {:.1} s; {} queries ({} cache hits, {} invalid candidates skipped); engine {:.2} s",
        s.tokens_before, s.tokens_now, s.bytes_before, s.bytes_now, wall, s.queries, s.cache_hits, s.invalid_skipped, (run.engine + parse_cpu).as_secs_f64()
    );
    run.say_cache("reduce", args.cluster.cache.is_some());
    for line in pass_table(s, &run.pass_wall) {
        eprintln!("whittle reduce:   {line}");
    }
    let deleted: Vec<&str> = files_of(&session)
        .filter_map(|(p, t)| t.is_none().then_some(p))
        .collect();
    let reduced_command = session
        .best_files()
        .into_iter()
        .find_map(|(p, t)| t.filter(|_| p == COMMAND));
    if let Some(line) = reduced_command {
        eprintln!(
            "whittle reduce: the command: {line} (in {})",
            command_file(dir).display()
        );
    }
    if !deleted.is_empty() {
        eprintln!("whittle reduce: deleted: {}", deleted.join(" "));
    }
    eprintln!(
        "whittle reduce: the result is in {} (the original in {})",
        dir.display(),
        orig.display()
    );
    if let Some(msg) = &run.first_failure {
        eprintln!("whittle reduce: note: some tests could not run: {msg}");
    }
    if let Some(path) = &args.run.common.stats_json {
        let mut json = stats_json(s, &run.pass_wall);
        json["wall_seconds"] = wall.into();
        json["jobs"] = jobs.into();
        json["interrupted"] = interrupted.load(std::sync::atomic::Ordering::SeqCst).into();
        json["deleted"] = deleted.into();
        json["command"] = reduced_command.into();
        run.add_test_figures(&mut json);
        write_stats(path, &json)?;
    }
    Ok(exit_status(&interrupted))
}
