//! Ctrl-C and SIGTERM stop a run within a second, whatever it is doing.
//!
//! A command runs on a worker thread while the main thread waits for it and for the signal.
//! The command's own loops watch [`flag`] and end as they should (tests killed, the best so
//! far saved, statistics written). When the worker is stuck in long engine work instead (the
//! parse of a huge input, a pass preparing), the main thread ends the run itself after
//! [`GRACE`]: it kills the tests, waits for a file write under way, removes the temporary
//! folders and exits with 130. Nothing is lost: every best so far was saved when found, and
//! `--stats-json` gets the figures as of the last one.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How long a command has to end by itself after the signal.
const GRACE: Duration = Duration::from_millis(300);

/// The worker's stack: the engine walks trees recursively, as deep as the program nests.
const STACK: usize = 256 << 20;

static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// Set once the main thread ends the run: no new test starts.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Where `--stats-json` goes, and the figures as of the last best saved: what the main
/// thread writes if it has to end the run.
static FIGURES: Mutex<(Option<PathBuf>, Option<serde_json::Value>)> = Mutex::new((None, None));

type Hook = Box<dyn Fn() + Send>;

/// What to do before the main thread ends the run: kill each pool's tests.
static HOOKS: Mutex<Vec<Hook>> = Mutex::new(Vec::new());

/// The flag Ctrl-C and SIGTERM set (the handler is installed on first use).
pub fn flag() -> Arc<AtomicBool> {
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        let _ = ctrlc::set_handler(move || f.store(true, Ordering::SeqCst));
        flag
    })
    .clone()
}

/// Whether the run is being ended by the main thread.
pub fn exiting() -> bool {
    EXITING.load(Ordering::SeqCst)
}

/// Runs `hook` (killing tests) if the main thread has to end the run.
pub fn on_exit(hook: impl Fn() + Send + 'static) {
    HOOKS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Box::new(hook));
}

/// Makes a run ended by the main thread write the figures last kept to `path`.
pub fn figures_to(path: &Path) {
    FIGURES.lock().unwrap_or_else(|e| e.into_inner()).0 = Some(path.to_path_buf());
}

/// Whether figures are wanted ([`figures_to`]): then each best saved keeps its own.
pub fn wants_figures() -> bool {
    FIGURES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .0
        .is_some()
}

/// The figures as of the best just saved.
pub fn keep_figures(json: serde_json::Value) {
    FIGURES.lock().unwrap_or_else(|e| e.into_inner()).1 = Some(json);
}

/// Runs `command` (named for messages) on a worker thread; its exit status, or 130 when a
/// signal came and it did not end within [`GRACE`].
pub fn run(name: &str, command: impl FnOnce() -> i32 + Send + 'static) -> i32 {
    let stop = flag();
    crate::scratch::sweep();
    let (tx, rx) = channel();
    let spawned = std::thread::Builder::new()
        .name(name.into())
        .stack_size(STACK)
        .spawn(move || {
            let _ = tx.send(command());
        });
    if let Err(e) = spawned {
        eprintln!("whittle {name}: cannot start: {e}");
        return 2;
    }
    let mut signalled: Option<Instant> = None;
    loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(code) => return code,
            // A panic: its message is printed already.
            Err(RecvTimeoutError::Disconnected) => return 101,
            Err(RecvTimeoutError::Timeout) => {}
        }
        if stop.load(Ordering::SeqCst) {
            let since = *signalled.get_or_insert_with(Instant::now);
            if since.elapsed() >= GRACE {
                end_now(name);
            }
        }
    }
}

/// Ends the run from the main thread: tests killed, their folders removed, exit 130.
fn end_now(name: &str) -> ! {
    EXITING.store(true, Ordering::SeqCst);
    for hook in HOOKS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        hook();
    }
    // The killed tests' folders go as their workers see them end; what is left, here.
    let deadline = Instant::now() + Duration::from_millis(200);
    while crate::scratch::count() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    // A write under way ends first (a save is a rename: the file is whole either way), and
    // none starts after: the guard is held until the process is gone.
    let _writing = crate::files::writing();
    crate::scratch::remove_all();
    let figures = std::mem::take(&mut *FIGURES.lock().unwrap_or_else(|e| e.into_inner()));
    let written = match figures {
        (Some(path), Some(mut json)) => {
            json["interrupted"] = true.into();
            json["ended_busy"] = true.into();
            crate::drive::write_stats(&path, &json).is_ok()
        }
        _ => false,
    };
    eprintln!(
        "whittle {name}: interrupted while the engine was busy; every result saved so far is kept ({})",
        if written {
            "statistics as of the last one written"
        } else {
            "no statistics written"
        }
    );
    std::process::exit(130)
}
