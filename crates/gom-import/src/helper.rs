//! A second thread kept at hand during one conversion.
//!
//! A conversion of a small file is a chain of steps of 10–50 µs each. Handing such a
//! step to a sleeping thread costs about as much as the step (waking a thread takes
//! 5–20 µs on a virtual machine), so a thread pool's usual fork-join does not pay. A
//! [`Helper`] is a thread that stays awake for the length of one conversion: it is
//! started at the beginning (where it also hashes the source), spins politely
//! (`yield`) while the calling thread loads the file, and takes part in every
//! [`Helper::map`] that follows. Handing it work then costs about a microsecond.
//!
//! [`Helper::map`] never waits for the helper to start: the calling thread runs tasks
//! itself and the helper claims the ones it gets to first (also when it arrives while
//! they run), so a helper that is late, busy elsewhere or gone only makes the work
//! serial. Results come back in task order, whoever ran them, so the output does not
//! depend on timing (D11).
//!
//! While idle, the helper runs other pending rayon work (so that it does not hold up a
//! batch of conversions), and it leaves after [`IDLE`] without anything to do.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How long the helper waits for work before it leaves.
pub(crate) const IDLE: Duration = Duration::from_millis(2);

/// A task for [`Helper::map`].
pub(crate) type Task<T> = Box<dyn FnOnce() -> T + Send>;

/// Work the helper can join: it runs tasks until none is left to claim.
trait Work: Send + Sync {
    fn run(&self);
}

/// A task's outcome: its value, or the payload of its panic.
type Outcome<T> = Result<T, Box<dyn Any + Send>>;

/// Tasks claimed in order by whichever thread gets to them first.
struct Batch<T> {
    tasks: Vec<Mutex<Option<Task<T>>>>,
    results: Vec<Mutex<Option<Outcome<T>>>>,
    next: AtomicUsize,
    finished: AtomicUsize,
}

fn lock<X>(m: &Mutex<X>) -> MutexGuard<'_, X> {
    // A panicking task is caught before it could poison a lock; take it anyway.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<T: Send> Work for Batch<T> {
    fn run(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::AcqRel);
            let Some(slot) = self.tasks.get(i) else {
                return;
            };
            if let Some(task) = lock(slot).take() {
                let outcome = catch_unwind(AssertUnwindSafe(task));
                *lock(&self.results[i]) = Some(outcome);
            }
            self.finished.fetch_add(1, Ordering::AcqRel);
        }
    }
}

/// A thread at hand for one conversion (see the module documentation).
pub(crate) struct Helper {
    inbox: Mutex<Option<Arc<dyn Work>>>,
    /// Whether the inbox may hold work (checked without the lock while waiting).
    posted: AtomicBool,
    /// The helper is in [`Helper::serve`] and looks at the inbox.
    waiting: AtomicBool,
    closed: AtomicBool,
    /// How long [`Helper::serve`] waits for work before it leaves.
    idle: Duration,
}

impl Default for Helper {
    fn default() -> Self {
        Self::new()
    }
}

impl Helper {
    /// A helper no thread serves yet, that leaves after [`IDLE`] without work.
    pub(crate) fn new() -> Helper {
        Helper::with_idle(IDLE)
    }

    /// A helper that leaves after `idle` without work.
    pub(crate) fn with_idle(idle: Duration) -> Helper {
        Helper {
            inbox: Mutex::new(None),
            posted: AtomicBool::new(false),
            waiting: AtomicBool::new(false),
            closed: AtomicBool::new(false),
            idle,
        }
    }

    /// Serves [`Helper::map`] on the calling thread until [`Helper::close`] or until
    /// [`IDLE`] has passed without work.
    pub(crate) fn serve(&self) {
        if self.closed.load(Ordering::Acquire) {
            return;
        }
        self.waiting.store(true, Ordering::Release);
        let mut idle_since = Instant::now();
        while !self.closed.load(Ordering::Acquire) {
            let work = if self.posted.swap(false, Ordering::AcqRel) {
                lock(&self.inbox).take()
            } else {
                None
            };
            if let Some(work) = work {
                work.run();
                idle_since = Instant::now();
                continue;
            }
            if idle_since.elapsed() > self.idle {
                break;
            }
            match rayon::yield_now() {
                Some(rayon::Yield::Executed) => idle_since = Instant::now(),
                _ => std::thread::yield_now(),
            }
        }
        self.waiting.store(false, Ordering::Release);
    }

    /// Whether a thread serves this helper now.
    pub(crate) fn is_serving(&self) -> bool {
        self.waiting.load(Ordering::Acquire) && !self.closed.load(Ordering::Acquire)
    }

    /// Tells the helper to leave; later [`Helper::map`] calls run serially.
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::Release);
        lock(&self.inbox).take();
    }

    /// Runs `tasks` on the calling thread and, when it is waiting, the helper; returns
    /// their results in task order. A task's panic is resumed here.
    pub(crate) fn map<T: Send + 'static>(&self, tasks: Vec<Task<T>>) -> Vec<T> {
        let n = tasks.len();
        let batch = Arc::new(Batch {
            results: (0..n).map(|_| Mutex::new(None)).collect(),
            tasks: tasks.into_iter().map(|t| Mutex::new(Some(t))).collect(),
            next: AtomicUsize::new(0),
            finished: AtomicUsize::new(0),
        });
        // Offered even when the helper has not started yet: arriving late, it still
        // takes what is left.
        let shared = n > 1 && !self.closed.load(Ordering::Acquire);
        if shared {
            *lock(&self.inbox) = Some(batch.clone() as Arc<dyn Work>);
            self.posted.store(true, Ordering::Release);
        }
        batch.run();
        if shared {
            lock(&self.inbox).take();
            // Tasks the helper claimed are running: their end is near.
            while batch.finished.load(Ordering::Acquire) < n {
                std::thread::yield_now();
            }
        }
        batch
            .results
            .iter()
            .map(|r| match lock(r).take() {
                Some(Ok(v)) => v,
                Some(Err(panic)) => resume_unwind(panic),
                None => unreachable!("every task ran once before the batch finished"),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_task_order_with_or_without_the_helper() {
        let tasks = || -> Vec<Task<u64>> {
            (0..200u64)
                .map(|i| Box::new(move || (0..=i * 1000).sum::<u64>()) as Task<u64>)
                .collect()
        };
        let want: Vec<u64> = (0..200u64)
            .map(|i| (i * 1000) * (i * 1000 + 1) / 2)
            .collect();
        // Alone.
        assert_eq!(Helper::new().map(tasks()), want);
        // With a helper serving on another thread: some tasks run there. (It waits
        // long enough for a test machine under load.)
        let helper = Helper::with_idle(Duration::from_secs(60));
        let on_helper = AtomicUsize::new(0);
        std::thread::scope(|s| {
            s.spawn(|| helper.serve());
            while !helper.waiting.load(Ordering::Acquire) {
                std::thread::yield_now();
            }
            let main = std::thread::current().id();
            let counted: Vec<Task<(u64, bool)>> = tasks()
                .into_iter()
                .map(|t| {
                    Box::new(move || {
                        std::thread::sleep(Duration::from_micros(20));
                        (t(), std::thread::current().id() != main)
                    }) as Task<(u64, bool)>
                })
                .collect();
            let got = helper.map(counted);
            on_helper.store(got.iter().filter(|g| g.1).count(), Ordering::Relaxed);
            assert_eq!(got.into_iter().map(|g| g.0).collect::<Vec<_>>(), want);
            helper.close();
        });
        assert!(
            on_helper.load(Ordering::Relaxed) > 0,
            "the helper ran nothing"
        );
        // Closed: serial again.
        assert_eq!(helper.map(tasks()), want);
    }

    #[test]
    fn a_panicking_task_panics_in_map_not_in_the_helper() {
        let helper = Helper::with_idle(Duration::from_secs(60));
        std::thread::scope(|s| {
            s.spawn(|| helper.serve());
            while !helper.waiting.load(Ordering::Acquire) {
                std::thread::yield_now();
            }
            let tasks: Vec<Task<u32>> = (0..50u32)
                .map(|i| {
                    Box::new(move || {
                        std::thread::sleep(Duration::from_micros(10));
                        assert!(i != 37, "task 37 fails");
                        i
                    }) as Task<u32>
                })
                .collect();
            let r = catch_unwind(AssertUnwindSafe(|| helper.map(tasks)));
            assert!(r.is_err());
            // The helper is still serving.
            let again: Vec<Task<u32>> = (0..4u32)
                .map(|i| Box::new(move || i) as Task<u32>)
                .collect();
            assert_eq!(helper.map(again), vec![0, 1, 2, 3]);
            helper.close();
        });
    }

    #[test]
    fn an_idle_helper_leaves() {
        let helper = Helper::with_idle(Duration::from_millis(5));
        let t = Instant::now();
        helper.serve();
        assert!(t.elapsed() >= Duration::from_millis(5));
        assert!(!helper.waiting.load(Ordering::Acquire));
    }
}
