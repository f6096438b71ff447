import HealthVocabulary

/// A command's options handed to the vocabulary's parsers under the app API's parameter names,
/// so the CLI and the server read them by the same rules; a bad value comes back as a usage
/// error naming the flag the person typed.
struct OptionParameters {
    private(set) var parameters = QueryParameters()
    /// Flags not spelt as the parameter's name in kebab case (`cards --from` is `relevantDateFrom`).
    private var flags: [ParameterName: String] = [:]

    /// Sets a parameter from an option, if it was given.
    mutating func set(_ name: ParameterName, _ value: String?, flag: String? = nil) {
        parameters.set(name, value)
        if let flag { flags[name] = flag }
    }

    /// Sets a parameter from a repeatable option.
    mutating func set(_ name: ParameterName, _ values: [String], flag: String? = nil) {
        parameters[name] = values
        if let flag { flags[name] = flag }
    }

    /// Runs a parser over the options.
    func parse<T>(_ parser: (QueryParameters) throws(ParameterError) -> T) throws(CommandFailure) -> T {
        do { return try parser(parameters) } catch { throw .usage(error.message(naming: flag)) }
    }

    /// The flag a parameter was given as: `resourceType` is `--resource-type`.
    func flag(_ name: ParameterName) -> String {
        if let flag = flags[name] { return flag }
        return "--" + name.rawValue.map { $0.isUppercase ? "-" + $0.lowercased() : String($0) }.joined()
    }
}
