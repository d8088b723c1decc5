//! AdamW with its state on disk: a checkpoint holds the moments and step count next to the
//! weights, so a resumed run continues the same optimisation instead of restarting it (tch's
//! `nn::AdamW` keeps its state inside libtorch, out of reach).
//!
//! The update is PyTorch's `torch.optim.AdamW` (decoupled weight decay, bias-corrected moments).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, ensure};
use tch::nn::VarStore;
use tch::{Kind, Tensor};

use crate::checkpoint::write_safetensors;

/// File name of the optimizer state inside a checkpoint directory.
pub const STATE_FILE: &str = "optimizer.safetensors";

/// Largest gradient norm; larger gradients are scaled down (HACPO §4).
pub const MAX_GRAD_NORM: f64 = 1.0;

/// AdamW over the trainable variables of one `VarStore`.
pub struct AdamW {
    /// Trainable variables by name, sorted (the names key the saved state).
    params: Vec<(String, Tensor)>,
    /// First moments, one per parameter.
    exp_avg: Vec<Tensor>,
    /// Second moments, one per parameter.
    exp_avg_sq: Vec<Tensor>,
    /// Updates taken so far (bias correction depends on it).
    steps: i64,
    lr: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    weight_decay: f64,
}

impl AdamW {
    /// AdamW with PyTorch's default betas (0.9, 0.999) and eps (1e-8).
    pub fn new(vs: &VarStore, lr: f64, weight_decay: f64) -> AdamW {
        let mut params: Vec<(String, Tensor)> = vs
            .variables()
            .into_iter()
            .filter(|(_, t)| t.requires_grad())
            .collect();
        params.sort_by(|a, b| a.0.cmp(&b.0));
        let zeros = |p: &(String, Tensor)| tch::no_grad(|| p.1.zeros_like());
        AdamW {
            exp_avg: params.iter().map(zeros).collect(),
            exp_avg_sq: params.iter().map(zeros).collect(),
            params,
            steps: 0,
            lr,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay,
        }
    }

    /// Updates taken so far.
    pub fn steps(&self) -> i64 {
        self.steps
    }

    /// Zeroes every parameter's gradient.
    pub fn zero_grad(&self) {
        for (_, p) in &self.params {
            let mut g = p.grad();
            if g.defined() {
                let _ = g.zero_();
            }
        }
    }

    /// One AdamW update from the current gradients; parameters without a gradient are left alone.
    pub fn step(&mut self) {
        self.steps += 1;
        let bias1 = 1.0 - self.beta1.powi(self.steps as i32);
        let bias2_sqrt = (1.0 - self.beta2.powi(self.steps as i32)).sqrt();
        let step_size = self.lr / bias1;
        tch::no_grad(|| {
            for (((_, p), m), v) in self
                .params
                .iter()
                .zip(&mut self.exp_avg)
                .zip(&mut self.exp_avg_sq)
            {
                let g = p.grad();
                if !g.defined() {
                    continue;
                }
                // In place except two temporaries per tensor: the update is memory-bound.
                let mut p = p.shallow_clone();
                let _ = p.g_mul_scalar_(1.0 - self.lr * self.weight_decay);
                let _ = m.lerp_(&g, 1.0 - self.beta1);
                let _ = v.lerp_(&g.square(), 1.0 - self.beta2);
                // p −= step_size · m / (√v / √bc₂ + ε), with the −1/step_size folded into the
                // denominator (tch's addcdiv_ has no scale argument).
                let mut denom = v.sqrt();
                let _ = denom.g_div_scalar_(bias2_sqrt);
                let _ = denom.g_add_scalar_(self.eps);
                let _ = denom.g_mul_scalar_(-1.0 / step_size);
                let _ = p.addcdiv_(m, &denom);
            }
        });
    }

    /// Writes the moments and the step count to `dir/optimizer.safetensors`.
    pub fn save(&self, dir: &Path) -> Result<()> {
        let mut tensors = BTreeMap::new();
        for (((name, _), m), v) in self.params.iter().zip(&self.exp_avg).zip(&self.exp_avg_sq) {
            tensors.insert(format!("exp_avg.{name}"), m.shallow_clone());
            tensors.insert(format!("exp_avg_sq.{name}"), v.shallow_clone());
        }
        tensors.insert("steps".into(), Tensor::from(self.steps));
        write_safetensors(&dir.join(STATE_FILE), &tensors)
    }

    /// Restores the state [`AdamW::save`] wrote for the same model.
    pub fn load(&mut self, dir: &Path) -> Result<()> {
        let path = dir.join(STATE_FILE);
        let mut saved: BTreeMap<String, Tensor> = Tensor::read_safetensors(&path)
            .with_context(|| format!("cannot read {}", path.display()))?
            .into_iter()
            .collect();
        let mut take = |key: String, like: &Tensor| -> Result<Tensor> {
            let t = saved
                .remove(&key)
                .with_context(|| format!("{}: no `{key}`", path.display()))?;
            ensure!(
                t.size() == like.size(),
                "{}: `{key}` has shape {:?}, the model {:?}",
                path.display(),
                t.size(),
                like.size()
            );
            Ok(t.to_device(like.device()).to_kind(like.kind()))
        };
        let mut exp_avg = Vec::with_capacity(self.params.len());
        let mut exp_avg_sq = Vec::with_capacity(self.params.len());
        for (name, p) in &self.params {
            exp_avg.push(take(format!("exp_avg.{name}"), p)?);
            exp_avg_sq.push(take(format!("exp_avg_sq.{name}"), p)?);
        }
        let steps = saved
            .remove("steps")
            .with_context(|| format!("{}: no `steps`", path.display()))?
            .to_kind(Kind::Int64)
            .int64_value(&[]);
        ensure!(
            saved.is_empty(),
            "{}: state for parameters the model does not have: {}",
            path.display(),
            saved.keys().cloned().collect::<Vec<_>>().join(", ")
        );
        self.exp_avg = exp_avg;
        self.exp_avg_sq = exp_avg_sq;
        self.steps = steps;
        Ok(())
    }
}

/// Scales the gradients of `vs`'s trainable variables so that their global L2 norm is at most
/// `max` (`torch.nn.utils.clip_grad_norm_`); returns the norm before scaling.
pub fn clip_grad_norm(vs: &VarStore, max: f64) -> f64 {
    let grads: Vec<Tensor> = vs
        .trainable_variables()
        .iter()
        .map(Tensor::grad)
        .filter(Tensor::defined)
        .collect();
    if grads.is_empty() {
        return 0.0;
    }
    // One device-to-host read for the whole norm.
    let norms: Vec<Tensor> = grads
        .iter()
        .map(|g| g.norm().to_kind(Kind::Double))
        .collect();
    let norm = Tensor::stack(&norms, 0)
        .square()
        .sum(Kind::Double)
        .sqrt()
        .double_value(&[]);
    if norm > max {
        tch::no_grad(|| {
            for g in &grads {
                let _ = g.shallow_clone().g_mul_scalar_(max / (norm + 1e-6));
            }
        });
    }
    norm
}

#[cfg(test)]
pub(crate) mod tests {
    use tch::nn::{self, OptimizerConfig};
    use tch::{Device, Kind, Tensor};

    use super::*;

    /// A two-parameter model (deterministic from `seed`, without the global RNG that parallel
    /// tests share) and a loss whose gradient changes with the parameters.
    fn model(seed: i64) -> (VarStore, Tensor, Tensor) {
        let init =
            |n: i64| (Tensor::arange(n, (Kind::Float, Device::Cpu)) * (0.7 + seed as f64)).sin();
        let vs = VarStore::new(Device::Cpu);
        let root = vs.root();
        let w = root.var_copy("w", &init(12).view([4, 3]));
        let b = root.var_copy("b", &(init(3) * 0.5));
        (vs, w, b)
    }

    fn loss(w: &Tensor, b: &Tensor, t: i64) -> Tensor {
        let x = Tensor::arange(12, (Kind::Float, Device::Cpu)).view([3, 4]) / 10.0 + t as f64;
        (x.matmul(w) + b)
            .tanh()
            .pow_tensor_scalar(2)
            .sum(Kind::Float)
    }

    /// Every variable of `vs`, flattened in name order (for comparing models).
    pub(crate) fn flat_weights(vs: &VarStore) -> Vec<f32> {
        let mut v: Vec<_> = vs.variables().into_iter().collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v.iter()
            .flat_map(|(_, t)| Vec::<f32>::try_from(t.flatten(0, -1)).unwrap())
            .collect()
    }

    /// Takes one AdamW step on `loss` at each t in `ts`.
    fn train(opt: &mut AdamW, w: &Tensor, b: &Tensor, ts: std::ops::Range<i64>) {
        for t in ts {
            opt.zero_grad();
            loss(w, b, t).backward();
            opt.step();
        }
    }

    /// Global L2 norm of the gradients of `vars`, in f64.
    fn grad_norm(vars: &[&Tensor]) -> f64 {
        vars.iter()
            .map(|t| t.grad().square().sum(Kind::Double).double_value(&[]))
            .sum::<f64>()
            .sqrt()
    }

    #[test]
    fn matches_libtorch_adamw() {
        let (vs_ours, w1, b1) = model(0);
        let (vs_ref, w2, b2) = model(0);
        let mut ours = AdamW::new(&vs_ours, 0.05, 0.1);
        let mut reference = nn::AdamW {
            wd: 0.1,
            ..Default::default()
        }
        .build(&vs_ref, 0.05)
        .unwrap();
        for t in 0..5 {
            ours.zero_grad();
            loss(&w1, &b1, t).backward();
            ours.step();
            reference.zero_grad();
            loss(&w2, &b2, t).backward();
            reference.step();
        }
        for (a, b) in flat_weights(&vs_ours).iter().zip(flat_weights(&vs_ref)) {
            assert!((a - b).abs() < 1e-6, "{a} vs {b}");
        }
        assert_eq!(ours.steps(), 5);
    }

    #[test]
    fn a_restored_optimizer_continues_exactly() {
        let dir = tempfile::tempdir().unwrap();
        // Uninterrupted: three steps.
        let (vs_a, wa, ba) = model(1);
        let mut a = AdamW::new(&vs_a, 0.05, 0.01);
        train(&mut a, &wa, &ba, 0..3);
        // Two steps, saved; a fresh model and optimizer load both and take the third.
        let (vs_b, wb, bb) = model(1);
        let mut b = AdamW::new(&vs_b, 0.05, 0.01);
        train(&mut b, &wb, &bb, 0..2);
        crate::checkpoint::save_weights(&vs_b, dir.path()).unwrap();
        b.save(dir.path()).unwrap();
        let (vs_c, wc, bc) = model(7);
        crate::checkpoint::load_weights(&vs_c, dir.path()).unwrap();
        let mut c = AdamW::new(&vs_c, 0.05, 0.01);
        c.load(dir.path()).unwrap();
        assert_eq!(c.steps(), 2);
        train(&mut c, &wc, &bc, 2..3);
        assert_eq!(
            flat_weights(&vs_a),
            flat_weights(&vs_c),
            "bit-identical after resuming"
        );

        // Restarting the moments instead (what a resume without optimizer state does) differs.
        let (vs_d, wd, bd) = model(7);
        crate::checkpoint::load_weights(&vs_d, dir.path()).unwrap();
        let mut d = AdamW::new(&vs_d, 0.05, 0.01);
        train(&mut d, &wd, &bd, 2..3);
        assert_ne!(flat_weights(&vs_a), flat_weights(&vs_d));
    }

    #[test]
    fn gradients_are_clipped_to_the_global_norm() {
        let (vs, w, b) = model(3);
        loss(&w, &b, 0).backward();
        let before = grad_norm(&[&w, &b]);
        assert!(before > 0.5, "{before}");
        let returned = clip_grad_norm(&vs, 0.5);
        assert!((returned - before).abs() < 1e-6 * before);
        let after = grad_norm(&[&w, &b]);
        assert!((after - 0.5).abs() < 1e-5, "{after}");
        // Under the bound nothing changes.
        assert!((clip_grad_norm(&vs, 10.0) - after).abs() < 1e-6);
    }

    #[test]
    fn state_for_another_model_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (vs, _, _) = model(0);
        AdamW::new(&vs, 0.1, 0.0).save(dir.path()).unwrap();
        let other = VarStore::new(Device::Cpu);
        let _ = other.root().zeros("w", &[5, 3]);
        let _ = other.root().zeros("b", &[3]);
        let err = AdamW::new(&other, 0.1, 0.0)
            .load(dir.path())
            .unwrap_err()
            .to_string();
        assert!(err.contains("exp_avg.w") && err.contains("shape"), "{err}");
    }
}
