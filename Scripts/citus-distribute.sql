-- Distributes the PostgreSQL schema on a Citus cluster by person (docs/scaling.md, "Commands").
-- Run it on the coordinator, in the store's database, once the schema is migrated and the
-- workers are added (`SELECT citus_add_node(host, port)`), before or after data is loaded:
--   psql "$COORDINATOR_URL" -v ON_ERROR_STOP=1 -f Scripts/citus-distribute.sql
--
-- Every person table is hash-distributed on person_id and co-located with `person`, so that all
-- of one person's rows sit in one shard group and every statement the engine sends routes to one
-- shard. Referenced tables come before the tables that reference them (create_distributed_table
-- refuses a foreign key to a table not yet distributed). `schema_migrations` stays a local table
-- on the coordinator: it holds no person's data and only the migrator reads it.
--
-- The list below is the one list: PostgresSchemaTests fails when a migration creates a table
-- with a person_id column that it does not name, or names one the schema does not have.

-- Shard groups are the unit a rebalance moves; 32–128 suit a multi-tenant schema.
SET citus.shard_count = 64;

-- The person tables, parents before children.
CREATE TEMPORARY TABLE person_table (n serial PRIMARY KEY, name text NOT NULL UNIQUE);
INSERT INTO person_table (name) VALUES
    -- distribution: begin
    ('person'),
    ('anchor_secret'),
    ('store_key'),
    ('source'),
    ('resource'),
    ('resource_version'),
    ('tombstone'),
    ('quantity_sample'),
    ('quantity_sample_tombstone'),
    ('verifiable_record'),
    ('app'),
    ('read_grant'),
    ('audit_entry'),
    ('card_share'),
    ('oauth_credential'),
    ('provider_connection'),
    ('hosted_link'),
    ('hosted_link_file'),
    ('hosted_link_location'),
    ('hosted_link_access'),
    ('medication_choice'),
    ('medication_note'),
    ('person_setting'),
    ('passkey'),
    ('recovery_code'),
    ('household'),
    ('proxy_action');
    -- distribution: end

SELECT create_distributed_table(name, 'person_id', colocate_with => CASE WHEN name = 'person' THEN 'none' ELSE 'person' END)
FROM person_table ORDER BY n;

-- Rows that were in the tables before they were distributed stay behind, hidden, on the
-- coordinator; remove them, children first (nothing to do on an empty schema).
SELECT truncate_local_data_after_distributing_table(name::regclass) FROM person_table ORDER BY n DESC;

-- Server-wide tables hold no person's data: small reference tables, copied to every node, never
-- referencing a person table. `server_setting` holds the secrets a server for many people signs
-- its sign-in challenges with (written once each); `app_catalogue` the operator's apps for
-- everyone (read when a person's store is opened, copied into their own `app` table).
-- reference: begin
SELECT create_reference_table('server_setting');
SELECT create_reference_table('app_catalogue');
-- reference: end

-- The engine's write transactions begin with SET LOCAL lock_timeout; by default Citus does not
-- pass SET commands on to the workers, where the row lock is actually waited for.
DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET citus.propagate_set_commands = %L', current_database(), 'local'); END $$;
