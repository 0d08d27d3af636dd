/* Small C helpers the engine needs that Swift's Glibc module does not offer:
 * the CRC-32C of stored chunks (checksum.h) and malloc_trim (malloc.h). */
#ifndef FIEF_SUPPORT_H
#define FIEF_SUPPORT_H
#include <malloc.h>
#include "checksum.h"
#endif
