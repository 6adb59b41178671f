-- One sign-up-shaped statement for scripts/bench/fan-out-trigger.sh: a user and its two audit events.
\set n random(1, 1000000000)
WITH new_user AS (INSERT INTO users (user_handle, name, display_name) VALUES (decode(md5(random()::text || :n), 'hex'), md5(random()::text || :n), 'Bench') RETURNING user_handle),
audit AS (INSERT INTO audit_events (event, request_id, actor, user_handle, credential_id, client_address)
  SELECT e.event, 'req', 'api:bench', u.user_handle, e.cred, '127.0.0.1' FROM new_user u,
  (VALUES (1, 'user.created', NULL::bytea), (2, 'credential.registered', decode(md5(random()::text), 'hex'))) AS e(p, event, cred) ORDER BY e.p)
SELECT user_handle FROM new_user;
