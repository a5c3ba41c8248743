//! The compile-job queue: at most `max_jobs` jobs run at once on their own threads; up to
//! `queue_len` more wait their turn; beyond that a request is turned away (429, Retry-After) at once, so
//! the HTTP workers are never all stuck waiting and static files keep being served.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use crate::sandbox::{Cgroups, Sandbox};

/// Limits applied to every compile job.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Wall time for the whole job (compiling, linking and running).
    pub job_timeout: Duration,
    /// Memory of a job: its control group's cap where there is one (everything it runs);
    /// else `RLIMIT_AS` for compilers and compiled programs. Node and the JVM also get a heap
    /// limit of half of it.
    pub memory_bytes: u64,
    /// Processes (and threads) a job may have at once.
    pub processes: u64,
    /// Bytes a job may write into its folder (a tmpfs of that size when the server is root).
    pub job_disk: u64,
    /// Bytes of output in one answer (all streams and the asm together); `truncated` past it.
    pub output_bytes: usize,
    /// Lines of output in one answer, likewise.
    pub output_lines: usize,
    /// Jobs running at once.
    pub max_jobs: usize,
    /// Jobs waiting for a turn before requests are refused with 429.
    pub queue_len: usize,
    /// Largest request body accepted (413 beyond).
    pub body_bytes: usize,
    /// Whether `filters.execute` may run the compiled program.
    pub allow_execute: bool,
    /// Where jobs run; `None` runs nothing unless `unsafe_no_sandbox`.
    pub sandbox: Option<Arc<Sandbox>>,
    pub cgroups: Option<Arc<Cgroups>>,
    /// Run jobs without a sandbox (only when none works here and the user said so).
    pub unsafe_no_sandbox: bool,
}

impl Default for Limits {
    fn default() -> Self {
        let cores = thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2);
        Limits {
            job_timeout: Duration::from_secs(20),
            memory_bytes: 2 << 30,
            processes: 256,
            job_disk: 256 << 20,
            output_bytes: 1 << 20,
            output_lines: 20_000,
            max_jobs: cores,
            queue_len: 256,
            body_bytes: 2 << 20,
            allow_execute: true,
            sandbox: None,
            cgroups: None,
            unsafe_no_sandbox: false,
        }
    }
}

/// What a job thread runs: a compile job with its answer on the way back.
type Task = Box<dyn FnOnce() + Send + 'static>;

/// A fixed set of job threads fed by a queue whose length is bounded by admission tickets.
pub struct JobQueue {
    tx: Mutex<Sender<Task>>,
    /// Jobs admitted and not finished (running or waiting).
    pending: Arc<AtomicUsize>,
    capacity: usize,
}

/// A place in the queue, taken before the job is built so that a caller turned away still
/// owns its request and can answer it. Dropping it gives the place back.
pub struct Ticket {
    pending: Arc<AtomicUsize>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.pending.fetch_sub(1, Ordering::SeqCst);
    }
}

impl JobQueue {
    pub fn new(max_jobs: usize, queue_len: usize) -> JobQueue {
        let (tx, rx) = channel::<Task>();
        let rx: Arc<Mutex<Receiver<Task>>> = Arc::new(Mutex::new(rx));
        for i in 0..max_jobs.max(1) {
            let rx = Arc::clone(&rx);
            thread::Builder::new()
                .name(format!("whittle-job-{i}"))
                .spawn(move || loop {
                    let job = match rx.lock().unwrap_or_else(|e| e.into_inner()).recv() {
                        Ok(job) => job,
                        Err(_) => return,
                    };
                    // A panicking job must not take its thread with it.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
                })
                .expect("spawn a job thread");
        }
        JobQueue {
            tx: Mutex::new(tx),
            pending: Arc::new(AtomicUsize::new(0)),
            capacity: max_jobs.max(1) + queue_len,
        }
    }

    /// A place in the queue, or `None` when `max_jobs + queue_len` jobs are already admitted.
    pub fn reserve(&self) -> Option<Ticket> {
        let taken = self.pending.fetch_add(1, Ordering::SeqCst);
        let ticket = Ticket {
            pending: Arc::clone(&self.pending),
        };
        if taken >= self.capacity {
            return None; // `ticket` is dropped, giving the place back.
        }
        Some(ticket)
    }

    /// Runs `work` on a job thread when one is free, gives the ticket back, then hands the
    /// result to `deliver`: a client that has its answer can count on the place being free.
    pub fn submit<R>(
        &self,
        ticket: Ticket,
        work: impl FnOnce() -> R + Send + 'static,
        deliver: impl FnOnce(R) + Send + 'static,
    ) {
        let job: Task = Box::new(move || {
            let result = {
                let _ticket = ticket;
                work()
            };
            deliver(result);
        });
        let _ = self.tx.lock().unwrap_or_else(|e| e.into_inner()).send(job);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    #[test]
    fn runs_at_most_max_jobs_at_once() {
        let q = JobQueue::new(2, 16);
        let running = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let (done_tx, done_rx) = channel();
        for _ in 0..8 {
            let (running, peak, done_tx) = (running.clone(), peak.clone(), done_tx.clone());
            let ticket = q.reserve().expect("room for 18");
            q.submit(
                ticket,
                move || {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    peak.fetch_max(now, Ordering::SeqCst);
                    thread::sleep(Duration::from_millis(30));
                    running.fetch_sub(1, Ordering::SeqCst);
                },
                move |()| done_tx.send(()).unwrap(),
            );
        }
        for _ in 0..8 {
            done_rx.recv_timeout(Duration::from_secs(10)).unwrap();
        }
        assert_eq!(peak.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn refuses_when_full_and_frees_places() {
        let q = JobQueue::new(1, 1);
        let a = q.reserve().unwrap();
        let b = q.reserve().unwrap();
        assert!(q.reserve().is_none());
        // By the time the result is delivered, the place is free again (no waiting needed).
        let (tx, rx) = channel();
        let q = Arc::new(q);
        let q2 = Arc::clone(&q);
        q.submit(
            b,
            || 7,
            move |r| {
                let free = q2.reserve().is_some(); // the ticket taken here is dropped at once
                tx.send((r, free)).unwrap()
            },
        );
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), (7, true));
        let c = q.reserve().unwrap();
        assert!(q.reserve().is_none(), "`a` and `c` fill the queue");
        drop((a, c));
        assert!(q.reserve().is_some());
    }
}
