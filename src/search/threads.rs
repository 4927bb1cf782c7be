//! The search threads: a pool created when `Threads` is set and reused by
//! every search, so that `go` only wakes threads (no spawning on the clock)
//! and each thread keeps its move-ordering memory ([`ThreadData`]) from
//! one move of a game to the next, as strong engines do.
//!
//! Thread 0 runs the search's main line (it reports and decides when to
//! stop); threads 1.. are its Lazy SMP helpers, started by the main thread
//! through [`ThreadPool::run`]. Each thread sleeps on its own condition
//! variable between jobs. Dropping the pool joins every thread.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::search::history::History;

/// Stack size of a search thread: the recursion is up to `MAX_PLY` deep.
pub const STACK_SIZE: usize = 32 * 1024 * 1024;

/// What a search thread keeps between searches (cleared on `ucinewgame`).
#[derive(Default)]
pub struct ThreadData {
    pub history: History,
}

type Job = Box<dyn FnOnce(&mut ThreadData) + Send>;

#[derive(Default)]
struct SlotState {
    job: Option<Job>,
    /// A job is waiting or running.
    busy: bool,
    quit: bool,
}

/// One thread's mailbox: a job to run, and whether it is done.
#[derive(Default)]
struct Slot {
    state: Mutex<SlotState>,
    cv: Condvar,
}

impl Slot {
    /// Locks the state; a job that panicked cannot leave it half-written
    /// (it is only changed under the lock, outside jobs), so a poisoned
    /// lock is still usable.
    fn lock(&self) -> MutexGuard<'_, SlotState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait_idle(&self) {
        let mut s = self.lock();
        while s.busy {
            s = self.cv.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }
}

struct PoolThread {
    slot: Arc<Slot>,
    handle: Option<JoinHandle<()>>,
}

/// A fixed set of search threads.
pub struct ThreadPool {
    threads: Vec<PoolThread>,
}

impl ThreadPool {
    /// Starts `n` threads (at least one). If the system refuses a thread,
    /// those already started are joined and the error is returned.
    pub fn new(n: usize) -> Result<ThreadPool, String> {
        let mut pool = ThreadPool {
            threads: Vec::with_capacity(n.max(1)),
        };
        for i in 0..n.max(1) {
            let slot = Arc::new(Slot::default());
            let s = Arc::clone(&slot);
            let handle = std::thread::Builder::new()
                .name(format!("search-{i}"))
                .stack_size(STACK_SIZE)
                .spawn(move || thread_loop(&s))
                .map_err(|e| format!("cannot start search thread {i} of {n}: {e}"))?;
            pool.threads.push(PoolThread {
                slot,
                handle: Some(handle),
            });
        }
        Ok(pool)
    }

    /// Number of threads.
    pub fn len(&self) -> usize {
        self.threads.len()
    }

    /// Always false: a pool has at least one thread.
    pub fn is_empty(&self) -> bool {
        self.threads.is_empty()
    }

    /// Gives thread `index` a job, once its previous one has ended.
    pub fn run(&self, index: usize, job: impl FnOnce(&mut ThreadData) + Send + 'static) {
        let slot = &self.threads[index].slot;
        slot.wait_idle();
        let mut s = slot.lock();
        s.job = Some(Box::new(job));
        s.busy = true;
        slot.cv.notify_all();
    }

    /// Waits for thread `index` to finish its job.
    pub fn wait(&self, index: usize) {
        self.threads[index].slot.wait_idle();
    }

    /// Waits for every thread to finish its job.
    pub fn wait_all(&self) {
        for t in &self.threads {
            t.slot.wait_idle();
        }
    }

    /// Runs `job(index, len)` on every thread at once and waits for all.
    pub fn broadcast(&self, job: impl Fn(usize, usize, &mut ThreadData) + Send + Sync + 'static) {
        let job = Arc::new(job);
        let n = self.len();
        for i in 0..n {
            let job = Arc::clone(&job);
            self.run(i, move |data| job(i, n, data));
        }
        self.wait_all();
    }

    /// Forgets what every thread learnt (for `ucinewgame`).
    pub fn clear(&self) {
        self.broadcast(|_, _, data| data.history.clear());
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        for t in &self.threads {
            t.slot.lock().quit = true;
            t.slot.cv.notify_all();
        }
        for t in &mut self.threads {
            if let Some(h) = t.handle.take() {
                let _ = h.join();
            }
        }
    }
}

/// A pool thread: waits for a job, runs it, reports it done; ends on quit
/// once no job is waiting.
fn thread_loop(slot: &Slot) {
    let mut data = ThreadData::default();
    loop {
        let job = {
            let mut s = slot.lock();
            loop {
                if let Some(job) = s.job.take() {
                    break job;
                }
                if s.quit {
                    return;
                }
                s = slot.cv.wait(s).unwrap_or_else(|e| e.into_inner());
            }
        };
        // A panicking job must not leave the thread's waiters blocked; its
        // memory may be half-updated, so it starts afresh.
        if catch_unwind(AssertUnwindSafe(|| job(&mut data))).is_err() {
            data = ThreadData::default();
        }
        let mut s = slot.lock();
        s.busy = false;
        slot.cv.notify_all();
    }
}
