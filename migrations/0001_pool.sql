-- The shared experience pool: every verified rollout of every agent, and what the trainer
-- needs to learn from it. This schema is the contract between verifier and trainer, and the
-- surface users query with psql.

-- Agents: the heterogeneous models that generate rollouts.
create table agents (
    id          uuid primary key default gen_random_uuid(),
    name        text not null unique check (length(name) between 1 and 200),
    family      text,                          -- e.g. llama, qwen3, smollm2
    size_params bigint check (size_params > 0), -- parameter count
    tokenizer   text,                          -- tokenizer identity (e.g. hub id or file hash)
    metadata    jsonb not null default '{}'::jsonb,
    created_at  timestamptz not null default now()
);

-- Tasks: prompts with hidden references. `reference` never leaves the service through the
-- rollout APIs; agents see prompts only.
create table tasks (
    id          uuid primary key default gen_random_uuid(),
    seq         bigint generated always as identity unique,
    dataset     text not null check (length(dataset) between 1 and 200),
    external_id text not null,
    kind        text not null check (kind in ('math', 'code')),
    prompt      text not null,
    reference   jsonb not null,
    metadata    jsonb not null default '{}'::jsonb,
    created_at  timestamptz not null default now(),
    unique (dataset, external_id)
);

-- Rollouts: one verified response of one agent to one task. Ids may be chosen by the client so
-- that resubmitting a batch is idempotent. `seq` gives a stable order for keyset pagination.
create table rollouts (
    id             uuid primary key,
    seq            bigint generated always as identity unique,
    run            text not null default 'default' check (length(run) between 1 and 200),
    task_id        uuid not null references tasks (id),
    agent_id       uuid not null references agents (id),
    step           bigint not null default 0 check (step >= 0),
    policy_version bigint not null default 0,
    response       text not null,
    token_count    integer check (token_count >= 0),
    logprob_mean   double precision,  -- generating policy's mean token log-prob (cross-agent ratios)
    logprob_sum    double precision,
    reward         double precision not null check (reward >= 0 and reward <= 1),
    correct        boolean not null,
    status         text not null check (status in ('scored', 'judge_error')),
    verdict        jsonb not null,    -- what was extracted, which tests passed, timing
    metadata       jsonb not null default '{}'::jsonb,
    created_at     timestamptz not null default now()
);
create index rollouts_run_step_task on rollouts (run, step, task_id);
create index rollouts_task on rollouts (task_id);
create index rollouts_agent_run_step on rollouts (agent_id, run, step);

-- Accuracy of each agent at each training step of each run (P_{j,t} in HACPO).
create view agent_step_accuracy as
select r.run,
       r.agent_id,
       a.name                      as agent,
       r.step,
       count(*)                    as rollouts,
       avg(r.reward)               as accuracy,
       count(*) filter (where r.correct) as correct
from rollouts r
join agents a on a.id = r.agent_id
where r.status = 'scored'
group by r.run, r.agent_id, a.name, r.step;

-- Capability: accuracy smoothed over the last `window_k` steps including the current one
-- (P̂_{j,t} in HACPO). Usage: select * from agent_capability(5) where run = 'default';
create function agent_capability(window_k integer default 5)
returns table (run text, agent_id uuid, agent text, step bigint, rollouts bigint,
               accuracy double precision, capability double precision)
language sql stable as $$
    select s.run, s.agent_id, s.agent, s.step, s.rollouts, s.accuracy,
           avg(s.accuracy) over (partition by s.run, s.agent_id order by s.step
                                 rows between greatest(window_k, 1) - 1 preceding and current row)
    from agent_step_accuracy s
$$;

-- Per-agent training metrics written by the trainer, one row per (run, agent, step).
create table train_metrics (
    run           text not null,
    agent_id      uuid not null references agents (id),
    step          bigint not null check (step >= 0),
    loss          double precision,
    reward_mean   double precision,
    accuracy      double precision,
    clip_fraction double precision,
    kl            double precision,
    grad_norm     double precision,
    extra         jsonb not null default '{}'::jsonb,  -- anything else (capability, ω, timings)
    created_at    timestamptz not null default now(),
    primary key (run, agent_id, step)
);
