import Foundation
import HealthVocabulary
import Testing

@Suite struct InstantTextTests {
    /// A millisecond time that binary floating point holds as a hair less (0.12299…) prints as
    /// written, not truncated.
    @Test func millisecondsAreRoundedNotTruncated() {
        let d = Date(timeIntervalSince1970: 1_700_000_000.123)
        #expect(InstantText.string(d) == "2023-11-14T22:13:20.123Z")
        #expect(InstantText.string(Date(timeIntervalSince1970: 0.0996)) == "1970-01-01T00:00:00.100Z")
    }
}
