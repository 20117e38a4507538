//! CPU-time measurement for benchmarks on a shared machine (`GOM_BENCH_CPU_TIME=1`).

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{BenchmarkGroup, Criterion, SamplingMode, Throughput};

/// Whether `GOM_BENCH_CPU_TIME` selects CPU time.
pub fn cpu_time_selected() -> bool {
    std::env::var_os("GOM_BENCH_CPU_TIME").is_some()
}

/// A benchmark group; with CPU time, every sample runs the same (large) number of
/// iterations (criterion's flat sampling), which keeps the estimate a plain mean.
pub fn group<'a, M: Measurement>(c: &'a mut Criterion<M>, name: &str) -> BenchmarkGroup<'a, M> {
    let mut g = c.benchmark_group(name);
    if cpu_time_selected() {
        g.sampling_mode(SamplingMode::Flat);
    }
    g
}

/// CPU time of the benchmark thread (Linux: `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`,
/// exact to the nanosecond; the counters under `/proc` advance only at scheduler
/// ticks, which makes short samples read zero), for a machine shared with other work,
/// where wall-clock time also counts the time the thread waited for a core. Select it
/// with `GOM_BENCH_CPU_TIME=1`.
pub struct ThreadCpuTime;

pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable `timespec` for the call's duration, and
    // `CLOCK_THREAD_CPUTIME_ID` is a clock every Linux kernel provides.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if r != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Measurement for ThreadCpuTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns().saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuNanos
    }
}

/// Formats CPU nanoseconds like wall time, and throughputs per CPU second.
pub struct CpuNanos;

impl ValueFormatter for CpuNanos {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = if typical < 1e3 {
            (1.0, "ns (cpu)")
        } else if typical < 1e6 {
            (1e-3, "µs (cpu)")
        } else if typical < 1e9 {
            (1e-6, "ms (cpu)")
        } else {
            (1e-9, "s (cpu)")
        };
        for v in values {
            *v *= factor;
        }
        unit
    }
    fn scale_throughputs(&self, _typical: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let n = match t {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) | Throughput::Elements(n) => *n,
        } as f64;
        for v in values {
            *v = n * 1e9 / *v / 1e6;
        }
        "Melem/s (cpu)"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}
