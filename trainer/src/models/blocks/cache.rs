//! The key/value cache of incremental decoding.

use tch::Tensor;

/// Per-layer key/value cache for incremental decoding.
#[derive(Debug, Default)]
pub struct KvCache {
    layers: Vec<Option<(Tensor, Tensor)>>,
}

impl KvCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of cached positions.
    pub fn len(&self) -> i64 {
        match self.layers.first() {
            Some(Some((k, _))) => k.size()[2],
            _ => 0,
        }
    }

    /// Whether nothing is cached yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps only the given batch rows (e.g. to drop finished sequences).
    pub fn select_rows(&mut self, rows: &Tensor) {
        for (k, v) in self.layers.iter_mut().flatten() {
            *k = k.index_select(0, rows);
            *v = v.index_select(0, rows);
        }
    }

    /// Appends `layer`'s new keys and values [B, H, T, D] and returns all of its keys and values.
    pub(in crate::models) fn append(
        &mut self,
        layer: usize,
        k: Tensor,
        v: Tensor,
    ) -> (Tensor, Tensor) {
        if self.layers.len() <= layer {
            self.layers.resize_with(layer + 1, || None);
        }
        let (k, v) = match self.layers[layer].take() {
            Some((pk, pv)) => (Tensor::cat(&[pk, k], 2), Tensor::cat(&[pv, v], 2)),
            None => (k, v),
        };
        self.layers[layer] = Some((k.shallow_clone(), v.shallow_clone()));
        (k, v)
    }
}
