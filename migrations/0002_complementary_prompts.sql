-- Complementary prompts: in one step of one run, a task on which one agent failed every sample
-- while another agent solved at least one. These are where a partner's rollouts carry what the
-- learner lacks (the cross samples with a positive advantage for it), so how many there are,
-- step by step, bounds how much sharing can add. One row per (failed agent, solving agent).
--   select step, count(*) from complementary_prompts where run = 'demo' group by step;
create view complementary_prompts as
with per_agent as (
    select r.run, r.step, r.task_id, r.agent_id, a.name as agent,
           count(*) as samples,
           count(*) filter (where r.correct) as solved
    from rollouts r
    join agents a on a.id = r.agent_id
    where r.status = 'scored'
    group by r.run, r.step, r.task_id, r.agent_id, a.name
)
select f.run,
       f.step,
       f.task_id,
       f.agent_id  as failed_agent_id,
       f.agent     as failed_agent,
       f.samples   as failed_samples,
       s.agent_id  as solving_agent_id,
       s.agent     as solving_agent,
       s.solved    as solving_correct,
       s.samples   as solving_samples
from per_agent f
join per_agent s
  on s.run = f.run and s.step = f.step and s.task_id = f.task_id and s.agent_id <> f.agent_id
where f.solved = 0 and s.solved > 0;
