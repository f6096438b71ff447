/// Why a consent operation failed.
///
/// None of these tells an app whether it was denied a type: a denied read is an empty result,
/// never an error.
public enum ConsentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No app has this id.
    case appNotFound(String)
    /// The registration is not acceptable; the reason says why.
    case invalidRegistration(String)
    /// The app's secret is wrong.
    case invalidAppSecret
    /// A decision names a type the app did not request.
    case typeNotRequested(HealthDataType)
    /// A decision both allows and denies a type.
    case conflictingDecision(HealthDataType)
    /// The person denied at least one type the app requires (HealthKit's
    /// `errorRequiredAuthorizationDenied`); deliberately not which.
    case requiredAuthorizationDenied
    /// A card-share token is unknown or was used already.
    case invalidShareToken
    /// The person picked a card the request did not offer.
    case cardNotOffered(String)
    /// An anchor token is malformed, altered, or was made for another app.
    case invalidAnchor
    /// The person picked a medication that is not on their list (now).
    case medicationNotOffered(String)

    public var description: String {
        switch self {
        case .appNotFound(let id): return "no app with id \(id)"
        case .invalidRegistration(let why): return "invalid app registration: \(why)"
        case .invalidAppSecret: return "the app secret is wrong"
        case .typeNotRequested(let t): return "the app did not request \(t.name)"
        case .conflictingDecision(let t): return "\(t.name) is both allowed and denied"
        case .requiredAuthorizationDenied: return "required authorization denied"
        case .invalidShareToken: return "the share token is unknown or was used already"
        case .cardNotOffered(let id): return "card \(id) was not offered by the request"
        case .invalidAnchor: return "the anchor is not one this server gave the app"
        case .medicationNotOffered(let id): return "medication \(id) is not on the medication list"
        }
    }
}
