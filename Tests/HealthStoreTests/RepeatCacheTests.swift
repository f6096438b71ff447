import HealthStoreCore
import Testing

/// The page and Bundle caches keep an answer only when it is asked for again.
@Suite struct RepeatCacheTests {
    @Test func keepsAValueTheSecondTimeItIsOffered() {
        let cache = RepeatCache<String, Int>(limit: 4)
        cache.offer(1, for: "a")
        #expect(cache.value("a") == nil)
        cache.offer(2, for: "a")
        #expect(cache.value("a") == 2)
        // Once held, a newer value replaces it at once.
        cache.offer(3, for: "a")
        #expect(cache.value("a") == 3)
    }

    @Test func searchesThatDifferEveryTimeAreNeverKept() {
        let cache = RepeatCache<Int, [Int]>(limit: 8)
        for key in 0..<10_000 { cache.offer([key], for: key) }
        #expect((0..<10_000).allSatisfy { cache.value($0) == nil })
    }

    @Test func holdsAtMostItsLimit() {
        let cache = RepeatCache<Int, Int>(limit: 4)
        for key in 0..<6 {
            cache.offer(key, for: key)
            cache.offer(key, for: key)
        }
        let held = (0..<6).filter { cache.value($0) != nil }
        #expect(held.count <= 4)
        #expect(held.contains(5))
    }
}
