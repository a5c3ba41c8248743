//! Jobs a client calls off. A page whose reducer has moved on aborts its request, but the
//! server cannot see that; so a compile request may carry a key (`X-Whittle-Job`), and
//! `POST /api/cancel/<key>` kills that job's processes (or keeps it from starting), freeing
//! its slot for a query that still matters, as the CLI kills a stale test.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Keys are the client's; longer ones are ignored rather than stored.
const MAX_KEY_LEN: usize = 64;

#[derive(Default)]
pub struct Cancels {
    flags: Mutex<HashMap<String, Arc<AtomicBool>>>,
}

/// A job's place in [`Cancels`] while it is admitted; dropping it forgets the key.
pub struct Registration {
    cancels: Arc<Cancels>,
    key: Option<String>,
    pub flag: Arc<AtomicBool>,
}

impl Cancels {
    /// The cancel flag of a job with this key (none: a flag no one can set).
    pub fn register(cancels: &Arc<Cancels>, key: Option<&str>) -> Registration {
        let flag = Arc::new(AtomicBool::new(false));
        let key = key
            .filter(|k| !k.is_empty() && k.len() <= MAX_KEY_LEN)
            .map(str::to_string);
        if let Some(k) = &key {
            cancels.lock().insert(k.clone(), flag.clone());
        }
        Registration {
            cancels: cancels.clone(),
            key,
            flag,
        }
    }

    /// Calls off the job with this key; false when there is none (it ended, or never came).
    pub fn cancel(&self, key: &str) -> bool {
        let flag = self.lock().get(key).cloned();
        flag.is_some_and(|f| !f.swap(true, Ordering::SeqCst))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<AtomicBool>>> {
        self.flags.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(k) = &self.key {
            let mut flags = self.cancels.lock();
            // Only this job's entry: a later job may have reused the key.
            if flags.get(k).is_some_and(|f| Arc::ptr_eq(f, &self.flag)) {
                flags.remove(k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_cancels_its_job_once_and_is_forgotten_after() {
        let cancels = Arc::new(Cancels::default());
        let reg = Cancels::register(&cancels, Some("k1"));
        assert!(!cancels.cancel("other"));
        assert!(cancels.cancel("k1"));
        assert!(reg.flag.load(Ordering::SeqCst));
        assert!(!cancels.cancel("k1"), "already called off");
        drop(reg);
        assert!(!cancels.cancel("k1"));
        let anonymous = Cancels::register(&cancels, None);
        assert!(!anonymous.flag.load(Ordering::SeqCst));
    }
}
