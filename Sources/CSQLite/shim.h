#include <sqlite3.h>

/// Leaves the write-ahead log on disk when this connection closes last, instead of copying it
/// into the database file (and fsyncing both) inside the close. `sqlite3_db_config` is
/// variadic, which Swift cannot call.
static inline int healthrecords_sqlite3_keep_log_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
