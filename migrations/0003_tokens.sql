-- Bearer tokens: who may call the service, with which scopes, and who wrote each row.
-- A token is `hacrl_<id>_<secret>`; only the SHA-256 of the secret is stored (the secret is 256
-- random bits, so a slow password hash would add cost per request and no strength).
--   select name, scopes, agent, expires_at, revoked_at from tokens;
create table tokens (
    id          uuid primary key,
    name        text not null unique check (length(name) between 1 and 200),
    scopes      text[] not null
                check (cardinality(scopes) > 0
                       and scopes <@ array['score', 'read', 'write', 'admin']::text[]),
    -- The one agent (by name) a `write` token writes as; only `write` tokens have one.
    agent       text check (length(agent) between 1 and 200),
    digest      bytea not null check (length(digest) = 32),
    created_at  timestamptz not null default now(),
    expires_at  timestamptz,
    revoked_at  timestamptz,
    check ((agent is not null) = ('write' = any (scopes)))
);

-- Which token wrote each row (null: written with authentication off, or before tokens existed).
alter table agents add column written_by uuid references tokens (id);
alter table tasks add column written_by uuid references tokens (id);
alter table rollouts add column written_by uuid references tokens (id);
alter table train_metrics add column written_by uuid references tokens (id);
