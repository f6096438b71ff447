import CMalloc

/// How the command's process asks glibc's malloc to grow.
///
/// A command's threads each get a malloc arena that grows one page at a time, an `mprotect`
/// call per 4 KiB: reading a 5 MB page of records and storing it made about 9,000 such calls
/// (`strace -c`), some 15 ms of CPU on the threads that make and store entries. Asking for
/// room in steps of 60 MiB makes that a few calls; only address space is reserved, and pages
/// are touched as they are used. `serve` keeps glibc's defaults: a server that runs for
/// weeks should give memory back after a burst.
enum MallocTuning {
    /// The step, just under an arena's 64 MiB limit.
    static let step: Int32 = 60 << 20

    /// Tunes malloc unless the command is `serve`; call before the first thread starts.
    static func apply(arguments: [String]) {
        guard arguments.dropFirst().first != "serve" else { return }
        _ = healthrecords_malloc_grow_in_steps_of(step)
    }
}
