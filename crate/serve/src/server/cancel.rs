//! Jobs a client calls off. A page whose reducer has moved on aborts its request, but the
//! server cannot see that; so a compile request may carry a key (`X-Whittle-Job`), and
//! `POST /api/cancel/<key>` kills that job's processes (or keeps it from starting), freeing
//! its slot for a query that still matters, as the CLI kills a stale test.
//!
//! A client that hangs up calls its job off too ([`CallOffOnDrop`]): its connection closes,
//! and the task waiting for the answer is dropped.
//!
//! The server decides whose a key is: a key is bound to the client that registered it (its
//! `Origin`, or the lack of one, and its IP address), and only that client can call the job
//! off; anyone else's cancel does nothing. A key stays taken while its job is admitted: a
//! second registration of it is refused, so no one can take over a running job's key.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Keys are the client's; longer ones are ignored rather than stored.
const MAX_KEY_LEN: usize = 64;

/// Who registered a key: the request's `Origin` header (none for non-browser clients) and
/// the address it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Owner {
    origin: Option<String>,
    peer: IpAddr,
}

impl Owner {
    pub fn new(origin: Option<&str>, peer: IpAddr) -> Owner {
        Owner {
            origin: origin.map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase()),
            peer: canonical(peer),
        }
    }
}

/// `::ffff:127.0.0.1` and `127.0.0.1` are the same client.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

#[derive(Default)]
pub struct Cancels {
    flags: Mutex<HashMap<String, (Arc<AtomicBool>, Owner)>>,
}

/// A job's place in [`Cancels`] while it is admitted; dropping it forgets the key.
pub struct Registration {
    cancels: Arc<Cancels>,
    key: Option<String>,
    pub flag: Arc<AtomicBool>,
}

/// The key is held by a job that has not ended.
#[derive(Debug)]
pub struct KeyInUse;

impl Cancels {
    /// The cancel flag of a job with this key (none, or an over-long one: a flag no one can
    /// set), bound to `owner`. `Err` when another admitted job holds the key.
    pub fn register(
        cancels: &Arc<Cancels>,
        key: Option<&str>,
        owner: Owner,
    ) -> Result<Registration, KeyInUse> {
        let flag = Arc::new(AtomicBool::new(false));
        let key = key
            .filter(|k| !k.is_empty() && k.len() <= MAX_KEY_LEN)
            .map(str::to_string);
        if let Some(k) = &key {
            let mut flags = cancels.lock();
            if flags.contains_key(k) {
                return Err(KeyInUse);
            }
            flags.insert(k.clone(), (flag.clone(), owner));
        }
        Ok(Registration {
            cancels: cancels.clone(),
            key,
            flag,
        })
    }

    /// Calls off the job with this key when `owner` registered it; false when there is none
    /// (it ended, or never came), it is someone else's, or it was called off already.
    pub fn cancel(&self, key: &str, owner: &Owner) -> bool {
        let flag = self
            .lock()
            .get(key)
            .filter(|(_, o)| o == owner)
            .map(|(f, _)| f.clone());
        flag.is_some_and(|f| !f.swap(true, Ordering::SeqCst))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Arc<AtomicBool>, Owner)>> {
        self.flags.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(k) = &self.key {
            let mut flags = self.cancels.lock();
            // Only this job's entry.
            if flags
                .get(k)
                .is_some_and(|(f, _)| Arc::ptr_eq(f, &self.flag))
            {
                flags.remove(k);
            }
        }
    }
}

/// Calls a job off when dropped before [`CallOffOnDrop::disarm`]: held by the task that
/// waits for the job's answer, which hyper drops when the client closes its connection.
pub struct CallOffOnDrop(Option<Arc<AtomicBool>>);

impl CallOffOnDrop {
    pub fn new(flag: &Arc<AtomicBool>) -> CallOffOnDrop {
        CallOffOnDrop(Some(Arc::clone(flag)))
    }

    /// The answer is in: nothing to call off.
    pub fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CallOffOnDrop {
    fn drop(&mut self) {
        if let Some(flag) = &self.0 {
            flag.store(true, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn me() -> Owner {
        Owner::new(Some("http://127.0.0.1:8080"), "127.0.0.1".parse().unwrap())
    }

    #[test]
    fn a_key_cancels_its_job_once_and_is_forgotten_after() {
        let cancels = Arc::new(Cancels::default());
        let reg = Cancels::register(&cancels, Some("k1"), me()).unwrap();
        assert!(!cancels.cancel("other", &me()));
        assert!(cancels.cancel("k1", &me()));
        assert!(reg.flag.load(Ordering::SeqCst));
        assert!(!cancels.cancel("k1", &me()), "already called off");
        drop(reg);
        assert!(!cancels.cancel("k1", &me()));
        let anonymous = Cancels::register(&cancels, None, me()).unwrap();
        assert!(!anonymous.flag.load(Ordering::SeqCst));
        // Keys without a name or too long are not stored, so they never collide.
        let _a = Cancels::register(&cancels, Some(""), me()).unwrap();
        let _b = Cancels::register(&cancels, Some(""), me()).unwrap();
        let long = "x".repeat(MAX_KEY_LEN + 1);
        let _c = Cancels::register(&cancels, Some(&long), me()).unwrap();
        let _d = Cancels::register(&cancels, Some(&long), me()).unwrap();
    }

    #[test]
    fn only_the_client_that_registered_a_key_can_cancel_it() {
        let cancels = Arc::new(Cancels::default());
        let reg = Cancels::register(&cancels, Some("k"), me()).unwrap();
        let local: IpAddr = "127.0.0.1".parse().unwrap();
        let other_origin = Owner::new(Some("http://localhost:5173"), local);
        let no_origin = Owner::new(None, local);
        let other_peer = Owner::new(Some("http://127.0.0.1:8080"), "10.0.0.2".parse().unwrap());
        for stranger in [&other_origin, &no_origin, &other_peer] {
            assert!(!cancels.cancel("k", stranger), "{stranger:?}");
        }
        assert!(!reg.flag.load(Ordering::SeqCst));
        // The same client, however its origin is spelled and its address written.
        let same = Owner::new(
            Some("HTTP://127.0.0.1:8080/"),
            "::ffff:127.0.0.1".parse().unwrap(),
        );
        assert!(cancels.cancel("k", &same));
        assert!(reg.flag.load(Ordering::SeqCst));
    }

    #[test]
    fn dropping_the_guard_calls_the_job_off_unless_disarmed() {
        let flag = Arc::new(AtomicBool::new(false));
        CallOffOnDrop::new(&flag).disarm();
        assert!(!flag.load(Ordering::SeqCst));
        drop(CallOffOnDrop::new(&flag));
        assert!(flag.load(Ordering::SeqCst));
    }

    #[test]
    fn a_key_in_use_cannot_be_taken_until_its_job_ends() {
        let cancels = Arc::new(Cancels::default());
        let first = Cancels::register(&cancels, Some("k"), me()).unwrap();
        let thief = Owner::new(None, "127.0.0.1".parse().unwrap());
        assert!(Cancels::register(&cancels, Some("k"), thief.clone()).is_err());
        assert!(
            Cancels::register(&cancels, Some("k"), me()).is_err(),
            "not even by its owner"
        );
        // The refused registration did not replace the owner.
        assert!(!cancels.cancel("k", &thief));
        drop(first);
        let second = Cancels::register(&cancels, Some("k"), thief.clone()).unwrap();
        assert!(cancels.cancel("k", &thief));
        assert!(second.flag.load(Ordering::SeqCst));
    }
}
