/* Compile-only: including fief.h twice is harmless (include guard). */
#include "fief.h"
#include "fief.h"
int fief_twice(void);
int fief_twice(void) { return FIEF_OK; }
