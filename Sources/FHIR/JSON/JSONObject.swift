/// One member of a JSON object.
public struct JSONMember: Sendable, Hashable {
    /// The member's name as decoded text; an object may repeat a name, and lookups take the first.
    public var key: String
    /// The member's value.
    public var value: JSONValue

    /// Makes a member; nothing checks that `key` is unique in the object it goes into.
    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

/// A JSON object that keeps its members in the order they were written.
///
/// Lookups are linear: FHIR objects have few members, and keeping order matters more
/// (minimized SMART Health Card bundles are re-serialized member by member).
public struct JSONObject: Sendable, Hashable, RandomAccessCollection {
    /// The members in document order.
    public var members: [JSONMember]

    /// Where the object's text starts and ends in the document it was read from, when known.
    ///
    /// It lets a Bundle's entries keep their original bytes. It is not part of equality.
    public var sourceRange: Range<Int>?

    /// Makes an object from members in order.
    public init(_ members: [JSONMember] = [], sourceRange: Range<Int>? = nil) {
        self.members = members
        self.sourceRange = sourceRange
    }

    /// Makes an object from key–value pairs in order.
    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        self.members = pairs.map { JSONMember($0.key, $0.value) }
        self.sourceRange = nil
    }

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> JSONMember { members[position] }

    /// The value of the first member with this key.
    public subscript(key: String) -> JSONValue? {
        get {
            for m in members where m.key == key { return m.value }
            return nil
        }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append(JSONMember(key, newValue))
            }
        }
    }

    /// The keys in document order.
    public var keys: [String] { members.map(\.key) }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members == rhs.members
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members)
    }
}
