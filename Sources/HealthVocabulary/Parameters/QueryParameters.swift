import Foundation

/// Parameters as a user gave them, by name, each with every value given: a URL query, the
/// fields of a JSON body, or the options of a command.
///
/// Values stay text until a parser reads them, so both front ends hand over the same thing and
/// every bad value is reported by the same ``ParameterError``.
public struct QueryParameters: Sendable, Hashable {
    private var values: [ParameterName: [String]] = [:]

    /// No parameters.
    public init() {}

    /// Parameters from name–value pairs in order (a URL query); a name may repeat.
    public init(_ pairs: some Sequence<(String, String)>) {
        for (name, value) in pairs { values[ParameterName(rawValue: name), default: []].append(value) }
    }

    /// Every value given for a name, in order.
    public subscript(name: ParameterName) -> [String] {
        get { values[name] ?? [] }
        set { values[name] = newValue.isEmpty ? nil : newValue }
    }

    /// Sets a name to one value, or removes it for `nil` (an option that was not given).
    public mutating func set(_ name: ParameterName, _ value: String?) {
        self[name] = value.map { [$0] } ?? []
    }

    /// The value of a parameter that takes one; `nil` when absent.
    ///
    /// - Throws: ``ParameterError/repeated(_:)`` when it was given more than once: taking the
    ///   first or the last would silently ignore what the user also asked for.
    public func single(_ name: ParameterName) throws(ParameterError) -> String? {
        let given = self[name]
        guard given.count <= 1 else { throw .repeated(name) }
        return given.first
    }

    /// Every value of a list parameter, repeated (`types=a&types=b`) or comma-separated
    /// (`types=a,b`), trimmed, empty ones dropped.
    public func list(_ name: ParameterName) -> [String] {
        self[name].flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
