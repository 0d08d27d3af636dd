/* Small C helpers the engine needs that Swift's Glibc module does not offer:
 * the CRC-32C of stored chunks (checksum.h), malloc_trim (malloc.h) and a
 * prefetch hint. */
#ifndef FIEF_SUPPORT_H
#define FIEF_SUPPORT_H
#include <malloc.h>
#include "checksum.h"

/* A hint that `p` will be read soon (for walks in an order memory is not in). */
static inline void fief_prefetch(const void *p) { __builtin_prefetch(p); }
#endif
