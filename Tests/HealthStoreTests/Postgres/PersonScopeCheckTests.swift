import Testing

/// One statement for the checker, named for the test log.
struct ScopeCase: Sendable, CustomTestStringConvertible {
    let name: String
    let sql: String
    /// Part of a violation the statement must produce (for statements that must fail).
    var expected: String? = nil

    var testDescription: String { name }
}

/// Statements as the PostgreSQL engine sent them before the store core was written once (the
/// same shapes `SQLStatement` builds now; `PersonScopedStatementTests` checks the live ones)
/// with the person bound first, as `$1`, and statements that must not pass.
enum PersonScopeCases {
    /// `RecordSQL.selectResources` on PostgreSQL.
    static let recordColumns = """
        SELECT r.id, s.identifier, s.name, r.resource_type, r.clinical_type, r.resource_id, r.display_name, r.fhir_version,
        r.source_url, r.clinical_date_text, r.added_date, r.anchor, r.data, r.category
        FROM resource r JOIN source s ON s.person_id = r.person_id AND s.id = r.source_id
        """
    /// The tombstone columns of `RecordSQL.deleted` on PostgreSQL.
    static let tombstoneColumns = """
        SELECT t.anchor, s.identifier, s.name, t.resource_type, t.clinical_type, t.resource_id, t.deleted_date
        FROM tombstone t JOIN source s ON s.person_id = t.person_id AND s.id = t.source_id
        """
    /// `SampleSQL.selectSamples` on PostgreSQL.
    static let sampleColumns = """
        SELECT q.id, s.identifier, s.name, q.quantity_type, q.sample_uuid, q.value, q.unit, q.start_date, q.end_date,
        q.device, q.metadata, q.signature_status, q.added_date, q.anchor
        FROM quantity_sample q JOIN source s ON s.person_id = q.person_id AND s.id = q.source_id
        """
    static let changeSummary = """
        SELECT 'c', clinical_type FROM resource WHERE person_id = $1 AND anchor > $2 AND clinical_type IS NOT NULL
        UNION SELECT 'c', clinical_type FROM tombstone WHERE person_id = $1 AND anchor > $2
        UNION SELECT 'q', quantity_type FROM quantity_sample WHERE person_id = $1 AND anchor > $2
        UNION SELECT 'q', quantity_type FROM quantity_sample_tombstone WHERE person_id = $1 AND anchor > $2
        """

    static let engine: [ScopeCase] = [
        // Records (RecordSQL)
        ScopeCase(name: "open: make the person", sql: "INSERT INTO person (person_id, anchor, created_date) VALUES ($1, 0, $2) ON CONFLICT (person_id) DO NOTHING"),
        ScopeCase(name: "write: lock the person", sql: "SELECT anchor FROM person WHERE person_id = $1 FOR UPDATE"),
        ScopeCase(name: "current anchor", sql: "SELECT anchor FROM person WHERE person_id = $1"),
        ScopeCase(name: "sources", sql: "SELECT identifier, name FROM source WHERE person_id = $1"),
        ScopeCase(
            name: "records: every predicate",
            sql: recordColumns
                + " WHERE r.person_id = $1 AND r.clinical_type = $2 AND r.resource_type = $3 AND r.identity = $4"
                + " AND r.source_id = (SELECT id FROM source WHERE person_id = $1 AND identity = $5) AND r.added_date >= $6 AND r.added_date < $7"
                + " AND r.clinical_date >= $8 AND r.clinical_date < $9 AND (r.category = $10 OR (r.category = $11 AND r.id <= $12))"
                + " ORDER BY r.clinical_date DESC NULLS LAST, r.id DESC LIMIT $13"),
        ScopeCase(
            name: "records: nothing visible",
            sql: recordColumns + " WHERE r.person_id = $1 AND r.clinical_type IS NOT NULL AND FALSE ORDER BY r.added_date ASC, r.id ASC"),
        ScopeCase(name: "count", sql: "SELECT COUNT(*) FROM resource r WHERE r.person_id = $1 AND r.clinical_type = $2"),
        ScopeCase(
            name: "changes: added", sql: recordColumns + " WHERE r.person_id = $1 AND r.clinical_type IS NOT NULL AND r.anchor > $2 ORDER BY r.anchor LIMIT $3"),
        ScopeCase(
            name: "changes: deleted",
            sql: tombstoneColumns
                + " WHERE t.person_id = $1 AND t.anchor > $2 AND t.clinical_type = $3 AND t.resource_type = $4 AND s.identity = $5"
                + " AND (t.clinical_type = $6) ORDER BY t.anchor LIMIT $7"),
        ScopeCase(name: "resource by identity", sql: recordColumns + " WHERE r.person_id = $1 AND r.identity = $2 AND ((r.category = $3 AND r.id <= $4))"),
        ScopeCase(
            name: "context resources",
            sql: recordColumns + " WHERE r.person_id = $1 AND r.clinical_type IS NULL AND r.resource_type = $2 AND s.identity = $3 AND (r.category = $4) ORDER BY r.id"),
        ScopeCase(name: "change summary", sql: changeSummary),
        // StoreWriter
        ScopeCase(name: "writer: store the anchor", sql: "UPDATE person SET anchor = $2 WHERE person_id = $1"),
        ScopeCase(name: "writer: find a source", sql: "SELECT id, name FROM source WHERE person_id = $1 AND identity = $2"),
        ScopeCase(name: "writer: rename a source", sql: "UPDATE source SET name = $2 WHERE person_id = $1 AND id = $3"),
        ScopeCase(name: "writer: add a source", sql: "INSERT INTO source (person_id, identity, identifier, name) VALUES ($1, $2, $3, $4) RETURNING id"),
        ScopeCase(name: "writer: existing source", sql: "SELECT id FROM source WHERE person_id = $1 AND identity = $2"),
        // Import (RecordBatches)
        ScopeCase(name: "import: stored versions", sql: "SELECT id, identity, digest, clinical_type FROM resource WHERE person_id = $1 AND identity IN ($2, $3, $4)"),
        ScopeCase(
            name: "import: keep versions",
            sql: "INSERT INTO resource_version (person_id, resource_row, anchor, replaced_date, digest, data) SELECT person_id, id, anchor, "
                + "$2, digest, data FROM resource WHERE person_id = $1 AND id IN ($3, $4)"),
        ScopeCase(
            name: "import: update from VALUES",
            sql: """
                UPDATE resource r SET clinical_type = u.clinical_type, category = u.category, display_name = u.display_name, fhir_version = u.fhir_version,
                source_url = u.source_url, clinical_date = u.clinical_date, clinical_date_text = u.clinical_date_text, anchor = u.anchor,
                digest = u.digest, data = u.data FROM (VALUES($2::bigint, $3::text, $4::text, $5::bytea, $6::text, $7::bytea, $8::double precision, $9::text, $10::bigint, $11::bytea, $12::bytea), ($13::bigint, $14::text, $15::text, $16::bytea, $17::text, $18::bytea, $19::double precision, $20::text, $21::bigint, $22::bytea, $23::bytea)) AS u(id, clinical_type, category, display_name, fhir_version, source_url, clinical_date, clinical_date_text, anchor, digest, data)
                WHERE r.person_id = $1 AND r.id = u.id
                """),
        ScopeCase(
            name: "import: insert rows",
            sql: """
                INSERT INTO resource (person_id, id, identity, source_id, resource_type, clinical_type, resource_id, display_name, fhir_version,
                source_url, clinical_date, clinical_date_text, added_date, anchor, digest, data, category) VALUES
                ($1, $4, $5, $2, $6, $7, $8, $9, $10, $11, $12, $13, $3, $4, $14, $15, $16), ($1, $17, $18, $2, $19, $20, $21, $22, $23, $24, $25, $26, $3, $17, $27, $28, $29)
                """),
        ScopeCase(name: "import: drop returning tombstones", sql: "DELETE FROM tombstone WHERE person_id = $1 AND identity IN ($2, $3)"),
        ScopeCase(
            name: "delete: tombstones",
            sql: """
                INSERT INTO tombstone (person_id, anchor, identity, source_id, resource_type, clinical_type, resource_id, deleted_date, added_anchor)
                SELECT person_id, $2 + row_number() OVER (ORDER BY id), identity, source_id, resource_type, clinical_type, resource_id, $3, id FROM resource WHERE person_id = $1 AND source_id = $4 AND identity = $5 AND clinical_type IS NOT NULL RETURNING clinical_type
                """),
        ScopeCase(name: "delete: remove", sql: "DELETE FROM resource WHERE person_id = $1 AND source_id = $2 AND resource_type = $3 RETURNING id"),
        // Samples (SampleSQL, SampleBatch)
        ScopeCase(
            name: "samples: every predicate",
            sql: sampleColumns
                + " WHERE q.person_id = $1 AND q.quantity_type = $2 AND q.source_id = (SELECT id FROM source WHERE person_id = $1 AND identity = $3)"
                + " AND q.start_date >= $4 AND q.start_date < $5 AND q.added_date >= $6 AND q.identity IN ($7, $8)"
                + " AND (q.quantity_type = $9 OR (q.quantity_type = $10 AND q.anchor <= $11)) ORDER BY q.start_date ASC, q.id ASC LIMIT $12"),
        ScopeCase(name: "samples: added", sql: sampleColumns + " WHERE q.person_id = $1 AND q.quantity_type = $2 AND q.anchor > $3 ORDER BY q.anchor LIMIT $4"),
        ScopeCase(
            name: "samples: deleted",
            sql: """
                SELECT t.anchor, s.identifier, t.quantity_type, t.sample_uuid, t.deleted_date
                FROM quantity_sample_tombstone t JOIN source s ON s.person_id = t.person_id AND s.id = t.source_id
                WHERE t.person_id = $1 AND t.anchor > $2 AND t.quantity_type = $3 AND s.identity = $4 AND t.identity IN ($5) AND (t.quantity_type = $6) ORDER BY t.anchor LIMIT $7
                """),
        ScopeCase(
            name: "samples: deletion tombstones",
            sql: """
                INSERT INTO quantity_sample_tombstone (person_id, anchor, identity, source_id, quantity_type, sample_uuid, deleted_date, added_anchor)
                SELECT q.person_id, $2 + row_number() OVER (ORDER BY q.id), q.identity, q.source_id, q.quantity_type, q.sample_uuid, $3, q.anchor FROM quantity_sample q WHERE q.person_id = $1 AND q.quantity_type = $4 AND q.source_id = (SELECT id FROM source WHERE person_id = $1 AND identity = $5) RETURNING quantity_type
                """),
        ScopeCase(
            name: "samples: delete",
            sql: "DELETE FROM quantity_sample q WHERE q.person_id = $1 AND q.quantity_type = $2 AND q.source_id = (SELECT id FROM source WHERE person_id = $1 AND identity = $3)"),
        ScopeCase(name: "samples: stored digests", sql: "SELECT identity, digest FROM quantity_sample WHERE person_id = $1 AND identity IN ($2, $3)"),
        ScopeCase(
            name: "samples: insert",
            sql: """
                INSERT INTO quantity_sample (person_id, id, identity, source_id, quantity_type, sample_uuid, start_date, end_date, added_date,
                anchor, digest, value, unit, device, metadata, signature_status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $2, $10, $11, $12, $13, $14, $15)
                """),
        ScopeCase(name: "samples: drop returning tombstones", sql: "DELETE FROM quantity_sample_tombstone WHERE person_id = $1 AND identity IN ($2, $3)"),
        // Consent
        ScopeCase(name: "consent: save app", sql: "INSERT INTO app (person_id, id, secret_digest, registered_date, details) VALUES ($1, $2, $3, $4, $5)"),
        ScopeCase(name: "consent: app", sql: "SELECT id, secret_digest, registered_date, details, access_revision FROM app WHERE person_id = $1 AND id = $2"),
        ScopeCase(
            name: "consent: apps",
            sql: "SELECT id, secret_digest, registered_date, details, access_revision FROM app WHERE person_id = $1 ORDER BY registered_date, id COLLATE \"C\""),
        ScopeCase(
            name: "consent: save grant",
            sql: """
                INSERT INTO read_grant (person_id, app_id, data_type, decision, new_data, approved_through, changed_anchor, decided_date) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (person_id, app_id, data_type) DO UPDATE SET decision = EXCLUDED.decision, new_data = EXCLUDED.new_data,
                approved_through = EXCLUDED.approved_through, changed_anchor = EXCLUDED.changed_anchor, decided_date = EXCLUDED.decided_date
                """),
        ScopeCase(
            name: "consent: grants",
            sql: """
                SELECT data_type, decision, new_data, approved_through, changed_anchor, decided_date FROM read_grant
                WHERE person_id = $1 AND app_id = $2 ORDER BY data_type COLLATE "C"
                """),
        ScopeCase(name: "consent: remove grants", sql: "DELETE FROM read_grant WHERE person_id = $1 AND app_id = $2 RETURNING data_type"),
        ScopeCase(name: "consent: remove shares", sql: "DELETE FROM card_share WHERE person_id = $1 AND app_id = $2"),
        ScopeCase(name: "consent: bump revision", sql: "UPDATE app SET access_revision = access_revision + 1 WHERE person_id = $1 AND id = $2"),
        ScopeCase(
            name: "consent: latest anchor",
            sql: "SELECT GREATEST((SELECT MAX(r.anchor) FROM resource r WHERE r.person_id = $1 AND (r.category = $2 OR (r.category = $3 AND r.id <= $4))), "
                + "(SELECT MAX(t.anchor) FROM tombstone t WHERE t.person_id = $1 AND (t.clinical_type = $5 OR (t.clinical_type = $6 AND t.added_anchor <= $7))), "
                + "(SELECT MAX(q.anchor) FROM quantity_sample q WHERE q.person_id = $1 AND (q.quantity_type = $8)), "
                + "(SELECT MAX(t.anchor) FROM quantity_sample_tombstone t WHERE t.person_id = $1 AND (t.quantity_type = $9)))"),
        ScopeCase(name: "consent: has records", sql: "SELECT EXISTS (SELECT 1 FROM resource WHERE person_id = $1 AND category = $2 AND id > $3)"),
        ScopeCase(name: "consent: has samples", sql: "SELECT EXISTS (SELECT 1 FROM quantity_sample WHERE person_id = $1 AND quantity_type = $2 AND anchor > $3)"),
        ScopeCase(
            name: "consent: append audit",
            sql: "INSERT INTO audit_entry (person_id, app_id, date, operation, data_types, record_count) VALUES ($1, $2, $3, $4, $5, $6)"),
        ScopeCase(
            name: "consent: audit page",
            sql: "SELECT app_id, date, operation, data_types, record_count FROM audit_entry WHERE person_id = $1 AND app_id = $2 ORDER BY id DESC LIMIT 20 OFFSET 40"),
        ScopeCase(
            name: "consent: make anchor secret", sql: "INSERT INTO anchor_secret (person_id, secret) VALUES ($1, $2) ON CONFLICT (person_id) DO NOTHING"),
        ScopeCase(name: "consent: anchor secret", sql: "SELECT secret FROM anchor_secret WHERE person_id = $1"),
        ScopeCase(
            name: "consent: save card share", sql: "INSERT INTO card_share (person_id, token_digest, app_id, created_date, cards) VALUES ($1, $2, $3, $4, $5)"),
        ScopeCase(
            name: "consent: take card share", sql: "DELETE FROM card_share WHERE person_id = $1 AND token_digest = $2 RETURNING app_id, created_date, cards"),
        // Categories
        ScopeCase(name: "categories: pending", sql: "SELECT id, resource_type, resource_id, fhir_version, data FROM resource WHERE person_id = $1 AND category = $2"),
        ScopeCase(name: "categories: classify", sql: "UPDATE resource SET category = $2 WHERE person_id = $1 AND id = $3 AND category = $4"),
        // Cards
        ScopeCase(name: "cards: find", sql: "SELECT id, status, status_detail FROM verifiable_record WHERE person_id = $1 AND identity = $2"),
        ScopeCase(name: "cards: new status", sql: "UPDATE verifiable_record SET status = $2, status_detail = $3, anchor = $4 WHERE person_id = $1 AND id = $5"),
        ScopeCase(
            name: "cards: insert",
            sql: """
                INSERT INTO verifiable_record (person_id, id, identity, record_types, issued_date, relevant_date, expiration_date, added_date,
                anchor, status, status_detail, details, jws) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $2, $9, $10, $11, $12)
                """),
        ScopeCase(
            name: "cards: list",
            sql: """
                SELECT id, identity, record_types, issued_date, relevant_date, expiration_date, added_date, status, status_detail, details, jws
                FROM verifiable_record WHERE person_id = $1 AND relevant_date >= $2 AND relevant_date <= $3 ORDER BY relevant_date ASC NULLS FIRST, id
                """),
        ScopeCase(name: "cards: delete", sql: "DELETE FROM verifiable_record WHERE person_id = $1 AND identity = $2 RETURNING id"),
        // The key row (StoreKeyRow)
        ScopeCase(
            name: "key: load",
            sql: "SELECT key_id, method, kdf_log_n, kdf_r, kdf_p, salt, wrapped_key, key_check, changed_date FROM store_key WHERE person_id = $1"),
        ScopeCase(
            name: "key: save",
            sql: """
                INSERT INTO store_key (person_id, key_id, method, kdf_log_n, kdf_r, kdf_p, salt, wrapped_key, key_check, changed_date) VALUES (
                $1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (person_id) DO UPDATE SET key_id = EXCLUDED.key_id, method = EXCLUDED.method, kdf_log_n = EXCLUDED.kdf_log_n,
                kdf_r = EXCLUDED.kdf_r, kdf_p = EXCLUDED.kdf_p, salt = EXCLUDED.salt, wrapped_key = EXCLUDED.wrapped_key,
                key_check = EXCLUDED.key_check, changed_date = EXCLUDED.changed_date
                """),
    ]
        + ["source", "resource", "tombstone", "quantity_sample", "quantity_sample_tombstone", "verifiable_record", "app", "audit_entry"].map {
            ScopeCase(name: "key: is \($0) empty", sql: "SELECT EXISTS (SELECT 1 FROM \($0) WHERE person_id = $1)")
        }
        + [
            // PostgresResealer
            ScopeCase(name: "reseal: sources", sql: "SELECT id, identifier FROM source WHERE person_id = $1"),
            ScopeCase(
                name: "reseal: resources", sql: "SELECT id, source_id, resource_type, resource_id, display_name, source_url, data FROM resource WHERE person_id = $1"),
            ScopeCase(
                name: "reseal: resource",
                sql: "UPDATE resource SET identity = $2, resource_id = $3, display_name = $4, source_url = $5, digest = $6, data = $7 WHERE person_id = $1 AND id = $8"),
            ScopeCase(name: "reseal: versions", sql: "SELECT id, data FROM resource_version WHERE person_id = $1"),
            ScopeCase(name: "reseal: version", sql: "UPDATE resource_version SET digest = $2, data = $3 WHERE person_id = $1 AND id = $4"),
            ScopeCase(name: "reseal: tombstones", sql: "SELECT anchor, source_id, resource_type, resource_id FROM tombstone WHERE person_id = $1"),
            ScopeCase(name: "reseal: tombstone", sql: "UPDATE tombstone SET identity = $2, resource_id = $3 WHERE person_id = $1 AND anchor = $4"),
            ScopeCase(name: "reseal: sample tombstones", sql: "SELECT anchor, sample_uuid FROM quantity_sample_tombstone WHERE person_id = $1"),
            ScopeCase(
                name: "reseal: sample tombstone", sql: "UPDATE quantity_sample_tombstone SET identity = $2, sample_uuid = $3 WHERE person_id = $1 AND anchor = $4"),
            ScopeCase(name: "reseal: samples", sql: sampleColumns + " WHERE q.person_id = $1"),
            ScopeCase(
                name: "reseal: sample",
                sql: "UPDATE quantity_sample SET identity = $2, digest = $3, sample_uuid = $4, value = $5, unit = $6, device = $7, metadata = $8, "
                    + "signature_status = $9 WHERE person_id = $1 AND id = $10"),
            ScopeCase(name: "reseal: cards", sql: "SELECT id, status_detail, details, jws FROM verifiable_record WHERE person_id = $1"),
            ScopeCase(
                name: "reseal: card",
                sql: "UPDATE verifiable_record SET identity = $2, status_detail = $3, details = $4, jws = $5 WHERE person_id = $1 AND id = $6"),
            ScopeCase(name: "reseal: apps", sql: "SELECT id, details FROM app WHERE person_id = $1"),
            ScopeCase(name: "reseal: app", sql: "UPDATE app SET details = $2 WHERE person_id = $1 AND id = $3"),
            ScopeCase(name: "reseal: drop card shares", sql: "DELETE FROM card_share WHERE person_id = $1"),
            ScopeCase(name: "reseal: sources again", sql: "SELECT id, identifier, name FROM source WHERE person_id = $1"),
            ScopeCase(name: "reseal: source", sql: "UPDATE source SET identity = $2, identifier = $3, name = $4 WHERE person_id = $1 AND id = $5"),
        ]

    /// Statements that name no person table: transaction control and migration bookkeeping.
    static let personless: [ScopeCase] = [
        ScopeCase(name: "begin", sql: "BEGIN"),
        ScopeCase(name: "snapshot", sql: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"),
        ScopeCase(name: "lock timeout", sql: "SET LOCAL lock_timeout = 10000"),
        ScopeCase(name: "commit", sql: "COMMIT"),
        ScopeCase(name: "rollback", sql: "ROLLBACK"),
        ScopeCase(name: "applied migrations", sql: "SELECT name FROM schema_migrations ORDER BY applied_order"),
        ScopeCase(name: "record a migration", sql: "INSERT INTO schema_migrations (name, applied_order) VALUES ($1, $2)"),
        ScopeCase(name: "migration lock", sql: "SELECT pg_advisory_xact_lock($1)"),
        ScopeCase(name: "a CTE named like a person table", sql: "WITH resource AS (SELECT 1 AS x) SELECT x FROM resource"),
    ]

    /// Shapes the engine does not use today but that are scoped and must pass.
    static let accepted: [ScopeCase] = [
        ScopeCase(name: "any case", sql: "select * from RESOURCE where PERSON_ID = $1"),
        ScopeCase(name: "quoted identifiers", sql: "SELECT * FROM \"resource\" WHERE \"person_id\" = $1"),
        ScopeCase(name: "schema-qualified", sql: "SELECT * FROM public.resource r WHERE r.person_id = $1"),
        ScopeCase(name: "parameter first", sql: "SELECT * FROM resource WHERE $1 = person_id"),
        ScopeCase(name: "cast", sql: "SELECT * FROM resource WHERE person_id = $1::text AND anchor > $2::bigint"),
        ScopeCase(name: "parenthesized conjunct", sql: "SELECT * FROM resource WHERE (person_id = $1) AND anchor > $2"),
        ScopeCase(name: "nested conjuncts", sql: "SELECT * FROM resource WHERE anchor > $2 AND (category = $3 AND (person_id = $1))"),
        ScopeCase(name: "between", sql: "SELECT * FROM resource WHERE anchor BETWEEN $2 AND $3 AND person_id = $1"),
        ScopeCase(
            name: "join using person_id",
            sql: "SELECT * FROM resource JOIN source USING (person_id) WHERE resource.person_id = $1 AND source.id = resource.source_id"),
        ScopeCase(
            name: "person matched in WHERE",
            sql: "SELECT * FROM resource r, source s WHERE r.person_id = $1 AND s.person_id = r.person_id AND s.id = r.source_id"),
        ScopeCase(
            name: "both sides pinned",
            sql: "SELECT * FROM resource r JOIN source s ON s.person_id = $1 AND s.id = r.source_id WHERE r.person_id = $1"),
        ScopeCase(
            name: "left join pins its right side",
            sql: "SELECT * FROM resource r LEFT JOIN source s ON s.person_id = r.person_id AND s.id = r.source_id WHERE r.person_id = $1"),
        ScopeCase(
            name: "correlated subquery",
            sql: "SELECT r.id FROM resource r WHERE r.person_id = $1 AND NOT EXISTS (SELECT 1 FROM tombstone t WHERE t.person_id = r.person_id AND t.identity = r.identity)"),
        ScopeCase(
            name: "lateral subquery",
            sql: "SELECT * FROM source s, LATERAL (SELECT MAX(anchor) AS latest FROM resource r WHERE r.person_id = s.person_id AND r.source_id = s.id) x WHERE s.person_id = $1"),
        ScopeCase(
            name: "CTE", sql: "WITH recent AS (SELECT id FROM resource WHERE person_id = $1 AND anchor > $2) SELECT COUNT(*) FROM recent"),
        ScopeCase(
            name: "data-modifying CTE",
            sql: "WITH gone AS (DELETE FROM tombstone WHERE person_id = $1 AND identity = $2 RETURNING anchor) SELECT COUNT(*) FROM gone"),
        ScopeCase(name: "locking one alias", sql: "SELECT p.anchor FROM person p WHERE p.person_id = $1 FOR UPDATE OF p"),
        ScopeCase(name: "several statements", sql: "BEGIN; SELECT anchor FROM person WHERE person_id = $1 FOR UPDATE; COMMIT"),
        ScopeCase(name: "literal that names a table", sql: "SELECT id FROM app WHERE person_id = $1 AND details <> 'resource'"),
        ScopeCase(
            name: "parenthesized union branches",
            sql: "(SELECT anchor FROM tombstone WHERE person_id = $1) UNION ALL (SELECT anchor FROM resource WHERE person_id = $1) ORDER BY 1"),
    ]

    static let hostile: [ScopeCase] = [
        ScopeCase(name: "no person filter", sql: "SELECT * FROM resource WHERE anchor > $2", expected: "resource: no resource.person_id = $N"),
        ScopeCase(name: "OR person_id", sql: "SELECT * FROM resource WHERE anchor > $2 OR person_id = $1", expected: "resource: its person_id = $N does not hold"),
        ScopeCase(name: "two people by OR", sql: "SELECT * FROM resource WHERE person_id = $1 OR person_id = $2", expected: "does not hold for every row"),
        ScopeCase(
            name: "OR inside a conjunct", sql: "SELECT * FROM resource r WHERE r.anchor > $2 AND (r.person_id = $1 OR r.category = $3)",
            expected: "resource r: its person_id = $N does not hold"),
        ScopeCase(
            name: "OR after the filter", sql: "SELECT * FROM resource WHERE person_id = $1 AND anchor > $2 OR anchor < $3",
            expected: "resource: its person_id = $N does not hold"),
        ScopeCase(
            name: "filter in an OR's right operand", sql: "SELECT * FROM resource WHERE anchor < $3 OR anchor > $2 AND person_id = $1",
            expected: "resource: its person_id = $N does not hold"),
        ScopeCase(
            name: "BETWEEN takes the AND", sql: "SELECT * FROM resource WHERE anchor BETWEEN $2 AND person_id = $1",
            expected: "resource: its person_id = $N does not hold"),
        ScopeCase(name: "NOT", sql: "SELECT * FROM resource WHERE NOT person_id = $1", expected: "does not hold for every row"),
        ScopeCase(
            name: "join without the person match",
            sql: "SELECT * FROM resource r JOIN source s ON s.id = r.source_id WHERE r.person_id = $1",
            expected: "source s: joined without s.person_id"),
        ScopeCase(
            name: "join match under OR",
            sql: "SELECT * FROM resource r JOIN source s ON (s.person_id = r.person_id OR s.id = r.source_id) WHERE r.person_id = $1",
            expected: "source s: joined without"),
        ScopeCase(
            name: "comma join without the match", sql: "SELECT * FROM resource r, source s WHERE r.person_id = $1 AND s.id = r.source_id",
            expected: "source s: joined without"),
        ScopeCase(
            name: "outer join's ON does not pin the kept side",
            sql: "SELECT * FROM resource r LEFT JOIN source s ON r.person_id = $1 AND s.person_id = r.person_id AND s.id = r.source_id",
            expected: "resource r: its person_id = $N does not hold"),
        ScopeCase(name: "person as a literal", sql: "SELECT * FROM resource WHERE person_id = 'alice'", expected: "resource: no resource.person_id"),
        ScopeCase(name: "person list", sql: "SELECT * FROM resource WHERE person_id IN ($1, $2)", expected: "resource: no resource.person_id"),
        ScopeCase(name: "person_id compared otherwise", sql: "SELECT * FROM resource WHERE person_id >= $1", expected: "resource: no resource.person_id"),
        ScopeCase(
            name: "two people in one join",
            sql: "SELECT * FROM resource r JOIN source s ON s.person_id = $2 AND s.id = r.source_id WHERE r.person_id = $1",
            expected: "person_id is matched with $2, not with the person ($1)"),
        ScopeCase(name: "another parameter", sql: "SELECT * FROM resource WHERE person_id = $2", expected: "matched with $2, not with the person ($1)"),
        ScopeCase(
            name: "unqualified person_id with two tables",
            sql: "SELECT * FROM resource r JOIN source s ON s.id = r.source_id WHERE person_id = $1", expected: "person_id is unqualified"),
        ScopeCase(
            name: "unscoped subquery",
            sql: recordColumns + " WHERE r.person_id = $1 AND r.source_id = (SELECT id FROM source WHERE identity = $2)",
            expected: "source: no source.person_id = $N in WHERE or JOIN … ON, so it reaches every person's rows (in a subquery)"),
        ScopeCase(
            name: "correlated with an unpinned table",
            sql: "SELECT * FROM resource r WHERE r.anchor > $2 AND EXISTS (SELECT 1 FROM source s WHERE s.person_id = r.person_id)",
            expected: "source s: no s.person_id"),
        ScopeCase(
            name: "unscoped UNION branch",
            sql: changeSummary.replacingOccurrences(of: "FROM tombstone WHERE person_id = $1 AND", with: "FROM tombstone WHERE"),
            expected: "tombstone: no tombstone.person_id"),
        ScopeCase(name: "unscoped derived table", sql: "SELECT * FROM (SELECT * FROM resource) x", expected: "resource: no resource.person_id"),
        ScopeCase(
            name: "unscoped CTE", sql: "WITH recent AS (SELECT * FROM resource WHERE anchor > $2) SELECT * FROM recent",
            expected: "resource: no resource.person_id"),
        ScopeCase(
            name: "unscoped data-modifying CTE",
            sql: "WITH gone AS (DELETE FROM tombstone WHERE identity = $2 RETURNING anchor) SELECT COUNT(*) FROM gone",
            expected: "tombstone: no tombstone.person_id"),
        ScopeCase(name: "filter in a comment", sql: "SELECT * FROM resource -- WHERE person_id = $1", expected: "resource: no"),
        ScopeCase(name: "filter in a block comment", sql: "SELECT * FROM resource /* WHERE person_id = $1 */", expected: "resource: no"),
        ScopeCase(name: "filter in a string", sql: "SELECT * FROM resource WHERE data = 'x'' AND person_id = $1'", expected: "resource: no"),
        ScopeCase(name: "filter in an escape string", sql: "SELECT * FROM resource WHERE data = E'\\' AND person_id = $1 --'", expected: "resource: no"),
        ScopeCase(name: "filter in a dollar-quoted string", sql: "SELECT * FROM resource WHERE data = $q$' AND person_id = $1$q$", expected: "resource: no"),
        ScopeCase(name: "update without a filter", sql: "UPDATE resource SET data = $2", expected: "resource: no resource.person_id"),
        ScopeCase(
            name: "update moving rows", sql: "UPDATE resource SET person_id = $2 WHERE person_id = $1",
            expected: "resource: SET person_id moves rows to another person"),
        ScopeCase(
            name: "update moving rows by a row assignment", sql: "UPDATE resource SET (data, person_id) = ($2, $3) WHERE person_id = $1",
            expected: "resource: SET person_id moves rows"),
        ScopeCase(
            name: "column aliases that rename person_id", sql: "SELECT * FROM resource r(id, person_id) WHERE r.person_id = $1",
            expected: "resource r: column aliases on a person table are not followed"),
        ScopeCase(name: "a table spelled in escapes", sql: "SELECT * FROM U&\"\\0072esource\"", expected: "cannot read a U&"),
        ScopeCase(
            name: "an unpinned table in an UPDATE's FROM",
            sql: "UPDATE resource r SET data = s.name FROM source s WHERE r.person_id = $1 AND s.id = r.source_id", expected: "source s: joined without"),
        ScopeCase(
            name: "an unscoped subquery in an upsert",
            sql: "INSERT INTO app (person_id, id, details) VALUES ($1, $2, $3) ON CONFLICT (person_id, id) DO UPDATE SET details = (SELECT details FROM app WHERE id = $2)",
            expected: "app: no app.person_id"),
        ScopeCase(name: "HAVING is not a filter", sql: "SELECT person_id, COUNT(*) FROM resource GROUP BY person_id HAVING person_id = $1", expected: "resource: no"),
        ScopeCase(name: "delete without a filter", sql: "DELETE FROM tombstone WHERE identity = $1", expected: "tombstone: no tombstone.person_id"),
        ScopeCase(
            name: "delete using an unmatched table",
            sql: "DELETE FROM resource r USING source s WHERE r.person_id = $1 AND r.source_id = s.id AND s.identity = $2",
            expected: "source s: joined without"),
        ScopeCase(
            name: "insert without person_id",
            sql: "INSERT INTO audit_entry (app_id, date, operation, data_types, record_count) VALUES ($1, $2, $3, $4, $5)",
            expected: "audit_entry: INSERT leaves out person_id"),
        ScopeCase(name: "insert without a column list", sql: "INSERT INTO anchor_secret VALUES ($1, $2)", expected: "anchor_secret: INSERT without a column list"),
        ScopeCase(
            name: "insert for two people",
            sql: "INSERT INTO app (person_id, id, secret_digest, registered_date, details) VALUES ($1, $3, $4, $5, $6), ($2, $7, $8, $9, $10)",
            expected: "person_id is matched with $2"),
        ScopeCase(
            name: "insert a literal person", sql: "INSERT INTO app (person_id, id) VALUES ('alice', $1)",
            expected: "app: VALUES row 1 puts '…' in person_id"),
        ScopeCase(
            name: "insert … select from every person",
            sql: "INSERT INTO tombstone (person_id, anchor, identity) SELECT person_id, anchor, identity FROM resource WHERE source_id = $2",
            expected: "resource: no resource.person_id"),
        ScopeCase(
            name: "insert … select another person",
            sql: "INSERT INTO resource_version (person_id, resource_row, anchor) SELECT $2, id, anchor FROM resource WHERE person_id = $1",
            expected: "matched with $2"),
        ScopeCase(
            name: "insert … select a computed person",
            sql: "INSERT INTO resource_version (person_id, resource_row, anchor) SELECT lower(person_id), id, anchor FROM resource WHERE person_id = $1",
            expected: "resource_version: INSERT … SELECT puts lower(person_id) in person_id"),
        ScopeCase(
            name: "upsert on a key without person_id",
            sql: "INSERT INTO card_share (person_id, token_digest, app_id, created_date, cards) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (token_digest) DO UPDATE SET cards = EXCLUDED.cards",
            expected: "card_share: ON CONFLICT … DO UPDATE without person_id"),
        ScopeCase(
            name: "upsert moving a row",
            sql: "INSERT INTO store_key (person_id, key_id) VALUES ($1, $2) ON CONFLICT (person_id) DO UPDATE SET person_id = EXCLUDED.person_id",
            expected: "store_key: SET person_id moves rows"),
        ScopeCase(name: "TABLE", sql: "TABLE resource", expected: "resource: TABLE resource reads every person's rows"),
        ScopeCase(name: "truncate", sql: "TRUNCATE resource", expected: "resource: named by TRUNCATE,"),
        ScopeCase(name: "copy", sql: "COPY resource TO STDOUT", expected: "resource: named by COPY,"),
        ScopeCase(name: "lock", sql: "LOCK TABLE person IN EXCLUSIVE MODE", expected: "person: named by LOCK,"),
        ScopeCase(
            name: "migration: index", sql: "CREATE INDEX resource_by_anchor ON resource (person_id, anchor)",
            expected: "resource: named by CREATE,"),
        ScopeCase(
            name: "migration: column", sql: "ALTER TABLE app ADD COLUMN access_revision bigint NOT NULL DEFAULT 0",
            expected: "app: named by ALTER,"),
        ScopeCase(
            name: "migration: backfill",
            sql: "UPDATE resource SET category = CASE WHEN clinical_type IS NOT NULL THEN clinical_type ELSE 'other' END",
            expected: "resource: no resource.person_id"),
        ScopeCase(
            name: "a person table where the checker cannot place it", sql: "SELECT row_to_json(resource) FROM person WHERE person_id = $1",
            expected: "resource: named where the checker cannot tell how it is used"),
        ScopeCase(name: "a DO block", sql: "DO $$ BEGIN DELETE FROM resource; END $$", expected: "DO runs SQL the checker cannot see"),
        ScopeCase(name: "a prepared statement", sql: "EXECUTE forget_everyone", expected: "EXECUTE runs SQL the checker cannot see"),
        ScopeCase(name: "unbalanced parentheses", sql: "SELECT * FROM resource WHERE (person_id = $1", expected: "unbalanced parentheses"),
        ScopeCase(name: "unterminated string", sql: "SELECT * FROM resource WHERE person_id = $1 AND data = 'oops", expected: "unterminated string literal"),
        ScopeCase(name: "unterminated comment", sql: "SELECT * FROM resource WHERE person_id = $1 /* AND", expected: "unterminated /* comment"),
        ScopeCase(
            name: "second statement unscoped", sql: "SELECT anchor FROM person WHERE person_id = $1; SELECT * FROM app",
            expected: "app: no app.person_id"),
    ]
}

@Suite struct PersonScopeCheckTests {
    @Test(arguments: PersonScopeCases.engine)
    func engineStatementsAreScopedToThePerson(_ c: ScopeCase) {
        let report = PersonScopeCheck.check(c.sql, personParameter: 1)
        #expect(report.violations == [], "\(c.sql)")
        #expect(report.parameters == [1])
        #expect(!report.tables.isEmpty)
        #expect(PersonScopeCheck.isScoped(c.sql))
    }

    @Test(arguments: PersonScopeCases.personless)
    func statementsWithoutPersonTablesPass(_ c: ScopeCase) {
        let report = PersonScopeCheck.check(c.sql, personParameter: 1)
        #expect(report.violations == [], "\(c.sql)")
        #expect(report.tables == [])
        #expect(report.parameters == [])
    }

    @Test(arguments: PersonScopeCases.accepted)
    func otherScopedShapesPass(_ c: ScopeCase) {
        #expect(PersonScopeCheck.violations(in: c.sql, personParameter: 1) == [], "\(c.sql)")
    }

    @Test(arguments: PersonScopeCases.hostile)
    func unscopedStatementsFail(_ c: ScopeCase) {
        let violations = PersonScopeCheck.violations(in: c.sql, personParameter: 1)
        #expect(!PersonScopeCheck.isScoped(c.sql, personParameter: 1))
        #expect(violations.contains { $0.contains(c.expected ?? "") }, "\(violations)")
    }

    @Test func theReportNamesTablesAndTheParameter() {
        let report = PersonScopeCheck.check(PersonScopeCases.recordColumns + " WHERE r.person_id = $1 AND r.anchor > $2")
        #expect(report.tables == ["resource", "source"])
        #expect(report.parameters == [1])
        #expect(report.isScoped)
    }

    @Test func anyOneParameterPassesWithoutAnExpectedOne() {
        #expect(PersonScopeCheck.isScoped("SELECT * FROM resource WHERE person_id = $3"))
        #expect(!PersonScopeCheck.isScoped("SELECT * FROM resource WHERE person_id = $3", personParameter: 1))
        #expect(
            PersonScopeCheck.violations(in: "SELECT * FROM resource r JOIN source s ON s.person_id = $2 AND s.id = r.source_id WHERE r.person_id = $1")
                == ["person_id is matched with $1 and $2: one statement must name one person"])
    }

    @Test func everyUnscopedTableIsReported() {
        let violations = PersonScopeCheck.violations(in: "SELECT * FROM resource r JOIN source s ON s.id = r.source_id JOIN app a ON a.id = $2")
        #expect(violations.count == 3, "\(violations)")
        for table in ["resource r", "source s", "app a"] { #expect(violations.contains { $0.hasPrefix(table + ":") }, "\(violations)") }
    }
}
