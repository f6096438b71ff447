import ArgumentParser
import HealthVocabulary

/// `--added-from` and `--added-to`: when the store added a record or saved a sample, a range
/// read by the vocabulary's date rule (``DateBound``).
struct AddedDateOptions: ParsableArguments {
    @Option(help: "Added to the store from (inclusive).")
    var addedFrom: String?

    @Option(help: "Added to the store to: a date includes its whole period, an instant is exclusive.")
    var addedTo: String?

    /// Hands the range to a parser.
    func add(to p: inout OptionParameters) {
        p.set(.addedFrom, addedFrom)
        p.set(.addedTo, addedTo)
    }
}
