import Foundation
import HealthStoreCore

/// The SQLite schema, as named, append-only migrations.
///
/// Values that identify a person or a condition (resource ids, display names, resource bytes;
/// sample values, units, devices, metadata and signatures) pass through the store's
/// ``RecordSealer``; indexes hold only types, dates and identity keys.
///
/// - `v1-records`: sources, the anchor counter, resources, their versions, tombstones.
/// - `v2-samples`: quantity samples and their tombstones (same anchor counter).
/// - `v3-verifiable-records`: SMART Health Cards; types and dates in clear, the rest sealed.
/// - `v4-sealed-sources`: sources looked up by identity key, identifier and name sealed; the
///   anchor at which each record (and each deleted record or sample) was first added.
/// - `v5-consent`: apps, read grants, the audit log, one-time card shares.
/// - `v6-store-key`: the wrapped data key of an encrypted store.
/// - `v7-consent-categories`: every resource's consent category (``CategoryCoding``), and the
///   secret that seals the anchors apps see.
/// - `v8-credentials`: the server's credentials (codes, tokens, refresh tokens, sessions) as digests.
/// - `v9-category-release-index`: category, first-added anchor, resource type and FHIR release in
///   one index, so FHIR searches count without reading rows.
/// - `v10-providers`: provider connections (sealed: client secrets, keys and tokens) and the
///   checkpoint of a sync under way.
/// - `v11-tombstones-by-source`: tombstones indexed by source, so an import asks once whether
///   its source has any instead of deleting by identity batch after batch.
///
/// - `v12-category-clinical-date-index`: category, type and clinical date in one index, so a FHIR
///   search with a date counts and orders its page from the index.
/// - `v13-hosted-links`: the SMART Health Links the server hosts, their files (JWEs), the
///   single-use file locations handed out, and the access log.
///
/// `docs/storage.md` lists every column, in clear or sealed, and why.
enum SQLiteSchema {
    /// The name of the last migration this version knows.
    static var latestMigration: String { migrations.last!.name }

    /// A named step of the schema; applied once, in order, recorded in `grdb_migrations` (the
    /// table GRDB's migrator kept, so stores made before this engine stopped using GRDB open).
    struct Migration {
        let name: String
        let apply: (SQLiteConnection) throws -> Void
    }

    /// Applies the migrations the file lacks; fails on a file made by a newer version.
    static func migrate(_ db: SQLiteConnection, path: String, busyTimeout: TimeInterval, upTo last: String? = nil) throws {
        let all = migrations
        let known = all.map(\.name)
        let wanted = last.flatMap { name in all.firstIndex { $0.name == name }.map { Array(all[...$0]) } } ?? all
        func applied() throws -> [String] {
            try db.execute("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            return try db.rows("SELECT identifier FROM grdb_migrations", []).map { try $0.string(0) }
        }
        let done = try applied()
        if done.contains(where: { !known.contains($0) }) { throw HealthStoreError.unknownSchema(migration: "newer than \(latestMigration)") }
        guard wanted.contains(where: { !done.contains($0.name) }) else { return }
        // Two processes opening a new store at once must not both run the migrations.
        try MigrationLock.withLock(storePath: path, timeout: busyTimeout) {
            let done = try applied()
            for migration in wanted where !done.contains(migration.name) {
                // Tables are rebuilt with foreign keys off and checked before the commit.
                try db.execute("PRAGMA foreign_keys = OFF")
                defer { try? db.execute("PRAGMA foreign_keys = ON") }
                try db.execute("BEGIN IMMEDIATE")
                do {
                    try migration.apply(db)
                    if let broken = try db.rows("PRAGMA foreign_key_check", []).first {
                        throw HealthStoreError.database("migration \(migration.name) broke a reference in table \(try broken.string(0))")
                    }
                    _ = try db.rows("INSERT INTO grdb_migrations (identifier) VALUES (?1)", [.text(migration.name)])
                    try db.execute("COMMIT")
                } catch {
                    try? db.execute("ROLLBACK")
                    throw error
                }
            }
        }
    }

    /// The page size of a new file. FHIR resources are mostly 1–4 KB: with 4 KiB pages many
    /// leave a leaf page half empty and the larger ones take overflow chains, so a store of
    /// 2,800 downloaded resources (4.7 MB of JSON) took 7.6 MB of pages; with 16 KiB pages
    /// 7.0 MB, in a quarter as many log frames, and its commit wrote in 5 ms what took 10.
    static let newFilePageSize = 16384

    /// Switches a connection's file to the write-ahead log; a new (empty) file first gets
    /// ``newFilePageSize`` (an existing file keeps its pages: in WAL mode the pragma does
    /// nothing, and it must come before the switch).
    static func useLog(_ db: SQLiteConnection) throws {
        try db.execute("PRAGMA page_size = \(newFilePageSize)")
        try db.execute("PRAGMA journal_mode = WAL")
    }

    /// Brings a file up to and including one migration: how tests make stores as older
    /// versions left them.
    static func migrate(path: String, upTo last: String) throws {
        let db = try SQLiteConnection(path: path, busyTimeout: 10)
        try useLog(db)
        try migrate(db, path: path, busyTimeout: 10, upTo: last)
    }

    static var migrations: [Migration] {
        var m: [Migration] = []
        m.append(Migration(name: "v1-records") { db in
            try db.execute("""
                CREATE TABLE source (
                    id INTEGER PRIMARY KEY,
                    identifier TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL
                );
                CREATE TABLE anchor_counter (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    value INTEGER NOT NULL
                );
                INSERT INTO anchor_counter (id, value) VALUES (1, 0);
                CREATE TABLE resource (
                    id INTEGER PRIMARY KEY,
                    identity BLOB NOT NULL UNIQUE,
                    source_id INTEGER NOT NULL REFERENCES source(id),
                    resource_type TEXT NOT NULL,
                    clinical_type TEXT,
                    resource_id BLOB NOT NULL,
                    display_name BLOB NOT NULL,
                    fhir_version TEXT NOT NULL,
                    source_url BLOB,
                    clinical_date REAL,
                    clinical_date_text TEXT,
                    added_date REAL NOT NULL,
                    anchor INTEGER NOT NULL,
                    digest BLOB NOT NULL,
                    data BLOB NOT NULL
                );
                CREATE INDEX resource_by_type_added ON resource(clinical_type, added_date, id);
                CREATE INDEX resource_by_type_clinical ON resource(clinical_type, clinical_date, id);
                CREATE INDEX resource_by_anchor ON resource(anchor);
                CREATE INDEX resource_by_source ON resource(source_id, resource_type);
                CREATE INDEX resource_by_source_type_added ON resource(source_id, clinical_type, added_date, id);
                CREATE TABLE resource_version (
                    id INTEGER PRIMARY KEY,
                    resource_row INTEGER NOT NULL REFERENCES resource(id) ON DELETE CASCADE,
                    anchor INTEGER NOT NULL,
                    replaced_date REAL NOT NULL,
                    digest BLOB NOT NULL,
                    data BLOB NOT NULL
                );
                CREATE INDEX resource_version_by_row ON resource_version(resource_row);
                CREATE TABLE tombstone (
                    anchor INTEGER PRIMARY KEY,
                    identity BLOB NOT NULL,
                    source_id INTEGER NOT NULL,
                    resource_type TEXT NOT NULL,
                    clinical_type TEXT NOT NULL,
                    resource_id BLOB NOT NULL,
                    deleted_date REAL NOT NULL
                );
                CREATE INDEX tombstone_by_identity ON tombstone(identity);
                CREATE INDEX tombstone_by_type ON tombstone(clinical_type, anchor);
                """)
        })
        m.append(Migration(name: "v2-samples") { db in
            try db.execute("""
                CREATE TABLE quantity_sample (
                    id INTEGER PRIMARY KEY,
                    identity BLOB NOT NULL UNIQUE,
                    source_id INTEGER NOT NULL REFERENCES source(id),
                    quantity_type TEXT NOT NULL,
                    sample_uuid BLOB NOT NULL,
                    start_date REAL NOT NULL,
                    end_date REAL NOT NULL,
                    added_date REAL NOT NULL,
                    anchor INTEGER NOT NULL,
                    digest BLOB NOT NULL,
                    value BLOB NOT NULL,
                    unit BLOB NOT NULL,
                    device BLOB,
                    metadata BLOB NOT NULL,
                    signature_status BLOB NOT NULL
                );
                CREATE INDEX quantity_sample_by_type_start ON quantity_sample(quantity_type, start_date, id);
                CREATE INDEX quantity_sample_by_type_added ON quantity_sample(quantity_type, added_date, id);
                CREATE INDEX quantity_sample_by_source_type_start ON quantity_sample(source_id, quantity_type, start_date, id);
                CREATE INDEX quantity_sample_by_anchor ON quantity_sample(anchor);
                CREATE TABLE quantity_sample_tombstone (
                    anchor INTEGER PRIMARY KEY,
                    identity BLOB NOT NULL,
                    source_id INTEGER NOT NULL,
                    quantity_type TEXT NOT NULL,
                    sample_uuid BLOB NOT NULL,
                    deleted_date REAL NOT NULL
                );
                CREATE INDEX quantity_sample_tombstone_by_identity ON quantity_sample_tombstone(identity);
                CREATE INDEX quantity_sample_tombstone_by_type ON quantity_sample_tombstone(quantity_type, anchor);
                """)
        })
        m.append(Migration(name: "v3-verifiable-records") { db in
            try db.execute("""
                CREATE TABLE verifiable_record (
                    id INTEGER PRIMARY KEY,
                    identity BLOB NOT NULL UNIQUE,
                    record_types TEXT NOT NULL,
                    issued_date REAL NOT NULL,
                    relevant_date REAL,
                    expiration_date REAL,
                    added_date REAL NOT NULL,
                    anchor INTEGER NOT NULL,
                    status TEXT NOT NULL,
                    status_detail BLOB NOT NULL,
                    details BLOB NOT NULL,
                    jws BLOB NOT NULL
                );
                CREATE INDEX verifiable_record_by_relevant_date ON verifiable_record(relevant_date, id);
                """)
        })
        m.append(Migration(name: "v4-sealed-sources") { db in
            // Stores before v4 are never encrypted, so their identity keys are the plain ones.
            let rows = try db.rows("SELECT id, identifier, name FROM source", [])
            try db.execute("""
                CREATE TABLE source_v4 (
                    id INTEGER PRIMARY KEY,
                    identity BLOB NOT NULL UNIQUE,
                    identifier BLOB NOT NULL,
                    name BLOB NOT NULL
                )
                """)
            for row in rows {
                let identifier = try row.string(1)
                let name = try row.string(2)
                let values: [SQLValue] = [
                    .int(try row.int(0)), .blob(ConsentCoding.sourceIdentity(identifier, PlainSealer())), .blob(Data(identifier.utf8)), .blob(Data(name.utf8)),
                ]
                _ = try db.rows("INSERT INTO source_v4 (id, identity, identifier, name) VALUES (?1, ?2, ?3, ?4)", values)
            }
            try db.execute("""
                DROP TABLE source;
                ALTER TABLE source_v4 RENAME TO source;
                ALTER TABLE resource ADD COLUMN added_anchor INTEGER NOT NULL DEFAULT 0;
                UPDATE resource SET added_anchor = anchor;
                ALTER TABLE tombstone ADD COLUMN added_anchor INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE quantity_sample_tombstone ADD COLUMN added_anchor INTEGER NOT NULL DEFAULT 0;
                """)
        })
        m.append(Migration(name: "v5-consent") { db in
            try db.execute("""
                CREATE TABLE app (
                    id TEXT PRIMARY KEY,
                    secret_digest BLOB NOT NULL,
                    registered_date REAL NOT NULL,
                    details BLOB NOT NULL
                );
                CREATE TABLE read_grant (
                    app_id TEXT NOT NULL REFERENCES app(id) ON DELETE CASCADE,
                    data_type TEXT NOT NULL,
                    decision TEXT NOT NULL,
                    new_data TEXT NOT NULL,
                    approved_through INTEGER NOT NULL,
                    changed_anchor INTEGER NOT NULL,
                    decided_date REAL NOT NULL,
                    PRIMARY KEY (app_id, data_type)
                );
                CREATE TABLE audit_entry (
                    id INTEGER PRIMARY KEY,
                    app_id TEXT NOT NULL,
                    date REAL NOT NULL,
                    operation TEXT NOT NULL,
                    data_types TEXT NOT NULL,
                    record_count INTEGER NOT NULL
                );
                CREATE INDEX audit_entry_by_app ON audit_entry(app_id, id);
                CREATE TABLE card_share (
                    token_digest BLOB PRIMARY KEY,
                    app_id TEXT NOT NULL,
                    created_date REAL NOT NULL,
                    cards BLOB NOT NULL
                );
                """)
        })
        m.append(Migration(name: "v6-store-key") { db in
            try db.execute("""
                CREATE TABLE store_key (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    key_id TEXT NOT NULL,
                    method TEXT NOT NULL,
                    kdf_log_n INTEGER,
                    kdf_r INTEGER,
                    kdf_p INTEGER,
                    salt BLOB NOT NULL,
                    wrapped_key BLOB NOT NULL,
                    key_check BLOB NOT NULL,
                    changed_date REAL NOT NULL
                );
                """)
        })
        m.append(Migration(name: "v7-consent-categories") { db in
            try db.execute("""
                ALTER TABLE resource ADD COLUMN category TEXT NOT NULL DEFAULT '\(CategoryCoding.pending)';
                UPDATE resource SET category = \(CategoryCoding.migrationExpression);
                CREATE INDEX resource_by_category ON resource(category, added_anchor);
                ALTER TABLE app ADD COLUMN access_revision INTEGER NOT NULL DEFAULT 0;
                CREATE TABLE anchor_secret (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    secret BLOB NOT NULL
                );
                """)
            _ = try db.rows("INSERT INTO anchor_secret (id, secret) VALUES (1, ?1)", [.blob(AnchorSealer.newSecret())])
        })
        m.append(Migration(name: "v8-credentials") { db in
            try db.execute("""
                CREATE TABLE oauth_credential (
                    kind TEXT NOT NULL,
                    digest BLOB NOT NULL,
                    app_id TEXT REFERENCES app(id) ON DELETE CASCADE,
                    family BLOB NOT NULL,
                    expires REAL NOT NULL,
                    spent INTEGER NOT NULL DEFAULT 0,
                    details BLOB NOT NULL,
                    PRIMARY KEY (kind, digest)
                );
                CREATE INDEX oauth_credential_by_family ON oauth_credential(family);
                CREATE INDEX oauth_credential_by_app ON oauth_credential(app_id);
                CREATE INDEX oauth_credential_by_expiry ON oauth_credential(expires);
                """)
        })
        m.append(Migration(name: "v9-category-release-index") { db in
            // FHIR searches filter a category by resource type and FHIR release and count the
            // matches: with both in the index the count never reads a row.
            try db.execute("""
                CREATE INDEX resource_by_category_release ON resource(category, added_anchor, resource_type, fhir_version);
                DROP INDEX resource_by_category;
                """)
        })
        m.append(Migration(name: "v10-providers") { db in
            try db.execute("""
                CREATE TABLE provider_connection (
                    id TEXT PRIMARY KEY,
                    added_date REAL NOT NULL,
                    details BLOB NOT NULL,
                    checkpoint BLOB
                );
                """)
        })
        m.append(Migration(name: "v11-tombstones-by-source") { db in
            try db.execute("CREATE INDEX tombstone_by_source ON tombstone(source_id)")
        })
        m.append(Migration(name: "v12-category-clinical-date-index") { db in
            // A FHIR search with a date (each one new, so no page cache answers it) counts its
            // matches and orders its page from this index alone: every column the filter and
            // the order read is in it, so only the page's own rows are read from the table.
            try db.execute("""
                CREATE INDEX resource_by_category_clinical
                    ON resource(category, resource_type, clinical_date, added_anchor, fhir_version, clinical_date_text);
                """)
        })
        m.append(Migration(name: "v13-hosted-links") { db in
            // A link's URL and its locations are stored only as digests; labels, what was
            // shared, recipients, a long-term link's key and the passcode hash are sealed; the
            // files are the JWEs served. Without L a link has no secret (the CHECK holds it).
            try db.execute("""
                CREATE TABLE hosted_link (
                    handle TEXT PRIMARY KEY,
                    lookup_digest BLOB NOT NULL UNIQUE,
                    long_term INTEGER NOT NULL,
                    passcode INTEGER NOT NULL,
                    direct INTEGER NOT NULL,
                    created REAL NOT NULL,
                    expires REAL NOT NULL,
                    revoked REAL,
                    ended INTEGER NOT NULL DEFAULT 0,
                    details BLOB NOT NULL,
                    content_anchor INTEGER NOT NULL,
                    secret BLOB,
                    passcode_hash BLOB,
                    passcode_limit INTEGER NOT NULL DEFAULT 0 CHECK (passcode_limit BETWEEN 0 AND 10),
                    passcode_failures INTEGER NOT NULL DEFAULT 0,
                    passcode_pending INTEGER NOT NULL DEFAULT 0,
                    CHECK (long_term = 1 OR secret IS NULL),
                    CHECK (passcode + direct < 2)
                );
                CREATE INDEX hosted_link_by_expiry ON hosted_link(ended, expires);
                CREATE TABLE hosted_link_file (
                    handle TEXT NOT NULL REFERENCES hosted_link(handle) ON DELETE CASCADE,
                    ordinal INTEGER NOT NULL,
                    content_type TEXT NOT NULL,
                    updated REAL NOT NULL,
                    jwe BLOB NOT NULL,
                    PRIMARY KEY (handle, ordinal)
                );
                CREATE TABLE hosted_link_location (
                    token_digest BLOB PRIMARY KEY,
                    handle TEXT NOT NULL REFERENCES hosted_link(handle) ON DELETE CASCADE,
                    ordinal INTEGER NOT NULL,
                    expires REAL NOT NULL,
                    spent INTEGER NOT NULL DEFAULT 0,
                    recipient BLOB NOT NULL
                );
                CREATE INDEX hosted_link_location_by_link ON hosted_link_location(handle);
                CREATE INDEX hosted_link_location_by_expiry ON hosted_link_location(expires);
                CREATE TABLE hosted_link_access (
                    id INTEGER PRIMARY KEY,
                    handle TEXT NOT NULL REFERENCES hosted_link(handle) ON DELETE CASCADE,
                    date REAL NOT NULL,
                    recipient BLOB,
                    event TEXT NOT NULL,
                    status INTEGER NOT NULL,
                    ordinal INTEGER
                );
                CREATE INDEX hosted_link_access_by_link ON hosted_link_access(handle, id);
                """)
        })
        m.append(Migration(name: "v14-history-windows") { db in
            // A grant's history window in days (NULL: all recorded data). Tombstones keep the
            // date of what they replace (a record's clinical or added date, a sample's start),
            // so a deletion outside an app's window is as invisible as the record was; older
            // tombstones have none and stay hidden from windowed grants. The person's settings
            // (how often apps' access is reviewed) are in the clear: they say nothing of the records.
            // The index makes a windowed read seek to the window's start: without it, a list
            // outside the window would scan the records before it, and its time would tell how
            // many there are. Which medications the person picked for an app is sealed: an
            // entry's id is a hash of its RxNorm code, easily reversed. A MedicationAdministration
            // is a medication record now (it was medication details).
            try db.execute("""
                ALTER TABLE read_grant ADD COLUMN history_days INTEGER CHECK (history_days BETWEEN 1 AND 36500);
                ALTER TABLE tombstone ADD COLUMN dated REAL;
                ALTER TABLE quantity_sample_tombstone ADD COLUMN dated REAL;
                CREATE TABLE person_setting (name TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE INDEX resource_by_category_window ON resource(category, COALESCE(clinical_date, added_date));
                CREATE TABLE medication_choice (
                    app_id TEXT PRIMARY KEY REFERENCES app(id) ON DELETE CASCADE,
                    entries BLOB NOT NULL
                );
                UPDATE resource SET clinical_type = 'medication', category = 'medication' WHERE resource_type = 'MedicationAdministration';
                CREATE TABLE medication_note (entry_key BLOB PRIMARY KEY, details BLOB NOT NULL);
                """)
        })
        m.append(Migration(name: "v15-passkeys") { db in
            // The person's passkeys: a credential id and public key are random and public by
            // design, so they stay in the clear (a sign-in looks its passkey up by id); the
            // person's name for it is sealed. Recovery codes are kept as digests, each deleted
            // when used.
            try db.execute("""
                CREATE TABLE passkey (
                    credential_id BLOB PRIMARY KEY,
                    public_key BLOB NOT NULL,
                    sign_count INTEGER NOT NULL CHECK (sign_count BETWEEN 0 AND 4294967295),
                    name BLOB NOT NULL,
                    created REAL NOT NULL,
                    last_used REAL,
                    backup_eligible INTEGER NOT NULL
                );
                CREATE TABLE recovery_code (digest BLOB PRIMARY KEY);
                """)
        })
        m.append(Migration(name: "v16-household") { db in
            // Proxy arrangements between people of one server (ids and the operator's names, no
            // health data), and what proxies did, the action sealed (it names pages and records).
            try db.execute("""
                CREATE TABLE household (
                    other_id TEXT NOT NULL,
                    role TEXT NOT NULL,
                    other_name TEXT NOT NULL,
                    created REAL NOT NULL,
                    PRIMARY KEY (other_id, role)
                );
                CREATE TABLE proxy_action (
                    actor_id TEXT NOT NULL,
                    actor_name TEXT NOT NULL,
                    action BLOB NOT NULL,
                    at REAL NOT NULL
                );
                CREATE INDEX proxy_action_at ON proxy_action (at);
                """)
        })
        m.append(Migration(name: "v17-category-search-indexes") { db in
            // A FHIR search with a new date each time counts in `resource_by_category_clinical`
            // and reads its page through `resource_by_category_page`, touching the table only
            // for the page's rows: the count seeks to category, type, release (as the search
            // writes it, `substr(fhir_version, 1, 4)`) and the date range; the page walks one
            // category in the order it is served (first-added anchor, then id) testing type,
            // release and dates in the index. The count's index holds `fhir_version` too, or
            // SQLite reads every row to evaluate the expression it already holds.
            try db.execute("""
                DROP INDEX IF EXISTS resource_by_category_release;
                CREATE INDEX resource_by_category_page
                    ON resource(category, added_anchor, id, resource_type, fhir_version, clinical_date, clinical_date_text, added_date);
                DROP INDEX IF EXISTS resource_by_category_clinical;
                CREATE INDEX resource_by_category_clinical
                    ON resource(category, resource_type, substr(fhir_version, 1, 4), clinical_date, added_anchor, clinical_date_text, added_date, fhir_version);
                """)
        })
        m.append(Migration(name: "v18-link-makers") { db in
            // Which proxy made a link (their id, sealed like everything that names a person):
            // ending the proxy's arrangement revokes the links they made.
            try db.execute("ALTER TABLE hosted_link ADD COLUMN made_by BLOB")
        })
        return m
    }
}
