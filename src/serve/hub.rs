//! Who may use the cores now. One [`Engine`] serves every client, and one
//! piece of work (a search or a review) runs at a time. Each piece of work
//! holds a [`Ticket`] from the moment it is accepted until it ends; the
//! hub decides who gets the next one:
//! - the same client's newer request replaces its own running work (a new
//!   position to analyse, the next move of its game);
//! - another client's request waits (it is queued) while the running work
//!   is bounded (a timed move, a fixed depth, a review), so no client can
//!   stop or pre-empt another's game; an infinite analysis is pre-empted;
//! - `/api/stop` stops only the caller's own work.
//!
//! The engine's lock is taken only off the runtime (it is held while a
//! search starts and clears its table); the ticket slot's lock is never
//! held for longer than a few loads and stores, so `/api/info` and the
//! queue never wait on a search.

use crate::rules::Game;
use crate::search::{Engine, Info, Limits, SearchId, SearchResult};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::Notify;

/// Who sent a request: the page's `konakis_client` cookie or an API
/// caller's `X-Konakis-Client` header; callers that name neither share the
/// anonymous client.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientId(pub String);

/// One piece of work's hold on the cores.
#[derive(Debug)]
pub struct Ticket {
    client: ClientId,
    /// Another client may stop it (an infinite analysis).
    preemptible: bool,
    /// Asked to stop: by its client, a newer request or its client leaving.
    stop: Arc<AtomicBool>,
    /// Ended: the cores are free.
    done: AtomicBool,
    /// Its search or review started: that, not the request, ends it.
    started: AtomicBool,
    /// The engine search, once started.
    search: Mutex<Option<SearchId>>,
}

impl Ticket {
    /// The flag that stops this work (a review's searchers watch it).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::SeqCst)
    }

    pub fn search(&self) -> Option<SearchId> {
        *self.search.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Why a search did not start.
pub enum NotStarted {
    /// Its client went away or a newer request replaced it first.
    Replaced,
    /// The engine could not start it.
    Failed(String),
}

/// The one engine, the ticket of the work running now and the queue's
/// wake-up call.
pub struct Hub {
    engine: Mutex<Engine>,
    threads: usize,
    hash_mib: usize,
    current: Mutex<Option<Arc<Ticket>>>,
    freed: Arc<Notify>,
    waiting: AtomicUsize,
}

impl Hub {
    pub fn new(engine: Engine) -> Hub {
        Hub {
            threads: engine.settings().threads,
            hash_mib: engine.settings().hash_mib,
            engine: Mutex::new(engine),
            current: Mutex::new(None),
            freed: Arc::new(Notify::new()),
            waiting: AtomicUsize::new(0),
        }
    }

    /// The engine, locked: only off the runtime.
    fn engine(&self) -> MutexGuard<'_, Engine> {
        self.engine.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn current(&self) -> MutexGuard<'_, Option<Arc<Ticket>>> {
        self.current.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The engine's threads (a review's searchers) and hash MiB.
    pub fn threads(&self) -> usize {
        self.threads
    }

    pub fn hash_mib(&self) -> usize {
        self.hash_mib
    }

    /// Whether any work holds the cores, and how many requests wait. Never
    /// waits on the engine.
    pub fn busy(&self) -> (bool, usize) {
        let running = self.current().as_ref().is_some_and(|t| !t.is_done());
        (running, self.waiting.load(Ordering::Relaxed))
    }

    /// Whether `client`'s new work would have to wait for another's.
    pub fn would_wait(&self, client: &ClientId) -> bool {
        self.current()
            .as_ref()
            .is_some_and(|t| !t.is_done() && t.client != *client && !t.preemptible)
    }

    /// A ticket for `client`'s new work, unless another client's bounded
    /// work holds the cores. The work it replaces is asked to stop; the
    /// second value is that work, whose engine search the caller stops
    /// with [`Hub::halt`] off the runtime.
    pub fn try_claim(
        &self,
        client: &ClientId,
        preemptible: bool,
    ) -> Option<(Arc<Ticket>, Option<Arc<Ticket>>)> {
        let mut current = self.current();
        let holds = |t: &Arc<Ticket>| !t.is_done() && t.client != *client && !t.preemptible;
        if current.as_ref().is_some_and(holds) {
            return None;
        }
        let ticket = Arc::new(Ticket {
            client: client.clone(),
            preemptible,
            stop: Arc::new(AtomicBool::new(false)),
            done: AtomicBool::new(false),
            started: AtomicBool::new(false),
            search: Mutex::new(None),
        });
        let old = current.replace(ticket.clone()).filter(|t| !t.is_done());
        if let Some(old) = &old {
            old.stop.store(true, Ordering::SeqCst);
        }
        Some((ticket, old))
    }

    /// Waits (on the runtime, without blocking it) for a ticket; `on_queued`
    /// runs once if it has to wait.
    pub async fn claim(
        &self,
        client: &ClientId,
        preemptible: bool,
        mut on_queued: impl FnMut(),
    ) -> (Arc<Ticket>, Option<Arc<Ticket>>) {
        /// Counts this request among the waiting while it waits, however
        /// the wait ends (its client may leave).
        struct Waiting<'a>(&'a AtomicUsize);
        impl Drop for Waiting<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, Ordering::Relaxed);
            }
        }
        let mut queued = None;
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            freed.as_mut().enable();
            if let Some(claimed) = self.try_claim(client, preemptible) {
                return claimed;
            }
            if queued.is_none() {
                self.waiting.fetch_add(1, Ordering::Relaxed);
                queued = Some(Waiting(&self.waiting));
                on_queued();
            }
            // The wake-up is the rule; the timeout only a safety net.
            let _ = tokio::time::timeout(Duration::from_millis(500), freed).await;
        }
    }

    /// Marks work started: from now on its own end frees the cores (a
    /// review's thread, a search's result), not its request's.
    pub fn started(&self, ticket: &Ticket) {
        ticket.started.store(true, Ordering::SeqCst);
    }

    /// Marks work ended and wakes the queue.
    pub fn finish(&self, ticket: &Ticket) {
        ticket.done.store(true, Ordering::SeqCst);
        self.freed.notify_waiters();
    }

    /// Stops a ticket's work: its flag, and its engine search if it has
    /// one. Blocks on the engine: call off the runtime.
    pub fn halt(&self, ticket: &Ticket) {
        ticket.stop.store(true, Ordering::SeqCst);
        if let Some(id) = ticket.search() {
            self.engine().stop_search(id);
        }
    }

    /// Stops `client`'s running work (only the search `id`, when given);
    /// whether it stopped something. Off the runtime.
    pub fn stop_for(&self, client: &ClientId, id: Option<SearchId>) -> bool {
        let ticket = self.current().clone();
        match ticket {
            Some(t)
                if t.client == *client
                    && !t.is_done()
                    && id.is_none_or(|id| t.search() == Some(id)) =>
            {
                self.halt(&t);
                true
            }
            _ => false,
        }
    }

    /// Starts the engine's search of `game` for `ticket`. Blocks until the
    /// older search has unwound (milliseconds): call off the runtime. A
    /// ticket stopped before its search starts never starts one; one
    /// stopped while it starts is stopped at once (whichever of this and
    /// the stopper comes second sees the other).
    pub fn start_search(
        &self,
        ticket: &Arc<Ticket>,
        game: Game,
        limits: Limits,
        multipv: usize,
        mut on_info: impl FnMut(&Info) + Send + 'static,
        on_done: impl FnOnce(&SearchResult) + Send + 'static,
    ) -> Result<SearchId, NotStarted> {
        let mut engine = self.engine();
        // Work that never starts frees the cores here, whether or not its
        // request is still there to see it.
        let not_started = |why| {
            self.finish(ticket);
            Err(why)
        };
        if ticket.stopped() {
            return not_started(NotStarted::Replaced);
        }
        engine.set_game(game);
        if let Err(e) = engine.set_option("MultiPV", Some(&multipv.to_string())) {
            return not_started(NotStarted::Failed(e));
        }
        let id = match engine.go(
            limits,
            Box::new(move |info| on_info(info)),
            Box::new(move |result| on_done(result)),
        ) {
            Ok(id) => id,
            Err(e) => return not_started(NotStarted::Failed(e)),
        };
        *ticket.search.lock().unwrap_or_else(|e| e.into_inner()) = Some(id);
        self.started(ticket);
        if ticket.stopped() {
            engine.stop_search(id);
        }
        Ok(id)
    }

    /// Nodes and time of the search `id`, while it runs. Off the runtime.
    pub fn progress(&self, id: SearchId) -> Option<(u64, Duration)> {
        self.engine()
            .progress()
            .filter(|(running, _, _)| *running == id)
            .map(|(_, nodes, time)| (nodes, time))
    }
}

/// A request's hold on its work from the moment it is accepted: dropped
/// before the work ended (the client went away, even while the work was
/// queued or starting), it stops the work.
pub struct WorkGuard {
    hub: Arc<Hub>,
    ticket: Option<Arc<Ticket>>,
}

impl WorkGuard {
    pub fn new(hub: Arc<Hub>) -> WorkGuard {
        WorkGuard { hub, ticket: None }
    }

    pub fn hub(&self) -> &Arc<Hub> {
        &self.hub
    }

    /// The work this guard now holds.
    pub fn hold(&mut self, ticket: Arc<Ticket>) {
        self.ticket = Some(ticket);
    }

    pub fn ticket(&self) -> Option<&Arc<Ticket>> {
        self.ticket.as_ref()
    }

    /// The work ended by itself: nothing to stop on drop.
    pub fn release(&mut self) {
        self.ticket = None;
    }
}

/// The client is named by the `konakis_client` cookie the page gets, or by
/// an `X-Konakis-Client` header.
impl<S: Send + Sync> axum::extract::FromRequestParts<S> for ClientId {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut axum::http::request::Parts,
        _: &S,
    ) -> Result<ClientId, Self::Rejection> {
        Ok(client_of(&parts.headers).unwrap_or_default())
    }
}

/// The cookie that names a page's client.
pub const CLIENT_COOKIE: &str = "konakis_client";

/// The client a request names, if any.
pub fn client_of(headers: &axum::http::HeaderMap) -> Option<ClientId> {
    if let Some(id) = headers
        .get("x-konakis-client")
        .and_then(|v| v.to_str().ok())
    {
        return Some(ClientId(id.trim().chars().take(64).collect()));
    }
    super::api::cookie(headers, CLIENT_COOKIE).map(|v| ClientId(v.chars().take(64).collect()))
}

impl Drop for WorkGuard {
    fn drop(&mut self) {
        let Some(ticket) = self.ticket.take() else {
            return;
        };
        ticket.stop.store(true, Ordering::SeqCst);
        if !ticket.started.load(Ordering::SeqCst) {
            // Its client left before the work started (while the older
            // work was being stopped, say): nothing will end it but this.
            // A search starting this very moment sees the stop and stops.
            self.hub.finish(&ticket);
            return;
        }
        if ticket.is_done() || ticket.search().is_none() {
            return;
        }
        let hub = self.hub.clone();
        // Off the runtime: the engine's lock may be held while a search unwinds.
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                rt.spawn_blocking(move || hub.halt(&ticket));
            }
            Err(_) => hub.halt(&ticket),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hub() -> Hub {
        let mut engine = Engine::new();
        engine.set_hash(1).unwrap();
        Hub::new(engine)
    }

    #[test]
    fn the_same_client_replaces_and_another_waits() {
        let hub = hub();
        let (a, b) = (ClientId("a".into()), ClientId("b".into()));
        let (first, old) = hub.try_claim(&a, false).unwrap();
        assert!(old.is_none());
        // Another client waits for bounded work…
        assert!(hub.try_claim(&b, false).is_none());
        assert!(!hub.stop_for(&b, None), "b cannot stop a's work");
        // …but the same client replaces it.
        let (second, old) = hub.try_claim(&a, true).unwrap();
        assert!(first.stopped());
        assert!(Arc::ptr_eq(&old.unwrap(), &first));
        // An infinite analysis is pre-empted by anyone.
        let (third, _) = hub.try_claim(&b, false).unwrap();
        assert!(second.stopped());
        assert_eq!(hub.busy(), (true, 0));
        hub.finish(&third);
        assert_eq!(hub.busy(), (false, 0));
        assert!(hub.try_claim(&a, false).is_some());
    }
}
