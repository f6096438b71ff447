/// Frees values on the idle thread (see ``IdleWork``): what an import has stored (its
/// resources' parsed JSON).
///
/// A 5 MB page of resources is hundreds of thousands of small objects; freeing them takes
/// about 20 ms of CPU, which would otherwise sit in the writer's loop or between storing a
/// provider's last page and finishing the sync, or compete with them for the cores. When the
/// idle thread's backlog is full, the caller frees the value itself.
public enum BackgroundRelease {
    /// Takes over `value` (its last owner) and lets it go on the idle thread; `false` when the
    /// idle thread's backlog was full and the value was freed here instead.
    @discardableResult
    public static func release<Value>(_ value: consuming Value) -> Bool {
        let box = Box(consume value)
        // Refused: `box`, and the value, are freed here when this function returns.
        return IdleWork.enqueue { box.empty() }
    }

    /// Holds the value until the queued job empties it, whichever thread lets go of the box last.
    private final class Box<Held>: @unchecked Sendable {
        // Emptied once, by the idle thread (or never, when the caller's copy is the last).
        private var held: Held?
        init(_ held: consuming Held) { self.held = consume held }
        func empty() { held = nil }
    }
}
