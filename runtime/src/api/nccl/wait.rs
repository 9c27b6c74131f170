//! How a communicator's calls end without ever hanging the process.
//!
//! A call queues its work on the GPU and returns, like every GPU operation
//! (so communication overlaps compute, as in CuPy), leaving an event per
//! GPU in the communicator's list of work in flight. Every wait of the
//! runtime (reading an array, a stream's or an event's `synchronize`,
//! [`Communicator::synchronize`](super::Communicator::synchronize), the
//! next call) checks that list between its polls: work still running past
//! the time limit (`CUPRITE_NCCL_TIMEOUT`, default 120 s, counted from the
//! call), an asynchronous NCCL error, or a rank this work needs whose
//! process ended (see [`super::liveness`]) aborts the communicator
//! (`ncclCommAbort`, which also stops NCCL's kernels and so frees the
//! stream), and the wait returns an error naming the operation, the ranks,
//! the transport and why. The aborted communicator then refuses every call.
//!
//! With `CUPRITE_NCCL_NONBLOCKING=1` (NCCL 2.14 and newer), communicators
//! spanning processes are made non-blocking: NCCL's own set-up (joining the
//! ranks, connecting two peers on first use) is then polled the same way
//! instead of blocking inside NCCL. It is not the default: NCCL then queues
//! each call's kernels from a thread of its own, which left the GPU idle
//! for about 0.1 ms per all-reduce on two H200s (64 MB: 0.38 ms against
//! 0.26 ms blocking; 1 GB: 3.43 against 3.29 ms). Blocking set-up meets a
//! lost rank anyway: the rendezvous has already seen every rank alive, and
//! connecting to a process that ended fails rather than waits.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use super::liveness::Liveness;
use super::rendezvous::DEFAULT_TIMEOUT_S;
use super::{CtxGuard, UniqueId};
use crate::core::error::{Error, Result};
use crate::cuda::runtime::nccl_ffi::{
    Api, NcclResult, RawComm, RawConfig, RawUniqueId, IN_PROGRESS,
};
use crate::cuda::runtime::stream::Event;

/// How long a rank known lost may stay so before work waiting on it fails:
/// a peer that finished its last call and exited leaves that call's data
/// already delivered, so the work ends well inside this.
const LOST_GRACE: Duration = Duration::from_secs(2);

/// Why work could not finish.
pub(super) enum Failure {
    Timeout(Duration),
    Lost,
    Nccl(NcclResult),
    Cuda(String),
    Interrupted,
}

/// `CUPRITE_NCCL_TIMEOUT` seconds, else 120 (a malformed value is reported
/// by the rendezvous, which reads the same variable).
pub(super) fn default_timeout() -> Duration {
    std::env::var("CUPRITE_NCCL_TIMEOUT")
        .ok()
        .and_then(|t| t.trim().parse::<f64>().ok())
        .filter(|s| *s > 0.0 && *s < 1e9)
        .map_or(
            Duration::from_secs_f64(DEFAULT_TIMEOUT_S),
            Duration::from_secs_f64,
        )
}

/// One call's work on the GPUs of this process.
struct InFlight {
    op: &'static str,
    since: Instant,
    peers: Vec<usize>,
    events: Vec<Event>,
}

#[derive(Default)]
struct State {
    /// Why the communicator was aborted, once it was.
    aborted: Option<String>,
    /// The communicators were released (dropped): nothing to watch.
    released: bool,
    in_flight: VecDeque<InFlight>,
}

/// What a communicator's calls and the runtime's waits share about it.
pub(super) struct Watched {
    api: Option<&'static Api>,
    /// This process's ranks: (rank, GPU ordinal, NCCL communicator).
    ranks: Vec<(usize, usize, RawComm)>,
    world: usize,
    nonblocking: bool,
    liveness: Option<Arc<Liveness>>,
    timeout: Mutex<Duration>,
    state: Mutex<State>,
}

// SAFETY: the raw communicators are only passed to NCCL, which allows
// calls from any thread; `state` serialises aborting and releasing them.
unsafe impl Send for Watched {}
unsafe impl Sync for Watched {}

/// Every watched communicator of the process, and how many calls are in
/// flight among them (the waits' check is one atomic load when none is).
#[derive(Default)]
struct Registry {
    comms: Mutex<Vec<Weak<Watched>>>,
    in_flight: AtomicUsize,
}

fn registry() -> &'static Registry {
    crate::core::global::process_global("nccl_watched", Registry::default)
}

/// The check every wait of the runtime runs between polls.
fn check_all() -> Result<()> {
    let reg = registry();
    if reg.in_flight.load(Ordering::Relaxed) == 0 {
        return Ok(());
    }
    let comms: Vec<Arc<Watched>> = {
        let mut list = reg.comms.lock().unwrap_or_else(|e| e.into_inner());
        list.retain(|w| w.strong_count() > 0);
        list.iter().filter_map(Weak::upgrade).collect()
    };
    for w in comms {
        w.check()?;
    }
    Ok(())
}

impl Watched {
    /// The watch of a communicator without NCCL (a world of one rank).
    pub(super) fn unwatched() -> Arc<Watched> {
        Arc::new(Watched {
            api: None,
            ranks: Vec::new(),
            world: 1,
            nonblocking: false,
            liveness: None,
            timeout: Mutex::new(default_timeout()),
            state: Mutex::new(State::default()),
        })
    }

    /// Watches NCCL communicators (one per rank of this process).
    pub(super) fn new(
        api: &'static Api,
        ranks: Vec<(usize, usize, RawComm)>,
        world: usize,
        nonblocking: bool,
        liveness: Option<Arc<Liveness>>,
    ) -> Arc<Watched> {
        let w = Arc::new(Watched {
            api: Some(api),
            ranks,
            world,
            nonblocking,
            liveness,
            timeout: Mutex::new(default_timeout()),
            state: Mutex::new(State::default()),
        });
        crate::cuda::runtime::stream::register_wait_check(check_all);
        registry()
            .comms
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arc::downgrade(&w));
        w
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn timeout(&self) -> Duration {
        *self.timeout.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn set_timeout(&self, limit: Duration) {
        *self.timeout.lock().unwrap_or_else(|e| e.into_inner()) = limit;
    }

    pub(super) fn aborted(&self) -> Option<String> {
        self.state().aborted.clone()
    }

    /// Refuses calls once the communicator was aborted.
    pub(super) fn check_usable(&self, op: &'static str) -> Result<()> {
        match self.aborted() {
            None => Ok(()),
            Some(why) => Err(Error::Nccl {
                op,
                detail: format!(
                    "this communicator was aborted and cannot be used again ({why}); make a new one: cp::nccl::rebuild_world() on every rank for the job's world"
                ),
            }),
        }
    }

    /// After a call queued its work: waits until a non-blocking
    /// communicator has queued it on the GPU, then records it as in flight.
    pub(super) fn queued(&self, op: &'static str, peers: &[usize]) -> Result<()> {
        let Some(api) = self.api else { return Ok(()) };
        let start = Instant::now();
        if self.nonblocking {
            loop {
                let mut busy = false;
                for &(_, _, comm) in &self.ranks {
                    match async_state(api, comm) {
                        0 => {}
                        IN_PROGRESS => busy = true,
                        e => return Err(self.fail(op, peers, Failure::Nccl(e))),
                    }
                }
                if !busy {
                    break;
                }
                let interrupted = crate::core::interrupt::is_requested();
                if let Some(f) = self.stalled(peers, start, interrupted) {
                    return Err(self.fail(op, peers, f));
                }
                backoff(start.elapsed());
            }
        }
        let mut events = Vec::with_capacity(self.ranks.len());
        for &(_, ordinal, _) in &self.ranks {
            match record_done(ordinal) {
                Ok(e) => events.push(e),
                Err(e) => return Err(self.fail(op, peers, Failure::Cuda(e.to_string()))),
            }
        }
        let mut state = self.state();
        let finished = prune(&mut state.in_flight);
        state.in_flight.push_back(InFlight {
            op,
            since: start,
            peers: peers.to_vec(),
            events,
        });
        let reg = registry();
        reg.in_flight.fetch_add(1, Ordering::Relaxed);
        reg.in_flight.fetch_sub(finished, Ordering::Relaxed);
        Ok(())
    }

    /// Waits until every call's work is done (or fails it).
    pub(super) fn wait_all(&self, op: &'static str) -> Result<()> {
        let start = Instant::now();
        loop {
            self.check()?;
            if self.state().in_flight.is_empty() {
                return Ok(());
            }
            if crate::core::interrupt::is_requested() {
                return Err(Error::Interrupted { op });
            }
            backoff(start.elapsed());
        }
    }

    /// Drops finished work; fails (aborting) work that cannot finish.
    fn check(&self) -> Result<()> {
        let Some(api) = self.api else { return Ok(()) };
        let (op, peers, since) = {
            let mut state = self.state();
            let finished = prune(&mut state.in_flight);
            registry().in_flight.fetch_sub(finished, Ordering::Relaxed);
            match state.in_flight.front() {
                None => return Ok(()),
                Some(w) => (w.op, w.peers.clone(), w.since),
            }
        };
        for &(_, _, comm) in &self.ranks {
            match async_state(api, comm) {
                0 | IN_PROGRESS => {}
                e => return Err(self.fail(op, &peers, Failure::Nccl(e))),
            }
        }
        // Interrupts are the business of the wait this check runs in.
        match self.stalled(&peers, since, false) {
            Some(f) => Err(self.fail(op, &peers, f)),
            None => Ok(()),
        }
    }

    /// Why work on `peers` queued at `since` should stop being waited for:
    /// a rank of them lost for [`LOST_GRACE`], an interrupt (when
    /// `interrupted`), or the time limit.
    fn stalled(&self, peers: &[usize], since: Instant, interrupted: bool) -> Option<Failure> {
        if self
            .lost_peers(peers)
            .iter()
            .any(|(_, lost, _)| *lost >= LOST_GRACE)
        {
            Some(Failure::Lost)
        } else if interrupted {
            Some(Failure::Interrupted)
        } else if since.elapsed() > self.timeout() {
            Some(Failure::Timeout(since.elapsed()))
        } else {
            None
        }
    }

    fn lost_peers(&self, peers: &[usize]) -> Vec<(usize, Duration, String)> {
        self.liveness
            .as_ref()
            .map(|l| l.lost())
            .unwrap_or_default()
            .into_iter()
            .filter(|(r, _, _)| peers.contains(r))
            .collect()
    }

    /// Aborts the communicator for `failure` and returns the error to report.
    pub(super) fn fail(&self, op: &'static str, peers: &[usize], failure: Failure) -> Error {
        if let Some(why) = self.aborted() {
            return Error::Nccl {
                op,
                detail: format!("the communicator was aborted ({why})"),
            };
        }
        let detail = self.describe(peers, &failure);
        self.abort(&detail);
        match failure {
            Failure::Interrupted => Error::Interrupted { op },
            _ => Error::Nccl {
                op,
                detail: format!(
                    "{detail}; the communicator is aborted: make a new one (cp::nccl::rebuild_world() on every rank)"
                ),
            },
        }
    }

    /// `ncclCommAbort` on every rank of this process, once; `why` is kept
    /// for the calls refused after.
    pub(super) fn abort(&self, why: &str) {
        let mut state = self.state();
        if state.aborted.is_some() || state.released {
            return;
        }
        state.aborted = Some(why.to_string());
        let dropped = state.in_flight.len();
        state.in_flight.clear();
        registry().in_flight.fetch_sub(dropped, Ordering::Relaxed);
        if let Some(api) = self.api {
            let _ctx = CtxGuard::save();
            for &(_, _, comm) in &self.ranks {
                // SAFETY: a live communicator, aborted once (`released` and
                // `aborted` keep it from being used or released after).
                let _ = unsafe { (api.comm_abort)(comm) };
            }
        }
    }

    /// Releases the communicators when their owner is dropped (nothing is
    /// in flight by then that anyone can wait for).
    pub(super) fn release(&self) {
        let mut state = self.state();
        if state.released {
            return;
        }
        state.released = true;
        let dropped = state.in_flight.len();
        state.in_flight.clear();
        registry().in_flight.fetch_sub(dropped, Ordering::Relaxed);
        if state.aborted.is_some() {
            // ncclCommAbort freed them.
            return;
        }
        let Some(api) = self.api else { return };
        let _ctx = CtxGuard::save();
        for &(_, ordinal, comm) in &self.ranks {
            if let Ok(s) = crate::cuda::runtime::session::session(ordinal) {
                let _ = s.bind();
            }
            // SAFETY: a communicator made by NCCL, released once. A
            // non-blocking one is aborted, which never waits for peers
            // (destroying it could return before it is done).
            let _ = unsafe {
                if self.nonblocking {
                    (api.comm_abort)(comm)
                } else {
                    (api.comm_destroy)(comm)
                }
            };
        }
    }

    /// The error text of failed work: who waited for whom over what, and why.
    fn describe(&self, peers: &[usize], failure: &Failure) -> String {
        let here: Vec<String> = self
            .ranks
            .iter()
            .map(|(r, n, _)| format!("rank {r} on cuda:{n}"))
            .collect();
        let mine: Vec<usize> = self.ranks.iter().map(|(r, _, _)| *r).collect();
        let others: Vec<String> = peers
            .iter()
            .filter(|p| !mine.contains(p))
            .map(|p| p.to_string())
            .collect();
        let mut s = format!(
            "{} of {} (host {}), ",
            here.join(", "),
            self.world,
            super::launcher::this_host()
        );
        if others.is_empty() {
            s.push_str("with no other rank, ");
        } else {
            s.push_str(&format!("with rank(s) {}, ", others.join(", ")));
        }
        s.push_str(&format!("over {}: ", transport()));
        if matches!(failure, Failure::Nccl(_)) && self.liveness.is_some() {
            // NCCL's network error and the closed connection come together:
            // give the watcher a few polls to say whose process ended.
            let until = Instant::now() + Duration::from_millis(300);
            while self.lost_peers(peers).is_empty() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let lost = self.lost_peers(peers);
        match failure {
            Failure::Timeout(waited) => {
                s.push_str(&format!(
                    "not done {:.1} s after the call, past the time limit (CUPRITE_NCCL_TIMEOUT or Communicator::set_timeout)",
                    waited.as_secs_f64()
                ));
                if lost.is_empty() {
                    s.push_str("; every peer's process still runs as far as is known (is a rank stuck, or calling something else?)");
                }
            }
            Failure::Lost => s.push_str("a rank this work needs is gone"),
            Failure::Nccl(code) => match self.api {
                Some(api) => s.push_str(&format!("NCCL failed: {}", api.describe(*code))),
                None => s.push_str(&format!("NCCL failed with code {code}")),
            },
            Failure::Cuda(why) => s.push_str(why),
            Failure::Interrupted => s.push_str("interrupted"),
        }
        for (r, _, how) in lost {
            s.push_str(&format!("; rank {r} is gone ({how})"));
        }
        s
    }
}

/// Drops the finished work at the front of `list`; returns how many.
fn prune(list: &mut VecDeque<InFlight>) -> usize {
    let mut n = 0;
    while let Some(w) = list.front() {
        // An error (the context failed) counts as done: the wait that reads
        // the work reports that error itself.
        if !w.events.iter().all(|e| e.done().unwrap_or(true)) {
            break;
        }
        list.pop_front();
        n += 1;
    }
    n
}

/// A communicator NCCL made, and whether its calls are non-blocking.
pub(super) struct NewComm {
    pub raw: RawComm,
    pub nonblocking: bool,
}

/// `ncclCommInitRank` on the current device; non-blocking and watched with
/// `CUPRITE_NCCL_NONBLOCKING=1` where NCCL allows (see the module doc).
pub(super) fn init_rank(
    op: &'static str,
    api: &Api,
    world: usize,
    rank: usize,
    id: &UniqueId,
    liveness: Option<&Liveness>,
) -> Result<NewComm> {
    let raw_id = RawUniqueId {
        internal: *id.as_bytes(),
    };
    let want_blocking = !std::env::var("CUPRITE_NCCL_NONBLOCKING").is_ok_and(|v| v.trim() == "1");
    let _ctx = CtxGuard::save();
    let mut comm: RawComm = std::ptr::null_mut();
    let Some(init_config) = api.comm_init_rank_config.filter(|_| !want_blocking) else {
        // SAFETY: valid out pointer; NCCL uses the current device, whose
        // context the caller bound.
        let r = unsafe { (api.comm_init_rank)(&mut comm, world as i32, raw_id, rank as i32) };
        api.check(op, r)?;
        return Ok(NewComm {
            raw: comm,
            nonblocking: false,
        });
    };
    let mut config = RawConfig::new();
    config.blocking = 0;
    // SAFETY: valid out pointer and config; NCCL uses the current device.
    let r = unsafe { init_config(&mut comm, world as i32, raw_id, rank as i32, &mut config) };
    let limit = default_timeout();
    let start = Instant::now();
    let mut state = r;
    while (state == 0 || state == IN_PROGRESS) && !comm.is_null() {
        // A communicator being made may be polled.
        state = async_state(api, comm);
        if state != IN_PROGRESS {
            break;
        }
        let gone = liveness
            .map(|l| l.lost())
            .unwrap_or_default()
            .into_iter()
            .find(|(_, since, _)| *since >= LOST_GRACE);
        let why = if let Some((r, _, how)) = gone {
            Some(format!("rank {r} is gone ({how})"))
        } else if crate::core::interrupt::is_requested() {
            Some("interrupted".to_string())
        } else if start.elapsed() > limit {
            Some(format!(
                "the ranks did not all join within {:.0} s (CUPRITE_NCCL_TIMEOUT)",
                limit.as_secs_f64()
            ))
        } else {
            None
        };
        if let Some(why) = why {
            // SAFETY: a communicator NCCL returned; aborted once, never used after.
            let _ = unsafe { (api.comm_abort)(comm) };
            return Err(Error::Nccl {
                op,
                detail: format!("rank {rank} of {world}: joining NCCL failed: {why}"),
            });
        }
        backoff(start.elapsed());
    }
    if state != 0 {
        let detail = api.describe(state);
        if !comm.is_null() {
            // SAFETY: as above.
            let _ = unsafe { (api.comm_abort)(comm) };
        }
        return Err(Error::Nccl {
            op,
            detail: format!("rank {rank} of {world}: {detail}"),
        });
    }
    Ok(NewComm {
        raw: comm,
        nonblocking: true,
    })
}

/// An event recorded after the work queued on GPU `ordinal`'s stream.
fn record_done(ordinal: usize) -> Result<Event> {
    let event = Event::for_completion(ordinal)?;
    event.record(&crate::cuda::runtime::stream::stream_for(ordinal))?;
    Ok(event)
}

fn async_state(api: &Api, comm: RawComm) -> NcclResult {
    let mut state = 0;
    // SAFETY: a live communicator and a valid out pointer.
    let q = unsafe { (api.comm_get_async_error)(comm, &mut state) };
    if q != 0 {
        q
    } else {
        state
    }
}

/// Spin briefly (small collectives finish in microseconds), then yield,
/// then sleep.
fn backoff(waited: Duration) {
    if waited < Duration::from_micros(100) {
        std::hint::spin_loop();
    } else if waited < Duration::from_millis(10) {
        std::thread::yield_now();
    } else {
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// NCCL's transports as this process's environment sets them.
pub(super) fn transport() -> String {
    let set = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    let is_one = |k: &str| set(k).is_some_and(|v| v.trim() == "1");
    let mut parts = Vec::new();
    if is_one("NCCL_P2P_DISABLE") && is_one("NCCL_SHM_DISABLE") {
        parts.push("the network only (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1)".to_string());
    } else {
        parts.push("NCCL's transports".to_string());
        for k in ["NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE"] {
            if let Some(v) = set(k) {
                parts.push(format!("{k}={v}"));
            }
        }
    }
    for k in ["NCCL_NET", "NCCL_IB_DISABLE", "NCCL_SOCKET_IFNAME"] {
        if let Some(v) = set(k) {
            parts.push(format!("{k}={v}"));
        }
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_world_of_one_is_never_in_flight_and_never_fails() {
        let w = Watched::unwatched();
        assert!(w.queued("t", &[0]).is_ok());
        assert!(w.check().is_ok() && w.wait_all("t").is_ok());
        assert!(w.check_usable("t").is_ok() && w.aborted().is_none());
    }

    #[test]
    fn an_aborted_communicator_refuses_calls_and_says_why() {
        let w = Watched::unwatched();
        w.abort("rank 3 is gone");
        let e = w.check_usable("nccl::all_reduce").unwrap_err().to_string();
        assert!(
            e.contains("nccl::all_reduce")
                && e.contains("rank 3 is gone")
                && e.contains("rebuild_world"),
            "{e}"
        );
        // A second abort keeps the first reason.
        w.abort("other");
        assert_eq!(w.aborted().as_deref(), Some("rank 3 is gone"));
    }

    #[test]
    fn time_limit_from_the_environment_or_two_minutes() {
        // Read once per call; the variable is not set in the test runner.
        if std::env::var_os("CUPRITE_NCCL_TIMEOUT").is_none() {
            assert_eq!(default_timeout(), Duration::from_secs(120));
        }
        let w = Watched::unwatched();
        w.set_timeout(Duration::from_millis(1500));
        assert_eq!(w.timeout(), Duration::from_millis(1500));
    }

    #[test]
    fn failures_name_ranks_transport_and_reason() {
        let w = Watched::unwatched();
        let text = w.describe(&[0, 1, 2], &Failure::Timeout(Duration::from_secs(3)));
        assert!(text.contains("with rank(s) 0, 1, 2"), "{text}");
        assert!(
            text.contains("NCCL's transports") || text.contains("network only"),
            "{text}"
        );
        assert!(
            text.contains("3.0 s") && text.contains("CUPRITE_NCCL_TIMEOUT"),
            "{text}"
        );
    }
}
