/* zlib, for gzip where a peer sends it. */
#ifndef RELAY_CZLIB_SHIM_H
#define RELAY_CZLIB_SHIM_H
#include <zlib.h>
#endif
