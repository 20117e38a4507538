//! `--shard K/N`: which sources of a build one of N machines converts.
//!
//! The assignment is *rendezvous hashing with bounded loads*: every source ranks the N
//! shards by a hash of its relative path and the shard number, and goes to the
//! first-ranked shard that still has room, room being a little more than an even share
//! of the tree's bytes. Sources are placed largest first (ties by path), which keeps
//! the shards' byte totals close. Because a source's ranking depends on its own path
//! only, adding or removing an unrelated file leaves nearly every assignment where it
//! was (only sources whose first choice was full can move), unlike cutting the sorted
//! list into N runs, where one new file shifts every boundary after it. The cost is
//! linear in the number of sources times N, after a sort.

/// One shard of a build: number `index` (from 1) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard's number, 1 to `count`.
    pub index: usize,
    /// The number of shards.
    pub count: usize,
}

/// Why a `--shard` value was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--shard {value}: {reason} (expected K/N with 1 <= K <= N, such as 2/8)")]
pub struct ShardError {
    /// The value given.
    pub value: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl std::str::FromStr for Shard {
    type Err = ShardError;

    fn from_str(value: &str) -> Result<Shard, ShardError> {
        let err = |reason| ShardError {
            value: value.to_string(),
            reason,
        };
        let (k, n) = value.split_once('/').ok_or_else(|| err("no '/'"))?;
        let index: usize = k.trim().parse().map_err(|_| err("K is not a number"))?;
        let count: usize = n.trim().parse().map_err(|_| err("N is not a number"))?;
        if count == 0 {
            return Err(err("N is 0"));
        }
        if index == 0 || index > count {
            return Err(err("K is outside 1..=N"));
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// How much more than an even share of the bytes a shard may take before sources
/// that rank it first go to their next choice: 1/8 more.
const SLACK: f64 = 0.125;

/// A per-file cost added to each source's size, so that a tree of empty or tiny files
/// is still spread by count.
const FILE_COST: u64 = 4096;

/// The shard (counted from 0) of each source, given as (relative path, size in bytes),
/// over `count` shards. Deterministic: the same sources give the same assignment on
/// any machine, in any order they are listed.
pub fn assign(sources: &[(&str, u64)], count: usize) -> Vec<usize> {
    let count = count.max(1);
    let mut order: Vec<usize> = (0..sources.len()).collect();
    order.sort_by(|&a, &b| {
        let (pa, sa) = sources[a];
        let (pb, sb) = sources[b];
        sb.cmp(&sa).then_with(|| pa.cmp(pb))
    });
    let weight = |i: usize| sources[i].1.saturating_add(FILE_COST);
    let total: f64 = sources
        .iter()
        .map(|s| s.1.saturating_add(FILE_COST) as f64)
        .sum();
    let room = total / count as f64 * (1.0 + SLACK);
    let mut load = vec![0u64; count];
    let mut out = vec![0usize; sources.len()];
    let mut ranking: Vec<(u64, usize)> = Vec::with_capacity(count);
    for i in order {
        let path = sources[i].0;
        ranking.clear();
        ranking.extend((0..count).map(|s| (score(path, s), s)));
        // Highest score first; shard number breaks the (unlikely) ties.
        ranking.sort_by(|a, b| b.cmp(a));
        let w = weight(i);
        let fits = ranking
            .iter()
            .map(|&(_, s)| s)
            .find(|&s| (load[s].saturating_add(w)) as f64 <= room);
        // When no shard has room (a file larger than the slack), the least loaded.
        let shard = fits.unwrap_or_else(|| {
            ranking
                .iter()
                .map(|&(_, s)| s)
                .min_by_key(|&s| load[s])
                .unwrap_or(0)
        });
        load[shard] = load[shard].saturating_add(w);
        out[i] = shard;
    }
    out
}

/// The rendezvous score of `path` on shard `shard`: FNV-1a over the path's bytes and
/// the shard number, then the SplitMix64 finaliser to spread the bits. Hand-written
/// because the standard library's hashers are not guaranteed to give the same values
/// across versions or machines, and every machine of a build must agree.
fn score(path: &str, shard: usize) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in path.bytes().chain((shard as u64).to_le_bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 1000 sources with sizes spread over three orders of magnitude, from a seeded
    /// generator.
    fn tree(n: usize) -> Vec<(String, u64)> {
        let mut rng = gom_test_support::rng::Rng::new(12345);
        (0..n)
            .map(|i| {
                (
                    format!("set{}/model{i:05}.fbx", i % 17),
                    1000 + rng.below(200_000),
                )
            })
            .collect()
    }

    fn borrowed(t: &[(String, u64)]) -> Vec<(&str, u64)> {
        t.iter().map(|(p, s)| (p.as_str(), *s)).collect()
    }

    #[test]
    fn shard_values_are_parsed_and_checked() {
        assert_eq!("2/8".parse(), Ok(Shard { index: 2, count: 8 }));
        assert_eq!("1/1".parse::<Shard>().unwrap().to_string(), "1/1");
        for bad in ["0/4", "5/4", "1/0", "x/4", "3", "1/y"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn shards_are_balanced_by_bytes() {
        let t = tree(1000);
        let shards = assign(&borrowed(&t), 4);
        let mut load = [0u64; 4];
        for (i, s) in shards.iter().enumerate() {
            load[*s] += t[i].1 + FILE_COST;
        }
        let total: u64 = load.iter().sum();
        let even = total as f64 / 4.0;
        for l in load {
            assert!(l as f64 <= even * (1.0 + SLACK), "{load:?}");
            // Nothing is left nearly empty either: the others cannot hold it all.
            assert!(l as f64 >= even * (1.0 - 3.0 * SLACK), "{load:?}");
        }
    }

    #[test]
    fn the_order_sources_are_listed_in_does_not_matter() {
        let t = tree(300);
        let a = assign(&borrowed(&t), 3);
        let mut rev = t.clone();
        rev.reverse();
        let mut b = assign(&borrowed(&rev), 3);
        b.reverse();
        assert_eq!(a, b);
    }

    #[test]
    fn adding_an_unrelated_file_moves_few_assignments() {
        let t = tree(1000);
        let before = assign(&borrowed(&t), 4);
        let mut grown = t.clone();
        grown.push(("new/extra.gltf".to_string(), 50_000));
        let after = assign(&borrowed(&grown), 4);
        let moved = (0..t.len()).filter(|&i| before[i] != after[i]).count();
        // Cutting the sorted list into 4 runs would move about a quarter of them.
        assert!(moved <= 10, "{moved} of 1000 moved");
    }

    #[test]
    fn one_shard_takes_everything() {
        let t = tree(10);
        assert_eq!(assign(&borrowed(&t), 1), vec![0; 10]);
        assert!(assign(&[], 4).is_empty());
    }
}
