import FHIR
import VerifiableRecords

/// Every check of a card's FHIR bundle, as one verification step.
///
/// A card's bundle is what people act on, so it must be valid FHIR and follow the card rules,
/// not merely be signed: structure and required elements first, then empty elements, then
/// references; minimization (and a missing Patient) only warn.
public enum CardBundleChecks {
    /// The errors and warnings for the bundle at token `bundle` of a tape.
    public static func check(_ t: JSONTape, bundle: Int) -> (errors: [VerificationIssue], warnings: [VerificationIssue]) {
        let structure = BundleStructureCheck.check(t, bundle: bundle)
        var errors = structure.filter(\.isError).map(\.issue)
        let minimization = BundleMinimizationCheck.check(t, bundle: bundle)
        errors += minimization.errors
        if let empty = EmptyElementCheck.firstEmpty(t, bundle: bundle) { errors.append(empty.issue) }
        if let unresolved = BundleReferenceCheck.issue(BundleReferenceCheck.check(t, bundle: bundle)) { errors.append(unresolved) }
        return (errors, structure.filter { !$0.isError }.map(\.issue) + minimization.warnings)
    }
}
