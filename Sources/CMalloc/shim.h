/* What Glibc's Swift module leaves out: <malloc.h> (mallinfo2, malloc_trim), for the heap gauges. */
#ifndef RELAY_CMALLOC_SHIM_H
#define RELAY_CMALLOC_SHIM_H
#include <malloc.h>
#endif
