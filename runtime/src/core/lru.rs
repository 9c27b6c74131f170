//! A small least-recently-used cache, used by the FFT plan caches of both
//! backends (rustfft plans on the CPU, cuFFT plans in each CUDA session).

use crate::core::error::Result;

/// Default capacity (CuPy's plan-cache default).
pub(crate) const DEFAULT_CAPACITY: usize = 16;

/// A small least-recently-used cache (most recent last).
pub(crate) struct Lru<K, V> {
    pub capacity: usize,
    pub entries: Vec<(K, V)>,
    pub hits: u64,
    pub misses: u64,
}

impl<K: PartialEq, V> Default for Lru<K, V> {
    fn default() -> Self {
        Lru {
            capacity: DEFAULT_CAPACITY,
            entries: Vec::new(),
            hits: 0,
            misses: 0,
        }
    }
}

impl<K: PartialEq, V> Lru<K, V> {
    /// Runs `use_it` on the value of `key`, creating it with `make` on a
    /// miss; the value is kept (most recent) when the capacity allows.
    pub fn with<R>(
        &mut self,
        key: K,
        make: impl FnOnce() -> Result<V>,
        use_it: impl FnOnce(&V) -> Result<R>,
    ) -> Result<R> {
        if let Some(i) = self.entries.iter().position(|(k, _)| *k == key) {
            self.hits += 1;
            let e = self.entries.remove(i);
            self.entries.push(e);
            return use_it(&self.entries.last().expect("just pushed").1);
        }
        self.misses += 1;
        let v = make()?;
        if self.capacity == 0 {
            return use_it(&v);
        }
        while self.entries.len() >= self.capacity {
            self.entries.remove(0);
        }
        self.entries.push((key, v));
        use_it(&self.entries.last().expect("just pushed").1)
    }

    /// Sets the capacity, dropping the least recently used plans beyond it.
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity;
        let excess = self.entries.len().saturating_sub(capacity);
        self.entries.drain(..excess);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_keeps_the_most_recent() {
        let mut l: Lru<u32, u32> = Lru {
            capacity: 2,
            ..Default::default()
        };
        for k in [1, 2, 1, 3] {
            l.with(k, || Ok(k * 10), |_| Ok(())).unwrap();
        }
        // 2 was least recently used when 3 arrived.
        let keys: Vec<u32> = l.entries.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, vec![1, 3]);
        assert_eq!((l.hits, l.misses), (1, 3));
        l.set_capacity(1);
        assert_eq!(l.entries.len(), 1);
        assert_eq!(l.entries[0].0, 3);
        l.set_capacity(0);
        let got = l.with(5, || Ok(50), |v| Ok(*v)).unwrap();
        assert_eq!(got, 50);
        assert!(l.entries.is_empty());
    }
}
