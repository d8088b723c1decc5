-- Asynchronous training (issue 55): which pooled rollouts each update trained on, and how
-- stale they were. The trainer writes them into its train_metrics row (extra.uses: one
-- {"id", "staleness"} per rollout, staleness in the learner's updates since the weights that
-- generated it), in the same request as the step's metrics; these views read them as rows.
--   select * from agent_staleness where run = 'demo' order by agent, step;

-- One row per (update, rollout used): the learner, the rollout's author, its step and version.
-- `extra` is any client's JSON: entries that are not {"id": uuid, "staleness": 0…1e15} are
-- left out rather than allowed to make the view fail.
create view rollout_uses as
with used as (
    select m.run, m.agent_id, m.step,
           case when e.u ->> 'id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
                then (e.u ->> 'id')::uuid end                            as rollout_id,
           case when jsonb_typeof(e.u -> 'staleness') = 'number'
                 and (e.u -> 'staleness')::numeric between 0 and 1e15
                then (e.u -> 'staleness')::numeric::bigint end           as staleness
    from train_metrics m
    cross join lateral jsonb_array_elements(
        case when jsonb_typeof(m.extra -> 'uses') = 'array' then m.extra -> 'uses' else '[]' end
    ) as e (u)
    where jsonb_typeof(e.u) = 'object'
)
select u.run,
       u.agent_id                      as learner_id,
       l.name                          as learner,
       u.step,
       u.rollout_id,
       a.name                          as author,
       r.step                          as rollout_step,
       r.policy_version,
       u.staleness,
       r.agent_id <> u.agent_id        as cross_sample
from used u
join agents l on l.id = u.agent_id
join rollouts r on r.id = u.rollout_id
join agents a on a.id = r.agent_id
where u.staleness is not null;

-- Per agent and step: what it trained on, how stale, and how long it sat idle waiting for
-- the other agents (extra.wait_seconds: the barrier of a synchronous run; 0 when asynchronous),
-- beside the step's wall time (generation with waiting, update, engine sync).
create view agent_staleness as
with seconds as (
    select m.run, m.agent_id, m.step,
           (select sum(case when jsonb_typeof(m.extra -> k) = 'number'
                             and abs((m.extra -> k)::numeric) < 1e300
                            then (m.extra -> k)::numeric::double precision end)
            from unnest(array['wait_seconds']) k)                        as wait_seconds,
           (select sum(case when jsonb_typeof(m.extra -> k) = 'number'
                             and abs((m.extra -> k)::numeric) < 1e300
                            then (m.extra -> k)::numeric::double precision end)
            from unnest(array['generate_seconds', 'train_seconds', 'sync_seconds']) k)
                                                                         as step_seconds
    from train_metrics m
)
select s.run,
       s.agent_id,
       l.name                                                   as agent,
       s.step,
       count(u.rollout_id)                                      as rollouts_used,
       count(u.rollout_id) filter (where u.cross_sample)        as cross_used,
       avg(u.staleness) filter (where u.cross_sample)           as cross_staleness_mean,
       max(u.staleness)                                         as staleness_max,
       s.wait_seconds,
       s.step_seconds,
       s.wait_seconds / nullif(s.step_seconds, 0)               as idle_fraction
from seconds s
join agents l on l.id = s.agent_id
left join rollout_uses u
       on u.run = s.run and u.learner_id = s.agent_id and u.step = s.step
group by s.run, s.agent_id, l.name, s.step, s.wait_seconds, s.step_seconds;
