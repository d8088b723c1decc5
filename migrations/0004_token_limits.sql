-- Per-token limits, so one caller cannot starve the others (null: the service's defaults,
-- `verifier serve --token-rate/--token-burst/--token-sandbox`).
--   rate     requests per second, sustained;
--   burst    requests allowed at once above the sustained rate (a token bucket's size);
--   sandbox  requests that may run programs (/run_code, /v1/verify/code, /v1/reward,
--            POST /v1/rollouts) in flight at once.
--   select name, rate, burst, sandbox from tokens;
alter table tokens
    add column rate double precision check (rate > 0 and rate <= 1e6),
    add column burst integer check (burst between 1 and 1000000),
    add column sandbox integer check (sandbox between 1 and 100000);
