/// A small, fast, seeded generator (SplitMix64): tests that make "random" data make the same
/// data on every run, so a failure reproduces.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64

    /// Starts from a seed.
    public init(seed: UInt64) { state = seed }

    /// Starts from a state (the same as a seed).
    public init(state: UInt64) { self.state = state }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
