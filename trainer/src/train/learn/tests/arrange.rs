//! The mini-batch order (`arrange`) and the KL penalty's scope (`own_mask`, `kl_penalty`),
//! with hand-computed expectations.

use tch::{Device, Tensor};

use super::super::*;
use crate::hacpo::{HacpoConfig, KlScope, MinibatchOrder, SequenceSample};

/// A trajectory of `source` for learner 0, tagged by its position in group order.
fn trajectory(position: i64, source: usize) -> Trajectory {
    Trajectory {
        prompt: vec![1],
        response: vec![position],
        bytes: 1,
        source,
        offset: 1.0,
        sample: SequenceSample {
            cross: source != 0,
            advantage: 0.0,
            old_logprob: 0.0,
            omega: 1.0,
            behaviour_weight: 1.0,
        },
        used: RolloutUse {
            id: uuid::Uuid::nil(),
            staleness: 0,
        },
    }
}

/// Positions (group order) of each mini-batch's sequences.
fn positions(minibatches: &[Vec<Trajectory>]) -> Vec<Vec<i64>> {
    minibatches
        .iter()
        .map(|mb| mb.iter().map(|t| t.response[0]).collect())
        .collect()
}

#[test]
fn the_authors_order_puts_own_samples_first_unshuffled_and_splits_it_like_their_ranks() {
    // Two groups in group order, own and cross interleaved: own 0, 1, 4, 5; cross 2, 3, 6, 7.
    let sources = [0, 0, 1, 1, 0, 0, 1, 1];
    let items =
        || -> Vec<Trajectory> { (0..8).map(|i| trajectory(i, sources[i as usize])).collect() };
    // On one rank (their code on one GPU): own first, each part in group order, so with four
    // mini-batches the cross samples fill m = 2 and 3 and meet only the bounds 0.85 and 0.875.
    let mut cfg = HacpoConfig {
        data_parallel_ranks: 1,
        ..HacpoConfig::default()
    };
    let one = arrange(items(), &cfg, 4, 7);
    assert_eq!(
        positions(&one),
        [vec![0, 1], vec![4, 5], vec![2, 3], vec![6, 7]]
    );
    let cross_bounds: Vec<f64> = (0..4)
        .filter(|&m| one[m].iter().any(|t| t.sample.cross))
        .map(|m| cfg.cross_lower_bound(m))
        .collect();
    assert_eq!(cross_bounds.len(), 2);
    assert!((cross_bounds[0] - 0.85).abs() < 1e-12 && (cross_bounds[1] - 0.875).abs() < 1e-12);
    // On two ranks, as verl splits the list contiguously (own | cross), every mini-batch gathers
    // one slice of each part: one own and one cross sequence, so cross meets every bound.
    cfg.data_parallel_ranks = 2;
    let two = arrange(items(), &cfg, 4, 7);
    assert_eq!(
        positions(&two),
        [vec![0, 2], vec![1, 3], vec![4, 6], vec![5, 7]]
    );
    // The authors' 8 ranks on 8 sequences and 4 mini-batches: no more ranks than leave each a
    // sequence per mini-batch, so 2 again.
    cfg.data_parallel_ranks = 8;
    assert_eq!(positions(&arrange(items(), &cfg, 4, 7)), positions(&two));
    // The switches keep the older orders: own first but shuffled, and one shuffle of all.
    cfg.minibatch_order = MinibatchOrder::OwnFirstShuffled;
    let shuffled = arrange(items(), &cfg, 4, 7);
    assert!(shuffled[..2].iter().flatten().all(|t| !t.sample.cross));
    cfg.minibatch_order = MinibatchOrder::Shuffled;
    let mixed = positions(&arrange(items(), &cfg, 4, 7));
    assert_eq!(mixed.iter().map(Vec::len).collect::<Vec<_>>(), [2, 2, 2, 2]);
    assert_ne!(mixed.concat(), (0..8).collect::<Vec<i64>>());
}

#[test]
fn the_kl_penalty_over_own_samples_gives_a_cross_sample_exactly_zero_gradient() {
    let per_seq = Tensor::from_slice(&[0.5f32, 2.0, 0.25]).set_requires_grad(true);
    let samples: Vec<SequenceSample> = [false, true, false]
        .iter()
        .map(|&cross| SequenceSample {
            cross,
            advantage: 0.0,
            old_logprob: 0.0,
            omega: 1.0,
            behaviour_weight: 1.0,
        })
        .collect();
    let own = own_mask(&samples, Device::Cpu);
    let kl = kl_penalty(&per_seq, &own, KlScope::Own);
    assert_eq!(kl.double_value(&[]), 0.75);
    kl.backward();
    assert_eq!(
        Vec::<f32>::try_from(per_seq.grad()).unwrap(),
        [1.0, 0.0, 1.0]
    );
    let all = per_seq.detach().set_requires_grad(true);
    let kl = kl_penalty(&all, &own, KlScope::All);
    assert_eq!(kl.double_value(&[]), 2.75);
    kl.backward();
    assert_eq!(Vec::<f32>::try_from(all.grad()).unwrap(), [1.0, 1.0, 1.0]);
}
