//! Heterogeneous agents on libtorch: generation, log-probs, HACPO updates.
