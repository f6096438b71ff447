#include <sqlite3.h>

/// Leaves the write-ahead log on disk when this connection closes last, instead of copying it
/// into the database file (and fsyncing both) inside the close. `sqlite3_db_config` is
/// variadic, which Swift cannot call.
static inline int healthrecords_sqlite3_keep_log_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}

#include <stdint.h>
#include <sys/mman.h>

/// Gives SQLite's page cache `slots` page slots of up to `page_size` bytes in one mapping that
/// the kernel may back with huge pages: a large write fills thousands of pages, each otherwise
/// its own allocation and its own page faults. Only what is used is ever touched. Must run
/// before SQLite is initialized (the first connection); returns SQLITE_OK when it took effect.
/// Turns off SQLite's allocator statistics (nothing reads them): with them on, every allocation
/// takes one process-wide lock. Only before SQLite starts.
static inline void healthrecords_sqlite3_no_memstatus(void) {
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

static inline int healthrecords_sqlite3_use_page_cache(int page_size, int slots) {
    // Without the allocator's statistics (nothing reads them), an allocation takes no lock.
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    int header = 0;
    if (sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &header) != SQLITE_OK) return SQLITE_MISUSE;
    size_t slot = ((size_t)page_size + (size_t)header + 7) & ~(size_t)7;
    size_t huge = (size_t)2 << 20;
    size_t bytes = (slot * (size_t)slots + huge - 1) & ~(huge - 1);
    void *mapping = mmap(0, bytes + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapping == MAP_FAILED) return SQLITE_NOMEM;
    char *start = (char *)(((uintptr_t)mapping + huge - 1) & ~(uintptr_t)(huge - 1));
    (void)madvise(start, bytes, MADV_HUGEPAGE);
    int status = sqlite3_config(SQLITE_CONFIG_PAGECACHE, start, (int)slot, slots);
    if (status != SQLITE_OK) munmap(mapping, bytes + huge);
    return status;
}
