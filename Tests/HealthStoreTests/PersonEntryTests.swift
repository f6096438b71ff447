import HealthStoreCore
import Testing

/// A person's id names their store file, their PostgreSQL rows and their URL path, so nothing
/// but the ids the registry makes passes: `p-` and 16 lowercase hex digits.
@Suite struct PersonEntryTests {
    @Test func madeIDsAreValid() {
        let ids = (0..<200).map { _ in PersonEntry.makeID() }
        #expect(ids.allSatisfy(PersonEntry.isValidID))
        #expect(Set(ids).count == ids.count)
    }

    @Test func anythingElseIsRefused() {
        #expect(PersonEntry.isValidID("p-0123456789abcdef"))
        for text in [
            "", "p-", "p-0123456789abcde", "p-0123456789abcdef0", "q-0123456789abcdef", "P-0123456789abcdef",
            "p-0123456789ABCDEF", "p-0123456789abcdeg", "p-0123456789abcde/", "p-../../../etc/pa", "p-0123456789abcd\u{0}f",
            // Fullwidth digits are hex digits to `Character`, and a combining mark joins the last one.
            "p-\u{FF10}\u{FF11}23456789abcd", "p-0123456789abcde\u{0301}", "p-0123456789abcdef\n",
        ] {
            #expect(!PersonEntry.isValidID(text), "\(text.debugDescription)")
        }
    }
}
