/* Small C helpers the engine needs that Swift's Glibc module does not offer:
 * the CRC-32C of stored chunks (checksum.h), malloc_trim (malloc.h), a
 * prefetch hint and the file system type of a path (sys/vfs.h). */
#ifndef FIEF_SUPPORT_H
#define FIEF_SUPPORT_H
#include <malloc.h>
#include <sys/vfs.h>
#include "checksum.h"

/* The f_type of the file system `path` lies on (statfs), or 0 when it
 * cannot be read. */
static inline unsigned long fief_file_system_type(const char *path) {
    struct statfs info;
    return statfs(path, &info) == 0 ? (unsigned long)info.f_type : 0;
}

/* A hint that `p` will be read soon (for walks in an order memory is not in). */
static inline void fief_prefetch(const void *p) { __builtin_prefetch(p); }
#endif
