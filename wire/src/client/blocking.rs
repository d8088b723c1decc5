//! The client for synchronous callers (the trainer): each call runs [`super::Client`]'s on a
//! runtime of its own, as `reqwest::blocking` does, so the two never differ in what they send.
//! Not for use inside an async runtime (blocking on one there panics).

use std::time::Duration;

use serde_json::Value;

use super::ClientError;
use crate::retry::RetryPolicy;
use crate::{
    Agent, Capability, Group, NewAgent, NewRollout, StepMetrics, StepSubmissions, SubmitResult,
    TaskSummary, TasksStored,
};

/// A blocking client of one verifier; may be shared by threads.
#[derive(Debug)]
pub struct Client {
    inner: super::Client,
    /// One worker drives every connection; any number of threads may block on it at once.
    runtime: tokio::runtime::Runtime,
}

impl Client {
    /// As [`super::Client::new`].
    pub fn new(base: &str, token: Option<&str>, timeout: Duration) -> Result<Self, ClientError> {
        let inner = super::Client::new(base, token, timeout)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("verifier-client")
            .enable_all()
            .build()
            .map_err(ClientError::Runtime)?;
        Ok(Self { inner, runtime })
    }

    /// As [`super::Client::with_retry`].
    pub fn with_retry(self, retry: RetryPolicy) -> Self {
        Self {
            inner: self.inner.with_retry(retry),
            ..self
        }
    }

    /// As [`super::Client::register_agent`].
    pub fn register_agent(&self, agent: &NewAgent) -> Result<Agent, ClientError> {
        self.runtime.block_on(self.inner.register_agent(agent))
    }

    /// As [`super::Client::import_tasks`].
    pub fn import_tasks(&self, tasks: &[Value]) -> Result<TasksStored, ClientError> {
        self.runtime.block_on(self.inner.import_tasks(tasks))
    }

    /// As [`super::Client::tasks`].
    pub fn tasks(&self, dataset: &str) -> Result<Vec<TaskSummary>, ClientError> {
        self.runtime.block_on(self.inner.tasks(dataset))
    }

    /// As [`super::Client::submit`].
    pub fn submit(&self, rollouts: &[NewRollout]) -> Result<SubmitResult, ClientError> {
        self.runtime.block_on(self.inner.submit(rollouts))
    }

    /// As [`super::Client::groups`].
    pub fn groups(&self, run: &str, step: i64) -> Result<Vec<Group>, ClientError> {
        self.runtime.block_on(self.inner.groups(run, step))
    }

    /// As [`super::Client::submissions`].
    pub fn submissions(&self, run: &str, step: i64) -> Result<StepSubmissions, ClientError> {
        self.runtime.block_on(self.inner.submissions(run, step))
    }

    /// As [`super::Client::capability`].
    pub fn capability(
        &self,
        agent: &str,
        run: &str,
        window: u32,
    ) -> Result<Capability, ClientError> {
        self.runtime
            .block_on(self.inner.capability(agent, run, window))
    }

    /// As [`super::Client::record_metrics`].
    pub fn record_metrics(&self, metrics: &StepMetrics) -> Result<(), ClientError> {
        self.runtime.block_on(self.inner.record_metrics(metrics))
    }
}
