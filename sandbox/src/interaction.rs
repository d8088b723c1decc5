//! Interactive runs ([`Sandbox::run_interactive`]): an interactor and a program side by side,
//! each one's standard output piped into the other's standard input ([`crate::pipes`]), each
//! under its own limits.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::admission::AbortOnDrop;
use crate::outcome::{Outcome, Status};
use crate::pipes::{Gate, PIPE_BYTES, Watch, Wiring};
use crate::program::{Program, RunError};
use crate::runner::{Sandbox, joined};

/// One side of an interaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Party {
    /// The task's interactor.
    Interactor,
    /// The program under judgement.
    Program,
}

/// How one side's run ended.
#[derive(Debug, Clone)]
pub struct SideRun {
    /// Its outcome (its stdout is empty: the other side read it).
    pub outcome: Outcome,
    /// Its time ran out while it was blocked in a host call rather than computing: waiting for
    /// the other side's output or for room in its own pipe (or asleep).
    pub waited: bool,
}

/// What an interaction produced.
#[derive(Debug, Clone)]
pub struct Interaction {
    /// The interactor's run; `None` when it never started: the program ended (it did not
    /// compile) before both were ready.
    pub interactor: Option<SideRun>,
    /// The program's run; `None` when it was stopped unfinished: the interactor ended before
    /// both were ready, or ended first with a status other than 0 (which decides the case
    /// whatever the program does next).
    pub program: Option<SideRun>,
    /// The side whose run ended first.
    pub first: Party,
}
/// A side's run as the caller sees it: started, its task, its wall-time limit and its watch.
struct Running {
    task: AbortOnDrop<Result<Outcome, RunError>>,
    wall_time: Duration,
    watch: Arc<Watch>,
    /// Its outcome and when it ended, once its task has finished.
    done: Option<(Outcome, Instant)>,
}

impl Running {
    /// Waits for the side's run to end.
    async fn finish(&mut self) -> Result<(), RunError> {
        if self.done.is_none() {
            let outcome = joined((&mut self.task.0).await)?;
            let ended = self.watch.ended().unwrap_or_else(Instant::now);
            self.done = Some((outcome, ended));
        }
        Ok(())
    }

    /// When it ended, if it has.
    fn ended(&self) -> Option<Instant> {
        self.done.as_ref().map(|(_, at)| *at)
    }

    /// What it did; `None` when it never ended (it is stopped then). `other_ended`: when the
    /// other side ended, if first: a wall-clock deadline that had passed by then, yet ended
    /// this one only later, passed while it was blocked (waiting, then woken by the other's end).
    fn into_run(self, opened: Option<Instant>, other_ended: Option<Instant>) -> Option<SideRun> {
        let (outcome, _) = self.done?;
        let overdue = match (opened, other_ended) {
            (Some(opened), Some(other)) => opened + self.wall_time <= other,
            _ => false,
        };
        let waited = self.watch.waited() || (outcome.status == Status::Timeout && overdue);
        Some(SideRun { outcome, waited })
    }
}

impl Sandbox {
    /// Runs `interactor` and `program` side by side, the program's stdout piped into the
    /// interactor's stdin and the interactor's stdout into the program's stdin (their own
    /// `stdin` is ignored), each under its own limits, until the interactor has ended and the
    /// program has ended or been stopped (see [`Interaction::program`]). What a side writes
    /// once the other has ended is dropped.
    ///
    /// Errors when either is refused up front, or (with `max_wait`) when both cannot be
    /// admitted in time: [`RunError::Busy`] then, as [`Sandbox::run_within`] answers.
    pub async fn run_interactive(
        &self,
        interactor: Program,
        program: Program,
        max_wait: Option<Duration>,
    ) -> Result<Interaction, RunError> {
        let interactor_limits = self.checked(&interactor)?;
        let program_limits = self.checked(&program)?;
        let deadline = max_wait.map(|w| Instant::now() + w);
        let _pair = self.admission().pair_slot(deadline).await?;
        let gate = Arc::new(Gate::default());
        let (to_program, program_in) = tokio::io::duplex(PIPE_BYTES);
        let (program_out, from_program) = tokio::io::duplex(PIPE_BYTES);
        let (interactor_ends, interactor_watch) = Wiring::new(from_program, to_program, &gate);
        let (program_ends, program_watch) = Wiring::new(program_in, program_out, &gate);
        let mut sides = [
            Running {
                wall_time: interactor_limits.wall_time,
                task: self.start(
                    interactor,
                    interactor_limits,
                    deadline,
                    Some(interactor_ends),
                )?,
                watch: interactor_watch,
                done: None,
            },
            Running {
                wall_time: program_limits.wall_time,
                task: self.start(program, program_limits, deadline, Some(program_ends))?,
                watch: program_watch,
                done: None,
            },
        ];
        let first = first_to_end(&mut sides, &gate).await?;
        let [interactor, program] = sides;
        let opened = gate.opened();
        let (interactor_ended, program_ended) = (interactor.ended(), program.ended());
        Ok(Interaction {
            interactor: interactor
                .into_run(opened, program_ended.filter(|_| first == Party::Program)),
            program: program.into_run(
                opened,
                interactor_ended.filter(|_| first == Party::Interactor),
            ),
            first,
        })
    }
}

/// Waits for a side to end, then for the other as far as it is needed: the program once
/// the interactor exited with status 0, the interactor once the program ended. A side
/// that need not end, or never started because the other ended first, is stopped (its
/// task dropped).
async fn first_to_end(sides: &mut [Running; 2], gate: &Gate) -> Result<Party, RunError> {
    let [interactor, program] = sides;
    tokio::select! {
        done = &mut interactor.task.0 => {
            let ended = interactor.watch.ended().unwrap_or_else(Instant::now);
            interactor.done = Some((joined(done)?, ended));
        }
        done = &mut program.task.0 => {
            let ended = program.watch.ended().unwrap_or_else(Instant::now);
            program.done = Some((joined(done)?, ended));
        }
    }
    // The other may have ended as well before this task looked: the earlier end is first.
    for side in [&mut *interactor, &mut *program] {
        if side.done.is_none() && side.task.0.is_finished() {
            side.finish().await?;
        }
    }
    let first = match (interactor.ended(), program.ended()) {
        (Some(i), Some(p)) if p < i => Party::Program,
        (Some(_), _) => Party::Interactor,
        _ => Party::Program,
    };
    let accepted = matches!(&interactor.done, Some((o, _)) if o.status == Status::Ok);
    if gate.open() && (first == Party::Program || accepted) {
        interactor.finish().await?;
        program.finish().await?;
    }
    Ok(first)
}
