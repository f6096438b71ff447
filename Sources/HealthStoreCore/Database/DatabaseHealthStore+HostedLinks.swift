import Foundation

/// Hosted SMART Health Links. Writes take short transactions of their own, never the store's
/// import lock: serving a link never waits for an import. Dates, flags, counters and digests
/// are in the clear; everything that names the person or could open a file is sealed.
extension DatabaseHealthStore {
    private static let linkColumns =
        "handle, long_term, passcode, direct, created, expires, revoked, ended, details, content_anchor, passcode_limit, passcode_failures"

    /// What is sealed in `details`.
    private struct LinkDetails: Codable {
        var label: String?
        var content: HostedLinkContent
    }

    public func insertHostedLink(_ new: NewHostedLink) async throws {
        let link = new.link
        if new.longTermSecret != nil && !link.longTerm { throw HealthStoreError.invalidArgument("only a long-term link keeps a secret") }
        if link.passcodeLimit < 0 || link.passcodeLimit > LinkPasscode.maximumAttempts {
            throw HealthStoreError.invalidArgument("a link allows 0 to \(LinkPasscode.maximumAttempts) wrong passcodes, not \(link.passcodeLimit)")
        }
        if link.passcode != (new.passcode != nil) { throw HealthStoreError.invalidArgument("a passcode hash goes with flag P, and only with it") }
        let details = try JSONEncoder().encode(LinkDetails(label: link.label, content: link.content))
        var q = sql("INSERT INTO hosted_link (")
        q += q.personColumn + "handle, lookup_digest, long_term, passcode, direct, created, expires, details, content_anchor, secret, passcode_hash, passcode_limit, made_by"
        q += ") VALUES (" + q.personValue + q.bind(link.handle) + ", " + q.bind(new.lookupDigest) + ", " + q.bind(Int64(link.longTerm ? 1 : 0)) + ", "
        q += q.bind(Int64(link.passcode ? 1 : 0)) + ", " + q.bind(Int64(link.direct ? 1 : 0)) + ", " + q.bind(link.created.timeIntervalSince1970) + ", "
        q += q.bind(link.expires.timeIntervalSince1970) + ", " + q.bind(try sealer.seal(details)) + ", " + q.bind(link.contentAnchor) + ", "
        q += q.bind(try new.longTermSecret.map(sealer.seal)) + ", " + q.bind(try new.passcode.map { try sealer.seal($0.stored) }) + ", "
        q += q.bind(Int64(link.passcodeLimit)) + ", " + q.bind(try new.madeBy.map { try sealer.seal(Data($0.utf8)) }) + ") ON CONFLICT DO NOTHING RETURNING handle"
        var files: [SQLStatement] = []
        for (ordinal, jwe) in new.jwes.enumerated() {
            let info = link.files.first { $0.ordinal == ordinal }
            var f = sql("INSERT INTO hosted_link_file (")
            f += f.personColumn + "handle, ordinal, content_type, updated, jwe) VALUES (" + f.personValue + f.bind(link.handle) + ", "
            f += f.bind(Int64(ordinal)) + ", " + f.bind(info?.contentType ?? "application/octet-stream") + ", "
            f += f.bind((info?.updated ?? link.created).timeIntervalSince1970) + ", " + f.bind(jwe) + ")"
            files.append(f)
        }
        let (insert, inserts) = (q, files)
        try await linkTransaction { session in
            guard try await session.row(insert) != nil else { throw HealthStoreError.invalidArgument("a link with handle \(link.handle) or the same URL exists") }
            for f in inserts { try await session.run(f) }
        }
    }

    public func hostedLinks(includeEnded: Bool) async throws -> [HostedLink] {
        var q = sql("SELECT " + Self.linkColumns + " FROM hosted_link WHERE ")
        q += q.scope() + (includeEnded ? "" : " AND ended = 0 AND revoked IS NULL") + " ORDER BY created DESC, handle"
        let final = q
        return try await read { session in
            var links: [HostedLink] = []
            for row in try await session.rows(final) { links.append(try await self.link(row, session)) }
            return links
        }
    }

    public func hostedLink(handle: String) async throws -> HostedLink? {
        var q = sql("SELECT " + Self.linkColumns + " FROM hosted_link WHERE ")
        q += q.scope() + " AND handle = " + q.bind(handle)
        return try await oneLink(q)
    }

    public func hostedLink(lookupDigest: Data) async throws -> HostedLink? {
        var q = sql("SELECT " + Self.linkColumns + " FROM hosted_link WHERE ")
        q += q.scope() + " AND lookup_digest = " + q.bind(lookupDigest)
        return try await oneLink(q)
    }

    public func hostedLinkStatus(lookupDigest: Data) async throws -> HostedLinkStatus? {
        var q = sql("SELECT handle, long_term, passcode, direct, expires, revoked, ended, passcode_limit, passcode_failures FROM hosted_link WHERE ")
        q += q.scope() + " AND lookup_digest = " + q.bind(lookupDigest)
        let final = q
        return try await read { session in
            guard let row = try await session.row(final) else { return nil }
            return HostedLinkStatus(
                handle: try row.string(0), longTerm: try row.bool(1), passcode: try row.bool(2), direct: try row.bool(3),
                expires: Date(timeIntervalSince1970: try row.double(4)), revoked: try row.optionalDouble(5).map(Date.init(timeIntervalSince1970:)),
                ended: try row.bool(6), passcodeLimit: Int(try row.int(7)), passcodeFailures: Int(try row.int(8)))
        }
    }

    public func hostedLinkFile(handle: String, ordinal: Int) async throws -> HostedLinkFile? {
        if isLocked { throw HealthStoreError.storeLocked(path: location) }
        if let known = remembered.linkFile(handle, ordinal) { return known }
        var q = sql("SELECT f.ordinal, f.content_type, f.updated, f.jwe, l.long_term FROM hosted_link_file f JOIN hosted_link l ON ")
        q += q.sameScope("l", "f") + "l.handle = f.handle WHERE " + q.scope("f") + " AND f.handle = " + q.bind(handle) + " AND f.ordinal = " + q.bind(Int64(ordinal))
        let final = q
        let file = try await read { session -> (HostedLinkFile, Bool)? in
            guard let row = try await session.row(final) else { return nil }
            let jwe = try row.data(3)
            return (HostedLinkFile(info: try Self.fileInfo(row, byteCount: jwe.count), jwe: jwe), try row.bool(4))
        }
        guard let (found, longTerm) = file else { return nil }
        // Only a long-term link's files change; the others are kept until the link ends.
        if !longTerm { remembered.keepLinkFile(handle, found) }
        return found
    }

    public func longTermSecret(handle: String) async throws -> Data? {
        var q = sql("SELECT secret FROM hosted_link WHERE ")
        q += q.scope() + " AND handle = " + q.bind(handle) + " AND long_term = 1 AND ended = 0"
        let final = q
        let sealer = self.sealer
        return try await read { session in try await session.row(final)?.openedData(0, sealer) }
    }

    public func reservePasscodeAttempt(handle: String, now: Date) async throws -> PasscodeReservation {
        var reserve = sql("UPDATE hosted_link SET passcode_pending = passcode_pending + 1 WHERE ")
        reserve += reserve.scope() + " AND handle = " + reserve.bind(handle) + " AND passcode = 1 AND ended = 0 AND revoked IS NULL AND expires > "
        reserve += reserve.bind(now.timeIntervalSince1970) + " AND passcode_failures + passcode_pending < passcode_limit RETURNING passcode_hash"
        var state = sql("SELECT passcode_failures < passcode_limit AND ended = 0 AND revoked IS NULL AND expires > ")
        state += state.bind(now.timeIntervalSince1970) + " FROM hosted_link WHERE " + state.scope() + " AND handle = " + state.bind(handle) + " AND passcode = 1"
        let (r, s) = (reserve, state)
        let sealer = self.sealer
        return try await linkTransaction(durable: true) { session in
            if let row = try await session.row(r) {
                guard let hash = try row.openedData(0, sealer) else { throw HealthStoreError.corruptRecord("a passcode link has no passcode hash") }
                return .reserved(try LinkPasscode(stored: hash))
            }
            return try await session.row(s)?.bool(0) == true ? .busy : .inactive
        }
    }

    public func settlePasscodeAttempt(handle: String, correct: Bool) async throws -> Int {
        var q = sql("UPDATE hosted_link SET passcode_pending = passcode_pending - 1")
        if !correct { q += ", passcode_failures = passcode_failures + 1" }
        q += " WHERE " + q.scope() + " AND handle = " + q.bind(handle) + " AND passcode_pending > 0 RETURNING passcode_limit - passcode_failures"
        let settle = q
        let wipe = wipeStatements(handle: handle, revokedAt: nil)
        let left = try await linkTransaction(durable: true) { session in
            guard let row = try await session.row(settle) else { throw HealthStoreError.invalidArgument("no passcode attempt of link \(handle) is held") }
            let left = Int(try row.int(0))
            // The last wrong attempt disables the link: nothing it held stays.
            if left <= 0 && !correct { for w in wipe { try await session.run(w) } }
            return max(0, left)
        }
        if left == 0 && !correct { remembered.forgetLinkFiles(handle) }
        return left
    }

    public func replaceHostedLinkFiles(handle: String, fromAnchor: Int64, toAnchor: Int64, jwes: [Int: Data], date: Date) async throws -> Bool {
        var claim = sql("UPDATE hosted_link SET content_anchor = ")
        claim += claim.bind(toAnchor) + " WHERE " + claim.scope() + " AND handle = " + claim.bind(handle) + " AND content_anchor = "
        claim += claim.bind(fromAnchor) + " AND ended = 0 RETURNING handle"
        var updates: [SQLStatement] = []
        for (ordinal, jwe) in jwes.sorted(by: { $0.key < $1.key }) {
            var u = sql("UPDATE hosted_link_file SET jwe = ")
            u += u.bind(jwe) + ", updated = " + u.bind(date.timeIntervalSince1970) + " WHERE " + u.scope() + " AND handle = " + u.bind(handle)
            u += " AND ordinal = " + u.bind(Int64(ordinal))
            updates.append(u)
        }
        let (c, us) = (claim, updates)
        return try await linkTransaction { session in
            guard try await session.row(c) != nil else { return false }
            for u in us { try await session.run(u) }
            return true
        }
    }

    public func issueLinkLocations(_ locations: [NewLinkLocation]) async throws {
        var inserts: [SQLStatement] = []
        for l in locations {
            var q = sql("INSERT INTO hosted_link_location (")
            q += q.personColumn + "token_digest, handle, ordinal, expires, recipient) VALUES (" + q.personValue + q.bind(l.tokenDigest) + ", "
            q += q.bind(l.handle) + ", " + q.bind(Int64(l.ordinal)) + ", " + q.bind(l.expires.timeIntervalSince1970) + ", "
            q += q.bind(try sealer.seal(Data(l.recipient.utf8))) + ")"
            inserts.append(q)
        }
        let final = inserts
        guard !final.isEmpty else { return }
        try await linkTransaction { session in for q in final { try await session.run(q) } }
    }

    public func useLinkLocation(tokenDigest: Data, now: Date) async throws -> LinkLocationUse {
        var spend = sql("UPDATE hosted_link_location SET spent = 1 WHERE ")
        spend += spend.scope() + " AND token_digest = " + spend.bind(tokenDigest) + " AND spent = 0 AND expires > "
        spend += spend.bind(now.timeIntervalSince1970) + " RETURNING handle, ordinal, recipient"
        var find = sql("SELECT handle, spent FROM hosted_link_location WHERE ")
        find += find.scope() + " AND token_digest = " + find.bind(tokenDigest)
        let (s, f) = (spend, find)
        let sealer = self.sealer
        return try await linkTransaction { session in
            if let row = try await session.row(s) {
                return .used(handle: try row.string(0), ordinal: Int(try row.int(1)), recipient: try row.opened(2, sealer))
            }
            guard let row = try await session.row(f) else { return .missing }
            return try row.bool(1) ? .replayed(handle: try row.string(0)) : .expired(handle: try row.string(0))
        }
    }

    public func revokeHostedLink(handle: String, at date: Date) async throws -> LinkRevocation {
        var find = sql("SELECT revoked, ended, expires FROM hosted_link WHERE ")
        find += find.scope() + " AND handle = " + find.bind(handle)
        var mark = sql("UPDATE hosted_link SET revoked = ")
        mark += mark.bind(date.timeIntervalSince1970) + " WHERE " + mark.scope() + " AND handle = " + mark.bind(handle)
        let (f, m) = (find, mark)
        let wipe = wipeStatements(handle: handle, revokedAt: date)
        let outcome = try await linkTransaction { session -> LinkRevocation in
            guard let row = try await session.row(f) else { return .missing }
            if let revoked = try row.optionalDouble(0) { return .alreadyEnded(Date(timeIntervalSince1970: revoked)) }
            if try row.bool(1) { return .alreadyEnded(Date(timeIntervalSince1970: min(try row.double(2), date.timeIntervalSince1970))) }
            try await session.run(m)
            for w in wipe { try await session.run(w) }
            return .revoked
        }
        if outcome == .revoked {
            remembered.forgetLinkFiles(handle)
            try? await database.scrub(vacuum: false)
        }
        return outcome
    }

    public func revokeHostedLinks(madeBy maker: String, at date: Date) async throws -> Int {
        // `made_by` is sealed (it names a person), so the few active links a proxy made are
        // found by opening it, not by an equality in SQL.
        var find = sql("SELECT handle, made_by FROM hosted_link WHERE ")
        find += find.scope() + " AND made_by IS NOT NULL AND revoked IS NULL AND ended = 0"
        let f = find
        let sealer = self.sealer
        let handles = try await read { session in
            try await session.rows(f).compactMap { row -> String? in
                try row.openedData(1, sealer) == Data(maker.utf8) ? try row.string(0) : nil
            }
        }
        var revoked = 0
        for handle in handles where try await revokeHostedLink(handle: handle, at: date) == .revoked { revoked += 1 }
        return revoked
    }

    public func endExpiredHostedLinks(at date: Date) async throws -> Int {
        var find = sql("SELECT handle FROM hosted_link WHERE ")
        find += find.scope() + " AND ended = 0 AND expires <= " + find.bind(date.timeIntervalSince1970)
        var dead = sql("DELETE FROM hosted_link_location WHERE ")
        dead += dead.scope() + " AND (expires <= " + dead.bind(date.timeIntervalSince1970) + " OR spent = 1)"
        let (f, d) = (find, dead)
        let ended = try await linkTransaction { session -> [String] in
            let handles = try await session.rows(f).map { try $0.string(0) }
            for handle in handles { for w in self.wipeStatements(handle: handle, revokedAt: nil) { try await session.run(w) } }
            try await session.run(d)
            return handles
        }
        for handle in ended { remembered.forgetLinkFiles(handle) }
        if !ended.isEmpty { try? await database.scrub(vacuum: false) }
        return ended.count
    }

    public func appendLinkAccess(_ entry: LinkAccess) async throws {
        if isLocked { throw HealthStoreError.storeLocked(path: location) }
        if linkAccesses.append(entry) { scheduleLinkAccessWrite() }
    }

    /// Writes the waiting link accesses in one transaction (see ``BatchQueue``); on failure they
    /// wait for the next try.
    public func flushLinkAccess() async throws {
        if let error = await linkAccesses.serialized({ [self] in
            do {
                try await writeLinkAccessBatch()
                return nil
            } catch { return error }
        }) {
            throw error
        }
    }

    private func writeLinkAccessBatch() async throws {
        let batch = linkAccesses.take()
        guard !batch.isEmpty else { return }
        var statements: [SQLStatement] = []
        for entry in batch {
            var q = sql("INSERT INTO hosted_link_access (")
            q += q.personColumn + "handle, date, recipient, event, status, ordinal) SELECT " + q.personValue + q.bind(entry.handle) + ", "
            q += q.bind(entry.date.timeIntervalSince1970) + ", " + q.bind(try entry.recipient.map { try sealer.seal(Data($0.utf8)) }) + ", "
            q += q.bind(entry.event.rawValue) + ", " + q.bind(Int64(entry.status)) + ", " + q.bind(entry.ordinal.map(Int64.init))
            // A link deleted meanwhile (never, today) takes its late entries with it.
            q += " WHERE EXISTS (SELECT 1 FROM hosted_link WHERE " + q.scope() + " AND handle = " + q.bind(entry.handle) + ")"
            statements.append(q)
        }
        let final = statements
        do {
            if isLocked { throw HealthStoreError.storeLocked(path: location) }
            try await guarded { try await database.logWrite(final) }
            linkAccesses.written()
        } catch {
            if linkAccesses.restore(batch) { scheduleLinkAccessWrite() }
            throw error
        }
    }

    private func scheduleLinkAccessWrite() {
        let wait = linkAccesses.wait
        // As for the audit log: one clock for the stores of a shared database.
        if wait == BatchQueue<LinkAccess>.delay, let ticker = database.logTicker {
            ticker.schedule { [self] in try? await self.flushLinkAccess() }
            return
        }
        Task {
            try? await Task.sleep(for: wait)
            try? await self.flushLinkAccess()
        }
    }

    public func linkAccessLog(handle: String, newestFirst limit: Int) async throws -> [LinkAccess] {
        try await flushLinkAccess()
        var q = sql("SELECT date, recipient, event, status, ordinal FROM hosted_link_access WHERE ")
        q += q.scope() + " AND handle = " + q.bind(handle) + " ORDER BY id DESC LIMIT \(max(0, limit))"
        let final = q
        let sealer = self.sealer
        return try await read { session in
            try await session.rows(final).map { row in
                guard let event = LinkAccess.Event(rawValue: try row.string(2)) else {
                    throw HealthStoreError.corruptRecord("a link access has an unknown event \(try row.string(2))")
                }
                return LinkAccess(
                    handle: handle, date: Date(timeIntervalSince1970: try row.double(0)),
                    recipient: try row.openedData(1, sealer).map { String(decoding: $0, as: UTF8.self) }, event: event, status: Int(try row.int(3)),
                    ordinal: try row.optionalInt(4).map(Int.init))
            }
        }
    }

    // MARK: Plumbing

    /// What ending a link deletes: its files, locations, key and passcode hash.
    private func wipeStatements(handle: String, revokedAt: Date?) -> [SQLStatement] {
        var files = sql("DELETE FROM hosted_link_file WHERE ")
        files += files.scope() + " AND handle = " + files.bind(handle)
        var locations = sql("DELETE FROM hosted_link_location WHERE ")
        locations += locations.scope() + " AND handle = " + locations.bind(handle)
        var row = sql("UPDATE hosted_link SET ended = 1, secret = NULL, passcode_hash = NULL WHERE ")
        row += row.scope() + " AND handle = " + row.bind(handle)
        return [files, locations, row]
    }

    private func oneLink(_ q: SQLStatement) async throws -> HostedLink? {
        try await read { session in
            guard let row = try await session.row(q) else { return nil }
            return try await self.link(row, session)
        }
    }

    /// A link from its row, with its files' list when a session to read it is given.
    private func link(_ row: SQLRow, _ session: (any SQLSession)?) async throws -> HostedLink {
        let handle = try row.string(0)
        let sealed = try row.data(8)
        let details: LinkDetails
        do {
            if let known = remembered.linkDetails(handle, sealed: sealed) {
                details = LinkDetails(label: known.label, content: known.content)
            } else {
                details = try JSONDecoder().decode(LinkDetails.self, from: try sealer.open(sealed))
                remembered.keepLinkDetails(handle, sealed: sealed, label: details.label, content: details.content)
            }
        } catch let error as HealthStoreError {
            throw error
        } catch {
            throw HealthStoreError.corruptRecord("link \(handle) has damaged details")
        }
        var files: [HostedLinkFileInfo] = []
        if let session {
            var q = sql("SELECT ordinal, content_type, updated, length(jwe) FROM hosted_link_file WHERE ")
            q += q.scope() + " AND handle = " + q.bind(handle) + " ORDER BY ordinal"
            files = try await session.rows(q).map { try Self.fileInfo($0, byteCount: Int(try $0.int(3))) }
        }
        return HostedLink(
            handle: handle, longTerm: try row.bool(1), passcode: try row.bool(2), direct: try row.bool(3), label: details.label,
            content: details.content, created: Date(timeIntervalSince1970: try row.double(4)), expires: Date(timeIntervalSince1970: try row.double(5)),
            revoked: try row.optionalDouble(6).map(Date.init(timeIntervalSince1970:)), ended: try row.bool(7), contentAnchor: try row.int(9),
            passcodeLimit: Int(try row.int(10)), passcodeFailures: Int(try row.int(11)), files: files)
    }

    private static func fileInfo(_ row: SQLRow, byteCount: Int) throws -> HostedLinkFileInfo {
        HostedLinkFileInfo(
            ordinal: Int(try row.int(0)), contentType: try row.string(1), updated: Date(timeIntervalSince1970: try row.double(2)), byteCount: byteCount)
    }

    private func linkTransaction<T: Sendable>(durable: Bool = false, _ body: (any SQLSession) async throws -> T) async throws -> T {
        if isLocked { throw HealthStoreError.storeLocked(path: location) }
        let statements = self.statements
        if durable { return try await guarded { try await database.durableTransaction { try await body(statements.counted($0)) } } }
        return try await guarded { try await database.transaction { try await body(statements.counted($0)) } }
    }
}
