import CSQLite

/// Where SQLite keeps the pages it reads and writes, for a whole process.
public enum SQLitePageCache {
    /// Gives SQLite's page cache one region of memory for up to 2,048 pages of 16 KiB (a
    /// writer's whole cache), which the kernel may back with 2 MiB pages. Importing a large page
    /// of records dirties a few thousand pages: each would otherwise be its own allocation and
    /// four page faults. Address space is reserved; memory is used only as pages are.
    ///
    /// Call before the first store is opened; later it does nothing (SQLite takes this only
    /// before it starts). Returns whether it took effect.
    @discardableResult
    public static func reserve() -> Bool {
        healthrecords_sqlite3_use_page_cache(Int32(SQLiteSchema.newFilePageSize), 2048) == SQLITE_OK
    }

    /// Turns off SQLite's allocator statistics, so an allocation takes no process-wide lock (the
    /// page cache does this too): for a process that keeps its own page cache settings, such as
    /// the server. Call before the first store is opened.
    public static func skipStatistics() {
        healthrecords_sqlite3_no_memstatus()
    }
}
