/// The device that measured a sample, like HealthKit's `HKDevice`.
public struct SampleDevice: Sendable, Hashable, Codable {
    /// The device's own identifier (serial number or UDI device identifier); this is what a
    /// signed sample's content names as `deviceIdentifier`.
    public var identifier: String
    /// A name for people, e.g. "Glucose Meter".
    public var name: String?
    /// Free-text manufacturer name, as in `HKDevice`; `nil` when unknown.
    public var manufacturer: String?
    /// Free-text model name, as in `HKDevice`; `nil` when unknown.
    public var model: String?

    /// Makes a device description; only `identifier` is required, and ``QuantitySample`` rejects an empty one.
    public init(identifier: String, name: String? = nil, manufacturer: String? = nil, model: String? = nil) {
        self.identifier = identifier
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
    }
}
