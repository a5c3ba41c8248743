//! Verdicts remembered across runs (`--cache DIR`): a content-addressed store on disk. A
//! verdict's key is the SHA-256 of the test (its script's bytes, or its command, pattern and
//! exit status; the bytes of the files it needs) and of the candidate (its file name and
//! text), so a second run, a resumed run or a run on another machine sharing the folder gets
//! the same verdict without running the test. Only yes and no are kept: a timeout or a test
//! that could not run may go otherwise next time.

use crate::runner::{Done, Job, Property, TestOutcome, Tests};
use sha2::{Digest, Sha256};
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// The files a test needs beside the candidate, as (name, bytes).
pub type TestFiles = [(String, Vec<u8>)];

/// A folder of verdicts for one test.
pub struct Cache {
    dir: PathBuf,
    /// The digest of the test; each key starts from it.
    test: Sha256,
    /// A pair's seed side, which has a test of its own.
    seed: Option<Sha256>,
}

/// Adds a length-prefixed field, so that no two different tests or candidates hash alike.
fn field(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

impl Cache {
    pub fn open(dir: &Path, property: &Property, files: &TestFiles) -> Result<Cache, String> {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot make the cache folder {}: {e}", dir.display()))?;
        let mut test = Sha256::new();
        field(&mut test, b"whittle verdict cache 1");
        key_property(&mut test, property)?;
        for (name, bytes) in files {
            field(&mut test, name.as_bytes());
            field(&mut test, bytes);
        }
        Ok(Cache {
            dir: dir.to_path_buf(),
            test,
            seed: None,
        })
    }

    /// A pair's cache: the variant's test keys the variant's verdicts, the seed's the seed's.
    pub fn open_pair(
        dir: &Path,
        variant: &Property,
        seed: &Property,
        files: &TestFiles,
    ) -> Result<Cache, String> {
        let seed = Cache::open(dir, seed, files)?.test;
        let mut seed_side = Sha256::new();
        field(&mut seed_side, b"seed");
        field(&mut seed_side, &seed.finalize());
        Ok(Cache {
            seed: Some(seed_side),
            ..Cache::open(dir, variant, files)?
        })
    }

    /// Where the verdict on `job`'s candidate is kept: DIR/ab/cdef….
    fn path(&self, job: &Job) -> PathBuf {
        let mut h = match (&self.seed, job.side) {
            (Some(seed), whittle::Side::Seed) => seed.clone(),
            _ => self.test.clone(),
        };
        field(&mut h, job.file.0.as_bytes());
        field(&mut h, job.file.1.as_bytes());
        let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        self.dir.join(&hex[..2]).join(&hex[2..])
    }

    pub fn get(&self, job: &Job) -> Option<TestOutcome> {
        match std::fs::read_to_string(self.path(job)).ok()?.trim() {
            "interesting" => Some(TestOutcome::Interesting),
            "boring" => Some(TestOutcome::Boring),
            _ => None,
        }
    }

    /// Keeps a yes or a no; a write that fails only costs a test next time.
    pub fn put(&self, job: &Job, outcome: &TestOutcome) {
        let word = match outcome {
            TestOutcome::Interesting => "interesting",
            TestOutcome::Boring => "boring",
            _ => return,
        };
        let path = self.path(job);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = crate::files::save(&path, &format!("{word}\n"));
    }
}

/// Tests behind the cache: a query it knows is answered at once, the verdicts of the others
/// are kept as they come.
pub struct Cached {
    inner: Box<dyn Tests>,
    cache: Cache,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Verdicts from the cache, not yet handed out.
    hits: VecDeque<Done>,
    /// Queries the cache did not know, not yet sent to the tests: the verdicts in `hits` come
    /// first, and may make them stale (a rerun then runs no test the first run called off).
    waiting: VecDeque<Job>,
    /// The queries sent to the tests, to key their verdicts.
    sent: HashMap<u64, Job>,
    from_cache: usize,
}

impl Cached {
    pub fn new(inner: Box<dyn Tests>, cache: Cache) -> Self {
        Cached {
            inner,
            cache,
            state: Mutex::default(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Tests for Cached {
    fn submit(&self, job: Job) {
        if let Some(outcome) = self.cache.get(&job) {
            let mut s = self.state();
            s.from_cache += 1;
            s.hits.push_back(Done {
                id: job.id,
                side: job.side,
                original: job.original,
                outcome,
                output: String::new(),
            });
            return;
        }
        self.state().waiting.push_back(job);
    }

    fn next_done(&self, wait: Duration) -> Result<Option<Done>, String> {
        let waiting = {
            let mut s = self.state();
            if let Some(hit) = s.hits.pop_front() {
                return Ok(Some(hit));
            }
            std::mem::take(&mut s.waiting)
        };
        for job in waiting {
            let copy = Job {
                id: job.id,
                side: job.side,
                original: job.original,
                file: job.file.clone(),
            };
            self.state().sent.insert(job.id, copy);
            self.inner.submit(job);
        }
        let done = self.inner.next_done(wait)?;
        if let Some(d) = &done {
            if let Some(job) = self.state().sent.remove(&d.id) {
                self.cache.put(&job, &d.outcome);
            }
        }
        Ok(done)
    }

    fn cancel(&self, id: u64) {
        let mut s = self.state();
        if let Some(i) = s.waiting.iter().position(|j| j.id == id) {
            let job = s.waiting.remove(i).expect("found");
            s.hits.push_back(Done {
                id,
                side: job.side,
                original: job.original,
                outcome: TestOutcome::Cancelled,
                output: String::new(),
            });
            return;
        }
        drop(s);
        self.inner.cancel(id)
    }

    fn running_ids(&self) -> Vec<u64> {
        let mut ids = self.inner.running_ids();
        ids.extend(self.state().waiting.iter().map(|j| j.id));
        ids
    }

    fn cancel_all(&self) {
        let waiting: Vec<u64> = self.state().waiting.iter().map(|j| j.id).collect();
        for id in waiting {
            self.cancel(id);
        }
        self.inner.cancel_all()
    }

    fn cached_verdicts(&self) -> usize {
        self.state().from_cache
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use whittle::Side;

    fn job(text: &str) -> Job {
        Job {
            id: 1,
            side: Side::Variant,
            original: false,
            file: ("a.c".into(), text.into()),
        }
    }

    fn command(cmd: &str) -> Property {
        Property::Command {
            cmd: cmd.into(),
            regex: regex::Regex::new("x").unwrap(),
            negate: false,
            exit: None,
        }
    }

    #[test]
    fn a_verdict_is_found_by_test_and_candidate_only() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path(), &command("cc {}"), &[]).unwrap();
        assert!(cache.get(&job("int x;")).is_none());
        cache.put(&job("int x;"), &TestOutcome::Interesting);
        cache.put(&job("int y;"), &TestOutcome::Boring);
        cache.put(&job("int z;"), &TestOutcome::Timeout);
        let again = Cache::open(dir.path(), &command("cc {}"), &[]).unwrap();
        assert!(matches!(
            again.get(&job("int x;")),
            Some(TestOutcome::Interesting)
        ));
        assert!(matches!(
            again.get(&job("int y;")),
            Some(TestOutcome::Boring)
        ));
        assert!(again.get(&job("int z;")).is_none(), "a timeout is not kept");
        let other = Cache::open(dir.path(), &command("gcc {}"), &[]).unwrap();
        assert!(other.get(&job("int x;")).is_none(), "another command");
        let files = [("ref.txt".to_string(), b"1".to_vec())];
        let with_file = Cache::open(dir.path(), &command("cc {}"), &files).unwrap();
        assert!(with_file.get(&job("int x;")).is_none(), "another file");
    }
}

/// Feeds what decides a test's verdicts into its key: the script's bytes or the command.
fn key_property(test: &mut Sha256, property: &Property) -> Result<(), String> {
    match property {
        Property::Script(path) | Property::Recipe { script: path, .. } => {
            field(test, b"script");
            field(test, &crate::runner::read_script(path)?);
        }
        Property::Command {
            cmd,
            regex,
            negate,
            exit,
        } => {
            field(test, b"command");
            field(test, cmd.as_bytes());
            field(test, regex.as_str().as_bytes());
            field(test, &[*negate as u8]);
            field(test, format!("{exit:?}").as_bytes());
        }
        Property::Endpoint(remote) => {
            field(test, b"endpoint");
            field(test, remote.key().as_bytes());
        }
        // A confirmed verdict is the inner test's, asked again.
        Property::Confirmed {
            test: inner, times, ..
        } => {
            field(test, b"confirmed");
            field(test, &times.to_le_bytes());
            key_property(test, inner)?;
        }
    }
    Ok(())
}
