import Foundation

extension DatabaseHealthStore {
    public func householdMembers() async throws -> [HouseholdMember] {
        var q = sql("SELECT other_id, other_name, role, created FROM household WHERE ")
        q += q.scope() + " ORDER BY created, other_id, role"
        let final = q
        return try await read { session in
            try await session.rows(final).compactMap { row in
                guard let role = HouseholdMember.Role(rawValue: try row.string(2)) else { return nil }
                return HouseholdMember(id: try row.string(0), name: try row.string(1), role: role, since: Date(timeIntervalSince1970: try row.double(3)))
            }
        }
    }

    public func saveHouseholdMember(_ member: HouseholdMember) async throws {
        var q = sql("INSERT INTO household (")
        q += q.personColumn + "other_id, role, other_name, created) VALUES (" + q.personValue + q.bind(member.id) + ", " + q.bind(member.role.rawValue)
        q += ", " + q.bind(member.name) + ", " + q.bind(member.since.timeIntervalSince1970) + ") ON CONFLICT (" + q.personColumn
        q += "other_id, role) DO UPDATE SET other_name = excluded.other_name"
        let final = q
        try await write { w in try await w.session.run(final) }
    }

    public func removeHouseholdMember(id: String, role: HouseholdMember.Role) async throws -> Bool {
        var q = sql("DELETE FROM household WHERE ")
        q += q.scope() + " AND other_id = " + q.bind(id) + " AND role = " + q.bind(role.rawValue) + " RETURNING other_id"
        let final = q
        return try await write { w in try await w.session.rows(final).count == 1 }
    }

    public func recordProxyAction(_ action: ProxyAction) async throws {
        var q = sql("INSERT INTO proxy_action (")
        q += q.personColumn + "actor_id, actor_name, action, at) VALUES (" + q.personValue + q.bind(action.actorID) + ", " + q.bind(action.actorName)
        q += ", " + q.bind(try sealer.seal(Data(action.action.utf8))) + ", " + q.bind(action.date.timeIntervalSince1970) + ")"
        let final = q
        try await write { w in try await w.session.run(final) }
    }

    public func proxyActions(limit: Int) async throws -> [ProxyAction] {
        var q = sql("SELECT actor_id, actor_name, action, at FROM proxy_action WHERE ")
        q += q.scope() + " ORDER BY at DESC LIMIT " + q.bind(Int64(max(0, limit)))
        let final = q
        let sealer = self.sealer
        return try await read { session in
            try await session.rows(final).map { row in
                ProxyAction(
                    actorID: try row.string(0), actorName: try row.string(1), action: String(decoding: try sealer.open(try row.data(2)), as: UTF8.self),
                    date: Date(timeIntervalSince1970: try row.double(3)))
            }
        }
    }
}
