/* SQLite; SQLITE_TRANSIENT is a cast macro Swift cannot import. */
#ifndef RELAY_CSQLITE_SHIM_H
#define RELAY_CSQLITE_SHIM_H
#include <sqlite3.h>

static inline sqlite3_destructor_type relay_sqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
