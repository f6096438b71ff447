#include <malloc.h>

/// Lets each of glibc's malloc arenas start with `bytes` of usable heap (at most the arena's
/// 64 MiB) and the main heap grow by as much at a time. Without it a thread's arena grows a
/// page at a time, one `mprotect` call per 4 KiB: about 9,000 calls for a 5 MB page of
/// records, about 15 ms of CPU. Only address space is reserved; pages are touched as used.
static inline int healthrecords_malloc_grow_in_steps_of(int bytes) {
    return mallopt(M_TOP_PAD, bytes);
}

/// Gives the heap's free pages back to the system (glibc keeps them otherwise): a server for
/// many people calls it after closing idle people's stores.
static inline int healthrecords_malloc_trim(void) {
    return malloc_trim(0);
}
