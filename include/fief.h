/*
 * fief.h - the C interface of Fief, an embedded live-object database.
 *
 * SPDX-License-Identifier: Apache-2.0
 * Fief is licensed under the Apache License, Version 2.0 (the LICENSE file
 * at the top of the source tree; installed as share/doc/fief/LICENSE).
 * libfief contains LMDB 0.9.24 (OpenLDAP Public License, ThirdParty/lmdb).
 *
 * OVERVIEW
 * ========
 * A *realm* is one database file (plus a lock file next to it, "<path>-lock")
 * holding objects of the classes its *schema* declares.  Every open realm reads
 * one consistent snapshot of the file (a *version*); `fief_realm_refresh` moves
 * it to the newest commit, and every write transaction starts from the newest
 * commit.  Objects are addressed by a class key and an object key; results are
 * lazy, live views over the objects of one class, optionally filtered by a
 * predicate in Realm's query language and sorted.
 *
 * Object graph and lifecycle:
 *
 *     fief_config_t --fief_realm_open--> fief_realm_t
 *     fief_schema_t (class and property descriptions; given to a config,
 *                    read back from an open realm)
 *     fief_realm_t --fief_realm_get_objects--> fief_results_t
 *                  --fief_object_create, _find_by_primary_key, _get--> fief_object_t
 *     fief_results_t --filter/sort/distinct/limit--> fief_results_t --get_object--> fief_object_t
 *     fief_object_t --fief_object_get_list / _set / _map--> fief_list_t,
 *                   fief_set_t, fief_map_t
 *     fief_list_t --fief_list_to_results--> fief_results_t (of objects or of values)
 *                   --fief_object_get_backlinks--> fief_results_t
 *     fief_realm_t --fief_realm_freeze--> fief_realm_t (frozen)
 *
 * OWNERSHIP
 * =========
 * Every function that returns a handle (a pointer to an opaque `fief_*_t`)
 * gives the caller one reference, which `fief_release` gives back.  Handles keep
 * what they need alive: an object or results handle keeps its realm open, so
 * handles may be released in any order.  `fief_release` on an already released
 * handle, or any call on one, fails with FIEF_ERR_INVALID_HANDLE instead of
 * crashing: handles are table slots with a generation count, not raw pointers
 * (a stale handle could only be mistaken for a live one after its slot was
 * reused 2^24 times).
 *
 * Strings and binaries cross the interface as (pointer, length) views.  Views
 * passed *in* are read during the call only.  Views passed *out* point into
 * the database's memory map or into the open write transaction (zero-copy):
 * they stay valid until the next call that changes the realm's snapshot or
 * data (a write of any property, commit, cancel, refresh, invalidate, close,
 * or the release of the last handle on the realm).  Copy them to keep them.
 * Strings are UTF-8 and are NOT zero-terminated.
 *
 * THREADS
 * =======
 * A live realm handle and the objects and results made from it may be used
 * from any thread, one call at a time: every call on a realm takes the realm's
 * lock, so concurrent calls are serialised, never unsafe.  A write transaction
 * belongs to the thread that began it: while it is open, calls that read or
 * write the realm's data from another thread fail with FIEF_ERR_WRONG_THREAD
 * (they would see the transaction's unfinished changes).  fief_realm_freeze
 * is not one of them: from any thread it gives the version the write began
 * from, as it does inside the write.  Frozen realms and everything made
 * from them may be read from any thread.
 * One writer at a time across threads and processes: `fief_realm_begin_write`
 * waits for the writer before it.  Readers never wait.
 *
 * A thread that ends (returns from its start function, or pthread_exit)
 * with a write transaction open has it cancelled as it exits, on that
 * thread: nothing of it is committed, the realm is no longer in a
 * transaction, and the file's writer lock is free again for every thread
 * and process.  A thread that ends without its thread-exit cleanup (killed
 * by a raw exit system call) cannot be helped: LMDB then refuses new
 * transactions on the file in this process (`fief_realm_begin_write`,
 * `fief_realm_refresh` and opens of the file fail with FIEF_ERR_INTERNAL)
 * until every realm of the file in this process is released; the next
 * open starts afresh.  Other processes are not affected.
 * A process that dies is no problem at all: its writer lock is released
 * and its snapshots stop holding old pages (see CAVEATS).
 *
 * ERRORS
 * ======
 * A function that does something returns `bool` (true on success); one that
 * makes something returns a handle (NULL on failure).  On failure the details
 * are in the calling thread's last-error slot: `fief_get_last_error`.  A
 * successful call does not clear the slot (as with errno): read it only after
 * a failure.  Codes belong to categories (a bitmask), so a binding can map
 * whole families to one exception type.  Misuse (NULL or released handles,
 * writes outside a transaction, the wrong thread) is reported the same way
 * and never aborts the process.  So are bad counts: every count or size
 * passed in (num_values, num_args, fief_query_arg_t.count, a string's or
 * binary's size, ...) must fit the array it describes (2^63 and more, often
 * a negative number cast to size_t, never does), and its array may be NULL
 * only when it is 0; otherwise the call fails with FIEF_ERR_INVALID_ARGUMENT
 * and a message naming the parameter ("num_values is 18446744073709551615:
 * ...").  An index of 2^63 or more is FIEF_ERR_INDEX_OUT_OF_BOUNDS, and so
 * is a range (`start`, `count` of fief_list_get_range, fief_set_get_range,
 * fief_map_get_entries) that does not lie within its collection, whatever
 * `start` is (`start` + `count` is never formed, so it cannot wrap); it is
 * refused before anything is allocated or written for it.
 *
 * NAMES
 * =====
 * Functions are named fief_<subject>_<verb>[_<object>], one verb per
 * meaning, the same for every subject:
 *  - _count: how many elements, entries or objects (fief_list_count,
 *    fief_set_count, fief_map_count, fief_results_count);
 *  - _get / _get_range / _get_keys: read by position (or a map's key);
 *  - _index_of: the position of a value, a key or an object in an ordered
 *    collection, with `*out_found` (fief_list_index_of, fief_set_index_of,
 *    fief_map_index_of_key, fief_results_index_of_value,
 *    fief_results_index_of_object);
 *  - _contains: whether a value or key is there (fief_set_contains,
 *    fief_map_contains_key);
 *  - _find_*: look up by a name or a key, with `*out_found`
 *    (fief_schema_find_class, fief_schema_find_property,
 *    fief_object_find_by_primary_key);
 *  - _remove: take an element out of a collection (a linked object
 *    stays); _clear: remove every element; _delete: delete objects or files
 *    (fief_object_delete, fief_results_delete_all,
 *    fief_list_delete_all_objects, fief_realm_delete_all, fief_file_delete);
 *  - fief_file_*: functions on a realm file by path (fief_file_verify,
 *    fief_file_copy, fief_file_delete).
 * A string-keyed collection is a *map* everywhere: a map property
 * (FIEF_COLLECTION_MAP), a map nested in a mixed value (FIEF_TYPE_MAP), its
 * handle (fief_map_t) and the functions that give one (fief_object_get_map,
 * fief_list_get_map, fief_map_get_map); RealmSwift calls it Map, and
 * Realm's query language 'dictionary' (`mixed.@type == 'dictionary'`).
 * Every function says what it may fail with ("Errors: ...") or that it
 * "cannot fail"; "..." at the end of such a list stands for the errors
 * every call on that kind of handle may give: FIEF_ERR_INVALID_HANDLE,
 * FIEF_ERR_WRONG_HANDLE_TYPE, FIEF_ERR_INVALID_ARGUMENT (a NULL
 * out-pointer), FIEF_ERR_CLOSED, FIEF_ERR_WRONG_THREAD,
 * FIEF_ERR_INVALIDATED_OBJECT (the object, or the collection's owner, was
 * deleted), FIEF_ERR_INVALIDATED_RESULTS (the results' class is gone), and
 * for writes FIEF_ERR_NOT_IN_TRANSACTION, FIEF_ERR_FROZEN and
 * FIEF_ERR_READ_ONLY.
 *
 * CAVEATS
 * =======
 * - Views returned by getters go stale after the realm changes (see
 *   OWNERSHIP); copy before writing.
 * - Every realm of one file in a process shares one LMDB environment (LMDB
 *   forbids opening a file twice in a process), so opening a file many times
 *   is safe.  Do not copy a file while a writer may be active.
 * - After fork(), the child must open its own realms: handles inherited from
 *   the parent must not be used (LMDB environments do not survive fork).
 * - End a write transaction (commit, cancel or close) on the thread that
 *   began it.  Releasing a realm's last handle from another thread while
 *   its write transaction is open cancels the transaction from the wrong
 *   thread: LMDB's writer lock stays with the thread that began it, so
 *   other writers of the file wait until that thread exits, and that thread
 *   must not begin another write on the file before it exits (it would
 *   wait for itself forever).
 * - Dead processes: a process killed while it holds a snapshot leaves its
 *   slot in the file's reader table; the slots of dead processes are
 *   cleared whenever a process opens the file and whenever a write begins
 *   after the file grew, so the old pages they held are reused.
 * - Results evaluate lazily and re-evaluate after every change of the realm's
 *   snapshot and every write of the realm's own write transaction that can
 *   change them; indices are positions in the current evaluation.
 * - Damaged files: every stored chunk carries a checksum (CRC-32C) checked,
 *   with its layout, the first time a snapshot reads it; a damaged chunk,
 *   a chunk gone missing or an object count that does not match gives
 *   FIEF_ERR_FILE_CORRUPT naming the class and property, and the rest of
 *   the file stays readable.  A write never builds on a chunk it found
 *   damaged.  LMDB itself does not check its pages, so the first open of a
 *   file in a process checks the structure of every page of every tree
 *   before LMDB reads any (about 2.5 ms for 26 MB): a class whose pages are
 *   damaged fails with FIEF_ERR_FILE_CORRUPT naming it, the other classes
 *   stay readable, and the file is not written.  Files cut short, foreign
 *   files and random bytes are refused with FIEF_ERR_FILE_NOT_FIEF.
 *   fief_file_verify checks a whole file; fief_file_copy salvages what can
 *   be read into a sound new file.
 */
#ifndef FIEF_H
#define FIEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && defined(FIEF_BUILDING_LIBRARY)
#define FIEF_API __declspec(dllexport)
#elif defined(_WIN32)
#define FIEF_API __declspec(dllimport)
#elif defined(__GNUC__) || defined(__clang__)
#define FIEF_API __attribute__((visibility("default")))
#else
#define FIEF_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ==========================================================================
 * Version
 * ========================================================================== */

/* The release's version (semantic versioning): the one place the number is
 * written.  CMake, the Python package, the Swift overlay and the tool all
 * read it from here; RELEASING.md says how a release changes it. */
#define FIEF_VERSION_MAJOR 0
#define FIEF_VERSION_MINOR 2
#define FIEF_VERSION_PATCH 0
/** MAJOR * 10000 + MINOR * 100 + PATCH, as one literal. */
#define FIEF_VERSION_NUMBER 200
#define FIEF_VERSION_STRING "0.2.0"
/** The ABI's version: the number in the library's SONAME (libfief.so.0).
 *  Raised by a release that removes or changes a function, a structure or a
 *  constant's meaning, so that programs built against an older ABI are not
 *  run against the new one; adding functions keeps it. */
#define FIEF_ABI_VERSION 0

/** The library's version as FIEF_VERSION_NUMBER computes it, to compare with
 *  the header a binding was built against.  A binding works with a library
 *  of the same MAJOR version (the same MAJOR and MINOR while MAJOR is 0,
 *  when a new MINOR may change the interface) whose version is no older
 *  than the header's: the bindings refuse an older one by name.  Cannot
 *  fail; any thread. */
FIEF_API int32_t fief_version_number(void);

/** The library's version as a static, zero-terminated string ("0.2.0").
 *  Cannot fail; any thread; never free it. */
FIEF_API const char *fief_version_string(void);

/* ==========================================================================
 * Values
 * ========================================================================== */

/** A value's (or a property's) type: one of the FIEF_TYPE_* constants. */
typedef int32_t fief_type_t;
#define FIEF_TYPE_NULL 0       /* no value; only in fief_value_t */
#define FIEF_TYPE_INT 1        /* int64_t */
#define FIEF_TYPE_BOOL 2       /* bool */
#define FIEF_TYPE_STRING 3     /* UTF-8 view */
#define FIEF_TYPE_BINARY 4     /* byte view */
#define FIEF_TYPE_TIMESTAMP 5  /* seconds and nanoseconds since 1970 UTC */
#define FIEF_TYPE_FLOAT 6      /* 32-bit IEEE float */
#define FIEF_TYPE_DOUBLE 7     /* 64-bit IEEE double */
#define FIEF_TYPE_DECIMAL128 8 /* IEEE 754-2008 decimal128, BID encoding */
#define FIEF_TYPE_OBJECT_ID 9  /* 12 bytes */
#define FIEF_TYPE_UUID 10      /* 16 bytes */
#define FIEF_TYPE_LINK 11      /* an object: class key and object key (fief_link_t) */
#define FIEF_TYPE_MIXED 12     /* properties and collection elements only: null or a value of
                                  any other type, a link to an object of any class included
                                  (Realm's AnyRealmValue); a value read has its own type */
#define FIEF_TYPE_LIST 13       /* in a mixed value only: a nested list of mixed values (see
                                  "Nested collections"); no payload */
#define FIEF_TYPE_MAP 14        /* in a mixed value only: a nested map of mixed values, string
                                  keys (Realm's dictionary; see "Nested collections"); no payload */
#define FIEF_TYPE_GEO_SHAPE 15  /* query arguments only: a region for GEOWITHIN, `u.geo_shape`
                                  (see fief_geo_shape_t); refused anywhere else */

/** A view of UTF-8 text.  `data` may be NULL only when `size` is 0. */
typedef struct fief_string {
    const char *data;
    size_t size;
} fief_string_t;

/** A view of bytes.  `data` may be NULL only when `size` is 0. */
typedef struct fief_binary {
    const uint8_t *data;
    size_t size;
} fief_binary_t;

/** A point in time: seconds since 1970-01-01T00:00:00Z and nanoseconds.
 *  Both carry the same sign (or either is 0); |nanoseconds| < 1,000,000,000.
 *  A timestamp that breaks this rule is refused with FIEF_ERR_INVALID_ARGUMENT
 *  ("invalid timestamp") wherever it is passed in: property values, created
 *  objects, primary keys looked up, query arguments (even unused ones). */
typedef struct fief_timestamp {
    int64_t seconds;
    int32_t nanoseconds;
} fief_timestamp_t;

/** An IEEE 754-2008 decimal128 in binary-integer-decimal encoding;
 *  w[0] holds the low 64 bits, w[1] the high 64 bits (sign, exponent). */
typedef struct fief_decimal128 {
    uint64_t w[2];
} fief_decimal128_t;

/** A 12-byte object id: 4 bytes of big-endian seconds, then 8 unique bytes. */
typedef struct fief_object_id {
    uint8_t bytes[12];
} fief_object_id_t;

/** A 16-byte UUID in RFC 4122 byte order. */
typedef struct fief_uuid {
    uint8_t bytes[16];
} fief_uuid_t;

/** A link to an object: the value of a link property (FIEF_TYPE_LINK).  The
 *  keys are a fief_class_key_t and a fief_object_key_t (declared below). */
typedef struct fief_link {
    uint32_t class_key;
    int64_t object_key;
} fief_link_t;

/* A region for GEOWITHIN (FIEF_TYPE_GEO_SHAPE), declared with the queries. */
struct fief_geo_shape;

/** One value of any type: `type` says which member of `u` is set (none for
 *  FIEF_TYPE_NULL, FIEF_TYPE_LIST and FIEF_TYPE_MAP).  A value with a
 *  type outside FIEF_TYPE_NULL ... FIEF_TYPE_LINK, FIEF_TYPE_LIST and
 *  FIEF_TYPE_MAP (FIEF_TYPE_MIXED names properties only; a
 *  FIEF_TYPE_GEO_SHAPE is a query argument only), a string or binary
 *  whose size is 2^63 or more or whose data is NULL with a size, or an
 *  invalid timestamp is refused with FIEF_ERR_INVALID_ARGUMENT wherever it is
 *  passed in; the message names the value ("values[2].u.string.size is ..."). */
typedef struct fief_value {
    fief_type_t type;
    union {
        int64_t integer;
        bool boolean;
        fief_string_t string;
        fief_binary_t binary;
        fief_timestamp_t timestamp;
        float float_value;
        double double_value;
        fief_decimal128_t decimal128;
        fief_object_id_t object_id;
        fief_uuid_t uuid;
        fief_link_t link;
        const struct fief_geo_shape *geo_shape; /* FIEF_TYPE_GEO_SHAPE */
    } u;
} fief_value_t;

/* ==========================================================================
 * Errors
 * ========================================================================== */

/** An error code: FIEF_OK or one of the FIEF_ERR_* constants. */
typedef int32_t fief_error_code_t;

/* Categories: a bitmask in fief_error_t.categories. */
#define FIEF_ERR_CAT_LOGIC 0x01       /* misuse of the API by the caller */
#define FIEF_ERR_CAT_INVALID_ARG 0x02 /* a bad argument or value */
#define FIEF_ERR_CAT_SCHEMA 0x04      /* schema definition or mismatch */
#define FIEF_ERR_CAT_QUERY 0x08       /* a predicate or sort that does not parse or apply */
#define FIEF_ERR_CAT_FILE 0x10        /* opening, reading or writing files */
#define FIEF_ERR_CAT_RUNTIME 0x20     /* resources and the unexpected */

#define FIEF_OK 0
/* 1000s: misuse (FIEF_ERR_CAT_LOGIC) */
#define FIEF_ERR_INVALID_HANDLE 1001        /* NULL, released or foreign handle */
#define FIEF_ERR_WRONG_HANDLE_TYPE 1002     /* a handle of another kind */
#define FIEF_ERR_NOT_IN_TRANSACTION 1003    /* a write outside a write transaction */
#define FIEF_ERR_ALREADY_IN_TRANSACTION 1004 /* begin_write, refresh, invalidate or write_copy inside one */
#define FIEF_ERR_WRONG_THREAD 1005          /* the realm's write transaction is another thread's */
#define FIEF_ERR_FROZEN 1006                /* a write through a frozen realm */
#define FIEF_ERR_READ_ONLY 1007             /* a write through a read-only realm */
#define FIEF_ERR_CLOSED 1008                /* the realm was closed */
#define FIEF_ERR_INVALIDATED_OBJECT 1009    /* the object was deleted */
#define FIEF_ERR_INVALIDATED_RESULTS 1010   /* the results' class no longer exists */
#define FIEF_ERR_TOO_MANY_VERSIONS 1011     /* begin_write: readers hold more versions than the configured limit */
/* 2000s: bad arguments (FIEF_ERR_CAT_INVALID_ARG) */
#define FIEF_ERR_INVALID_ARGUMENT 2001      /* NULL pointer, bad count, bad option */
#define FIEF_ERR_NO_SUCH_CLASS 2002
#define FIEF_ERR_NO_SUCH_PROPERTY 2003
#define FIEF_ERR_NO_SUCH_OBJECT 2004
#define FIEF_ERR_TYPE_MISMATCH 2005         /* a value of the wrong type for a property */
#define FIEF_ERR_NULL_NOT_ALLOWED 2006      /* null for a non-optional property */
#define FIEF_ERR_INVALID_UTF8 2007
#define FIEF_ERR_DUPLICATE_PRIMARY_KEY 2008
#define FIEF_ERR_MISSING_PRIMARY_KEY 2009   /* create without a primary key value */
#define FIEF_ERR_PRIMARY_KEY_CHANGE 2010    /* setting a primary key of an existing object */
#define FIEF_ERR_INDEX_OUT_OF_BOUNDS 2011
/* 3000s: schema (FIEF_ERR_CAT_SCHEMA) */
#define FIEF_ERR_INVALID_SCHEMA 3001        /* the schema itself is wrong */
#define FIEF_ERR_SCHEMA_MISMATCH 3002       /* file and schema differ beyond additive changes */
#define FIEF_ERR_SCHEMA_VERSION 3003        /* the file's schema version is newer */
/* 4000s: queries (FIEF_ERR_CAT_QUERY) */
#define FIEF_ERR_QUERY_SYNTAX 4001          /* the predicate does not parse */
#define FIEF_ERR_QUERY_INVALID 4002         /* parses, but names or types do not fit */
#define FIEF_ERR_QUERY_ARGUMENT 4003        /* a missing or ill-typed $n / %@ argument */
/* 5000s: files (FIEF_ERR_CAT_FILE) */
#define FIEF_ERR_FILE_NOT_FOUND 5001
#define FIEF_ERR_FILE_PERMISSION 5002
#define FIEF_ERR_FILE_NOT_FIEF 5003         /* not a Fief file, or damaged */
#define FIEF_ERR_FILE_FORMAT 5004           /* a Fief file of an unknown format version */
#define FIEF_ERR_FILE_LOCKED 5005           /* the lock could not be taken */
#define FIEF_ERR_FILE_IO 5006
#define FIEF_ERR_FILE_FULL 5007             /* the map size or the disk is full, or a class
                                               used its 2^40 object keys */
#define FIEF_ERR_FILE_CORRUPT 5008          /* a Fief file whose stored data is damaged */
/* 6000s: runtime (FIEF_ERR_CAT_RUNTIME) */
#define FIEF_ERR_OUT_OF_MEMORY 6001
#define FIEF_ERR_INTERNAL 6002              /* an unexpected storage error */

/** The details of the last failure on this thread. */
typedef struct fief_error {
    fief_error_code_t code;
    uint32_t categories;  /* FIEF_ERR_CAT_* bits */
    const char *message;  /* zero-terminated; valid until the next failure on this thread */
    const char *path;     /* the file concerned, or NULL */
} fief_error_t;

/** Copy the calling thread's last error into `*out_error`.
 *  Returns true if there is one, false (and code FIEF_OK) if not.
 *  `out_error` must not be NULL.  Cannot fail otherwise; any thread. */
FIEF_API bool fief_get_last_error(fief_error_t *out_error);

/** Forget the calling thread's last error.  Cannot fail; any thread. */
FIEF_API void fief_clear_last_error(void);

/** The name of error code `code` as this header spells it, a static,
 *  zero-terminated string: "FIEF_ERR_INVALID_HANDLE" for 1001, "FIEF_OK"
 *  for 0; NULL for a number that is no code.  Cannot fail; any thread;
 *  never free it. */
FIEF_API const char *fief_error_name(fief_error_code_t code);

/* ==========================================================================
 * Handles
 * ========================================================================== */

typedef struct fief_config fief_config_t;
typedef struct fief_schema fief_schema_t;
typedef struct fief_realm fief_realm_t;
typedef struct fief_object fief_object_t;
typedef struct fief_results fief_results_t;
typedef struct fief_list fief_list_t;
typedef struct fief_set fief_set_t;
typedef struct fief_map fief_map_t;

/** Give back one reference to any handle.  The object it names is freed when
 *  its last reference goes (a realm closes when no realm, object or results
 *  handle refers to it any more).  NULL is accepted and does nothing.
 *  Errors: FIEF_ERR_INVALID_HANDLE for a released or foreign handle.
 *  Any thread, but not while another thread uses the same handle. */
FIEF_API bool fief_release(const void *handle);

/* ==========================================================================
 * Schema
 * ========================================================================== */

typedef uint32_t fief_class_key_t;    /* stable per file; 0 is never a valid key */
typedef uint32_t fief_property_key_t; /* stable per class; 0 is never a valid key */
typedef int64_t fief_object_key_t;    /* stable per object; never reused in a class */

/* fief_property_info_t.flags */
#define FIEF_PROPERTY_NULLABLE 0x01
#define FIEF_PROPERTY_PRIMARY_KEY 0x02
#define FIEF_PROPERTY_INDEXED 0x04
/* A full-text index: `TEXT` searches the property (see fief_results_filter).
 * Single string properties only, not with FIEF_PROPERTY_PRIMARY_KEY or
 * FIEF_PROPERTY_INDEXED (FIEF_ERR_INVALID_SCHEMA otherwise).  Adding it to
 * or removing it from an existing property is an additive schema change:
 * the index is built from the stored texts, or dropped. */
#define FIEF_PROPERTY_FULLTEXT_INDEXED 0x08

/* fief_class_info_t.flags */
#define FIEF_CLASS_EMBEDDED 0x01 /* objects owned by one parent's link (fief_object_create_embedded) */

/** Collection kind of a property (fief_property_info_t.collection_type). */
typedef int32_t fief_collection_type_t;
#define FIEF_COLLECTION_NONE 0 /* one value */
#define FIEF_COLLECTION_LIST 1 /* an ordered list of values of `type` (see "Lists") */
#define FIEF_COLLECTION_SET 2  /* distinct values of `type`, in their order (see "Sets") */
#define FIEF_COLLECTION_MAP 3  /* string keys to values of `type`, in key order (see "Maps") */
#define FIEF_COLLECTION_LINKING_OBJECTS 4 /* computed: the objects linking here (see below) */

/** One property of a class.  When defining a schema, `key` is ignored; a
 *  link (FIEF_TYPE_LINK) names its target class in `link_target` and must
 *  be FIEF_PROPERTY_NULLABLE (a to-one link is null until set, and again
 *  when its target is deleted); other properties have `link_target` NULL,
 *  and `link_origin_property` is NULL.  A list (`collection_type`
 *  FIEF_COLLECTION_LIST), a set (_SET) or a map (_MAP) holds elements of
 *  `type`, null allowed when FIEF_PROPERTY_NULLABLE is set; a list or set
 *  of links names its target class and is never nullable (its elements are
 *  objects), while a map of links must be nullable (a deleted target leaves
 *  its key with null); a set cannot hold embedded objects; a collection is
 *  neither a primary key nor indexed.  A FIEF_TYPE_MIXED property may be
 *  indexed (FIEF_PROPERTY_INDEXED; never the primary key): its equality and
 *  IN queries then use the index, with Realm's equality (1, 1.0 and
 *  decimal 1 are one value).  When reading one, the strings point
 *  into the schema handle.
 *
 *  A linking-objects property (RealmSwift's LinkingObjects, realm-core's
 *  computed property) has `collection_type` FIEF_COLLECTION_LINKING_OBJECTS,
 *  `type` FIEF_TYPE_LINK, `flags` 0, the origin class in `link_target` and
 *  the origin property in `link_origin_property`: a link, or a list, set or
 *  map of links, of the origin class, pointing to this class.  It is the
 *  objects whose origin property points to the object, and queries name it
 *  like any property: with `clubs` declared on Person as the origin
 *  DogClub.members, "ANY clubs.name == 'Pooch Pals'", "clubs.@count > 1",
 *  "clubs.@avg.fee > 10" and "SUBQUERY(clubs, $c, $c.fee > 10).@count > 0"
 *  read `@links.DogClub.members` (sort and distinct key paths refuse it,
 *  as any step to many objects).  It holds no value: read its objects with
 *  fief_object_get_backlinks; its key is 0, which every write refuses
 *  (FIEF_ERR_NO_SUCH_PROPERTY).  It is not stored: the file's schema never
 *  has it, so declaring or dropping one needs no migration, and a realm
 *  opened without a schema (fief_config_set_schema not called, as the
 *  `fief` tool opens files) or with a schema that does not declare it
 *  cannot query it by name (`@links.Class.property` always works).  When
 *  reading a schema, a class's linking-objects properties come after its
 *  stored ones.  fief_schema_new refuses (FIEF_ERR_INVALID_SCHEMA) an
 *  unknown origin class or property, an origin that is not a link to this
 *  class, a name another property of the class has, and
 *  `link_origin_property` on any other kind of property. */
typedef struct fief_property_info {
    const char *name;                       /* zero-terminated UTF-8 */
    fief_type_t type;                       /* FIEF_TYPE_INT ... FIEF_TYPE_LINK */
    fief_collection_type_t collection_type; /* FIEF_COLLECTION_NONE, _LIST, _SET, _MAP or _LINKING_OBJECTS */
    const char *link_target;                /* links: the target class's name; linking objects: the origin class's; else NULL */
    const char *link_origin_property;       /* linking objects: the origin property's name; else NULL */
    uint32_t flags;                         /* FIEF_PROPERTY_* bits */
    fief_property_key_t key;                /* filled in when read (0 for linking objects) */
} fief_property_info_t;

/** One class.  When defining a schema, `key` and `primary_key` are ignored
 *  (the primary key is the property flagged FIEF_PROPERTY_PRIMARY_KEY). */
typedef struct fief_class_info {
    const char *name;        /* zero-terminated UTF-8 */
    const char *primary_key; /* name of the primary key property, or NULL */
    size_t num_properties;   /* stored and linking-objects properties */
    uint32_t flags;          /* FIEF_CLASS_* bits */
    fief_class_key_t key;    /* filled in when read */
} fief_class_info_t;

/** Describe a schema: `num_classes` classes, the properties of class i at
 *  `class_properties[i]` (an array of classes[i].num_properties entries).
 *  Everything is copied; the arguments may be freed after the call.
 *  Returns a new schema handle, or NULL.
 *  A primary key may be optional (one object may then have a null key).
 *  Limits: class and property names are 1 to 255 bytes of UTF-8 (bytes, not
 *  characters); a schema has at most 99,999 classes, a class at most 60,000
 *  properties.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL arrays with a nonzero count, a
 *  count of 2^63 or more: the message names the parameter, e.g.
 *  "classes[1].num_properties"), FIEF_ERR_INVALID_UTF8,
 *  FIEF_ERR_INVALID_SCHEMA (empty, too long or duplicate names: "invalid
 *  class name '...' (256 bytes): names are 1 to 255 bytes of UTF-8 without
 *  NUL"; too many classes or properties; unknown types, more than one
 *  primary key, a primary key of a type other than int, string, object id
 *  or uuid (mixed is never one), an index on float/double/binary/decimal128
 *  or a link, a link
 *  without a target, to a class the schema does not have, or not nullable).
 *  Any thread. */
FIEF_API fief_schema_t *fief_schema_new(const fief_class_info_t *classes, size_t num_classes,
                                        const fief_property_info_t *const *class_properties);

/** Number of classes in `schema` into `*out_count`.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_INVALID_ARGUMENT. Any thread. */
FIEF_API bool fief_schema_get_class_count(const fief_schema_t *schema, size_t *out_count);

/** Class number `class_index` (0-based, in definition order) into
 *  `*out_class`; its strings point into `schema` and live as long as it.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_INDEX_OUT_OF_BOUNDS. */
FIEF_API bool fief_schema_get_class(const fief_schema_t *schema, size_t class_index,
                                    fief_class_info_t *out_class);

/** Property number `property_index` of class number `class_index`.
 *  Strings point into `schema`.  Errors as fief_schema_get_class. */
FIEF_API bool fief_schema_get_property(const fief_schema_t *schema, size_t class_index,
                                       size_t property_index, fief_property_info_t *out_property);

/** Look a class up by name.  `*out_found` tells whether it exists; if it
 *  does, its description goes to `*out_class` (which may be NULL) and its
 *  position to `*out_class_index` (which may be NULL).
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_INVALID_ARGUMENT. */
FIEF_API bool fief_schema_find_class(const fief_schema_t *schema, const char *name,
                                     fief_class_info_t *out_class, size_t *out_class_index,
                                     bool *out_found);

/** Look a property of a class up by name; as fief_schema_find_class.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_INVALID_ARGUMENT (NULL `name`
 *  or `out_found`), FIEF_ERR_INDEX_OUT_OF_BOUNDS (`class_index`). */
FIEF_API bool fief_schema_find_property(const fief_schema_t *schema, size_t class_index,
                                        const char *name, fief_property_info_t *out_property,
                                        bool *out_found);

/* ==========================================================================
 * Configuration
 * ========================================================================== */

/** A new configuration with defaults: no path, no schema (open the file's
 *  own schema), schema version 0, read-write, keep the file on mismatch.
 *  Returns NULL only when out of memory (or handles); cannot
 *  fail otherwise.  Any thread. */
FIEF_API fief_config_t *fief_config_new(void);

/** The file to open or create (zero-terminated).  Clears any in-memory
 *  identifier.  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_INVALID_ARGUMENT
 *  (NULL or empty path), FIEF_ERR_INVALID_UTF8. */
FIEF_API bool fief_config_set_path(fief_config_t *config, const char *path);

/** Open an in-memory realm named `identifier` instead of a file: every open
 *  with the same identifier in this process shares its data, which is gone
 *  when the last handle on it is released.  Clears any path.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_INVALID_ARGUMENT. */
FIEF_API bool fief_config_set_in_memory_identifier(fief_config_t *config, const char *identifier);

/** Open read-only: no writes, no schema changes; the file must exist.
 *  Errors: FIEF_ERR_INVALID_HANDLE. */
FIEF_API bool fief_config_set_read_only(fief_config_t *config, bool read_only);

/** The schema the realm must have (copied by reference; may be released
 *  after the call).  NULL means "use the file's schema".
 *  Errors: FIEF_ERR_INVALID_HANDLE (also for a released `schema`),
 *  FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_config_set_schema(fief_config_t *config, const fief_schema_t *schema);

/** The schema version of the configuration's schema.  Opening with a lower
 *  version than the file's fails (FIEF_ERR_SCHEMA_VERSION); a higher one
 *  allows every schema change (removed or changed properties lose their
 *  data) and is stored.  Without a schema (fief_config_set_schema) the
 *  file's schema and version are used as they are and this is ignored.
 *  Errors: FIEF_ERR_INVALID_HANDLE. */
FIEF_API bool fief_config_set_schema_version(fief_config_t *config, uint64_t version);

/** When the schema differs from the file's beyond additive changes and the
 *  version was not raised: true deletes the file and starts afresh instead
 *  of failing with FIEF_ERR_SCHEMA_MISMATCH.
 *  Errors: FIEF_ERR_INVALID_HANDLE. */
FIEF_API bool fief_config_set_delete_if_migration_needed(fief_config_t *config, bool delete_files);

/** How hard a commit works to survive a power loss (a process killed at any
 *  point never loses a returned commit, whatever the setting). */
typedef int32_t fief_durability_t;
/** fsync the data, then the new root: a returned commit survives power loss (default). */
#define FIEF_DURABILITY_FULL 0
/** fsync the data but not the new root: a power loss may undo the last
 *  commit but never damages the file (as SQLite's WAL with synchronous=NORMAL). */
#define FIEF_DURABILITY_NORMAL 1

/** Set the durability of commits.  It is a property of the open file in
 *  this process: every realm of the same file uses the setting of the
 *  realm opened last.  In-memory realms never sync.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_INVALID_ARGUMENT (unknown value). */
FIEF_API bool fief_config_set_durability(fief_config_t *config, fief_durability_t durability);

/** The most versions readers may hold at once (RealmSwift's
 *  maximumNumberOfActiveVersions); 0, the default, is no limit.  Counted as
 *  realm-core counts them when a write begins: from the oldest version any
 *  realm or snapshot of any process still reads (frozen realms, objects and
 *  results made from them, live realms not refreshed) to the newest, plus
 *  the version the write would make.  Past the limit fief_realm_begin_write
 *  fails with FIEF_ERR_TOO_MANY_VERSIONS ("Number of active versions (N) in
 *  the Realm exceeded the limit of M") and writes nothing; releasing the old
 *  snapshots lets the next write begin.
 *  Errors: FIEF_ERR_INVALID_HANDLE. */
FIEF_API bool fief_config_set_max_active_versions(fief_config_t *config, uint64_t limit);

/* ==========================================================================
 * Realm
 * ========================================================================== */

/** Open (or create) the realm `config` describes and read its newest version.
 *  Additive schema changes (new classes, new properties) are applied.
 *  A file of an older format (1 to 9) is upgraded to the current one (10)
 *  by a read-write open, in the transaction that applies the schema (a crash
 *  leaves it as it was; a damaged chunk stops it with FIEF_ERR_FILE_CORRUPT,
 *  and `fief copy` then saves what is readable).  Upgrading a format-5 file
 *  rebuilds its full-text indexes from the texts (libraries older than
 *  full-text search wrote format 5 without updating them) and stores the
 *  numbers of its sets of mixed values as format 6 does (a decimal that is
 *  an integer outside int64's range and a double exactly, such as 2^70, is
 *  the element the double is: two such elements become one).  A read-only
 *  open refuses a file of formats 1, 2 and 4, and one of format 5 that has
 *  a full-text index or such a set element, with FIEF_ERR_FILE_FORMAT,
 *  naming both ways to convert it; other files of formats 3 and 5 are read
 *  as they are.  Format 10 checksums every set entry: a read-only open
 *  refuses a file of format 9 or older whose sets hold entries the same way
 *  (a writable open seals them).  A file of a newer format: FIEF_ERR_FILE_FORMAT (libraries
 *  of format 5 and older refuse format-6 files the same way).
 *  Returns a live realm handle, or NULL.
 *  The path (and its lock file "<path>-lock") must be a regular file, a
 *  symbolic link to one, or missing (it is then created).  Anything else is
 *  refused before it is opened (so a FIFO never blocks the call), read-write
 *  and read-only alike, with FIEF_ERR_FILE_NOT_FIEF, the error's `path` set
 *  to the path, and a message saying what it is: "'<path>' is a directory,
 *  not a regular file: a realm is a regular file"; likewise "is a FIFO
 *  (named pipe)", "is a character device" (/dev/null), "is a block device",
 *  "is a socket", "is a symbolic link to a directory" (and to the others),
 *  "is a file of the kernel's proc file system" (/proc/self/status; also
 *  sysfs, debugfs, tracefs, securityfs, cgroup and configfs: their files
 *  look regular but hold what the kernel makes up as they are read), and
 *  "'<path>-lock' (the realm's lock file) is a directory, ...".
 *  fief_file_verify and fief_file_copy refuse such paths the same way.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_INVALID_ARGUMENT (no path nor
 *  identifier), FIEF_ERR_FILE_NOT_FOUND (read-only and missing),
 *  FIEF_ERR_FILE_PERMISSION, FIEF_ERR_FILE_NOT_FIEF (also: not a regular
 *  file, as above), FIEF_ERR_FILE_FORMAT, FIEF_ERR_FILE_CORRUPT (damage
 *  met while upgrading or building an index),
 *  FIEF_ERR_FILE_LOCKED, FIEF_ERR_SCHEMA_MISMATCH, FIEF_ERR_SCHEMA_VERSION,
 *  FIEF_ERR_READ_ONLY (a read-only open that needs a schema change),
 *  FIEF_ERR_INTERNAL (LMDB refuses the file in this process, see THREADS:
 *  release its other realms first).
 *  Any thread. */
FIEF_API fief_realm_t *fief_realm_open(const fief_config_t *config);

/** Delete a closed realm's files (the data file and its lock file).
 *  `*out_deleted` (may be NULL) tells whether the data file existed.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT, FIEF_ERR_FILE_LOCKED (open in this
 *  process), FIEF_ERR_FILE_PERMISSION. */
FIEF_API bool fief_file_delete(const char *path, bool *out_deleted);

/** Close the realm now: cancel any write transaction (only from the thread
 *  that began it: FIEF_ERR_WRONG_THREAD otherwise), release its snapshot.
 *  Every later call on it, or on objects and results made from it, fails
 *  with FIEF_ERR_CLOSED; the handles still need fief_release.  Closing a
 *  closed realm succeeds. Errors: FIEF_ERR_INVALID_HANDLE. */
FIEF_API bool fief_realm_close(fief_realm_t *realm);

/** Whether the realm is closed into `*out_closed`.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE,
 *  FIEF_ERR_INVALID_ARGUMENT (NULL `out_closed`). */
FIEF_API bool fief_realm_is_closed(const fief_realm_t *realm, bool *out_closed);

/** Whether the realm is frozen (an immutable snapshot) into `*out_frozen`.
 *  Errors: as fief_realm_is_closed, and FIEF_ERR_CLOSED. */
FIEF_API bool fief_realm_is_frozen(const fief_realm_t *realm, bool *out_frozen);

/** Whether the realm is read-only into `*out_read_only`.
 *  Errors: as fief_realm_is_closed, and FIEF_ERR_CLOSED. */
FIEF_API bool fief_realm_is_read_only(const fief_realm_t *realm, bool *out_read_only);

/** The version the realm reads (the number of commits the file has seen when
 *  this snapshot was taken; counts up by one per commit) into `*out_version`.
 *  Inside a write transaction: the version the commit will create.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE,
 *  FIEF_ERR_INVALID_ARGUMENT, FIEF_ERR_CLOSED. */
FIEF_API bool fief_realm_get_version(const fief_realm_t *realm, uint64_t *out_version);

/** The schema version stored in the file into `*out_version` (the one the
 *  realm read with its schema).  Errors: FIEF_ERR_INVALID_HANDLE,
 *  FIEF_ERR_INVALID_ARGUMENT, FIEF_ERR_CLOSED. */
FIEF_API bool fief_realm_get_schema_version(const fief_realm_t *realm, uint64_t *out_version);

/** The file's path (zero-terminated; lives as long as the realm handle).
 *  For an in-memory realm, the path of its temporary backing file.
 *  Returns NULL on failure (FIEF_ERR_INVALID_HANDLE).
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API const char *fief_realm_get_path(const fief_realm_t *realm);

/** The realm's schema, with class and property keys filled in.
 *  Returns a new schema handle, or NULL.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE,
 *  FIEF_ERR_CLOSED, FIEF_ERR_WRONG_THREAD. */
FIEF_API fief_schema_t *fief_realm_get_schema(const fief_realm_t *realm);

/** Add the classes and properties of `schema` to the realm's schema:
 *  additive changes only (new classes, new properties, indexes added or
 *  removed); the schema version stays.  Classes of the realm that `schema`
 *  does not mention are kept, but a class it mentions must list every
 *  stored property the class has (a missing one is a removal, not
 *  additive).  Linking-objects properties it declares are added to the
 *  realm's (replacing one of the same name); those it leaves out are kept.
 *  Inside a write transaction the change is part of it (fief_realm_cancel
 *  undoes it, and the commit creates the version); outside one, it commits
 *  on its own as a new version.  A failed update changes nothing.  Handles
 *  to the realm's earlier schema (fief_realm_get_schema) keep describing
 *  the old one.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE,
 *  FIEF_ERR_SCHEMA_MISMATCH (a change that is not additive),
 *  FIEF_ERR_INVALID_SCHEMA, FIEF_ERR_FROZEN, FIEF_ERR_READ_ONLY,
 *  FIEF_ERR_WRONG_THREAD, FIEF_ERR_CLOSED. */
FIEF_API bool fief_realm_update_schema(fief_realm_t *realm, const fief_schema_t *schema);

/** Begin a write transaction: wait for any other writer (thread or process),
 *  move to the newest version, and buffer changes until commit.  The
 *  transaction belongs to the calling thread: end it there with
 *  fief_realm_commit or fief_realm_cancel.  If the thread ends first, the
 *  transaction is cancelled as the thread exits (see THREADS): nothing of
 *  it is kept and the realm can begin another one from any thread.
 *  Errors: FIEF_ERR_ALREADY_IN_TRANSACTION (this realm, or another realm of
 *  the same file on this thread, is writing), FIEF_ERR_FROZEN,
 *  FIEF_ERR_READ_ONLY, FIEF_ERR_CLOSED, FIEF_ERR_FILE_IO, FIEF_ERR_INTERNAL
 *  (LMDB refuses the file in this process after a thread ended inside a
 *  write without its exit cleanup, or a commit failed to write the file's
 *  root: release every realm of the file, then open it again),
 *  FIEF_ERR_TOO_MANY_VERSIONS (readers hold more versions than
 *  fief_config_set_max_active_versions allows; nothing begins). */
FIEF_API bool fief_realm_begin_write(fief_realm_t *realm);

/** Commit the write transaction durably (fsync) and read the new version.
 *  Errors: FIEF_ERR_NOT_IN_TRANSACTION, FIEF_ERR_WRONG_THREAD,
 *  FIEF_ERR_FILE_FULL, FIEF_ERR_FILE_IO (nothing of the transaction is kept). */
FIEF_API bool fief_realm_commit(fief_realm_t *realm);

/** Cancel the write transaction: nothing of it is kept; objects created in
 *  it become invalid.  Errors: FIEF_ERR_NOT_IN_TRANSACTION, FIEF_ERR_WRONG_THREAD. */
FIEF_API bool fief_realm_cancel(fief_realm_t *realm);

/** Whether a write transaction is open into `*out_in_transaction`.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE,
 *  FIEF_ERR_INVALID_ARGUMENT, FIEF_ERR_CLOSED. */
FIEF_API bool fief_realm_is_in_transaction(const fief_realm_t *realm, bool *out_in_transaction);

/** Move the realm's snapshot to the newest commit.  `*out_did_refresh` (may be
 *  NULL) tells whether the version changed.  A no-op on frozen realms.
 *  Errors: FIEF_ERR_ALREADY_IN_TRANSACTION, FIEF_ERR_CLOSED. */
FIEF_API bool fief_realm_refresh(fief_realm_t *realm, bool *out_did_refresh);

/** Release the realm's snapshot until it is next read (RealmSwift's
 *  `invalidate`); objects read earlier stay valid handles and read the newest
 *  version on their next use.  Cancels nothing: fails in a write transaction
 *  (FIEF_ERR_ALREADY_IN_TRANSACTION).
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE,
 *  FIEF_ERR_ALREADY_IN_TRANSACTION, FIEF_ERR_CLOSED. */
FIEF_API bool fief_realm_invalidate(fief_realm_t *realm);

/** An immutable snapshot of the realm's current version, readable from any
 *  thread; it pins that version until its handle and every object and results
 *  made from it are released.  Freezing a frozen realm returns a new reference
 *  to it.  Inside a write transaction the snapshot is of the version the
 *  transaction began from, as in Realm: none of its writes are seen, and an
 *  object created in it is not found there (fief_object_resolve_in gives
 *  no object).  When the transaction changed the schema
 *  (fief_realm_update_schema), the snapshot has the schema of its version,
 *  without the classes and properties the transaction added.  Returns NULL
 *  on failure (FIEF_ERR_CLOSED, FIEF_ERR_INVALID_HANDLE).
 *  Errors: as above, and FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API fief_realm_t *fief_realm_freeze(fief_realm_t *realm);

/** A live realm on the same file at its newest version (for a live realm: a
 *  new reference to it).  Returns NULL on failure.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE,
 *  FIEF_ERR_CLOSED, and those of fief_realm_open (the file is opened
 *  again). */
FIEF_API fief_realm_t *fief_realm_thaw(fief_realm_t *realm);

/** Delete every object of every class (in a write transaction).
 *  Errors: FIEF_ERR_NOT_IN_TRANSACTION, FIEF_ERR_WRONG_THREAD,
 *  FIEF_ERR_FROZEN, FIEF_ERR_READ_ONLY, FIEF_ERR_CLOSED,
 *  FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_realm_delete_all(fief_realm_t *realm);

/** Delete every object of class `class_key` (in a write transaction).
 *  Errors: FIEF_ERR_NO_SUCH_CLASS, FIEF_ERR_NOT_IN_TRANSACTION, ... */
FIEF_API bool fief_realm_delete_all_of_class(fief_realm_t *realm, fief_class_key_t class_key);

/* ==========================================================================
 * Objects
 * ========================================================================== */

/** How a create with an existing primary key behaves. */
typedef int32_t fief_update_policy_t;
#define FIEF_UPDATE_POLICY_ERROR 0    /* fail with FIEF_ERR_DUPLICATE_PRIMARY_KEY */
#define FIEF_UPDATE_POLICY_MODIFIED 1 /* update the existing object: set the given values that differ */
#define FIEF_UPDATE_POLICY_ALL 2      /* update the existing object: set every given value */

/** Create an object of `class_key` with `num_values` property values
 *  (`properties[i]` gets `values[i]`; both arrays may be NULL when
 *  `num_values` is 0).  Properties not given get their defaults (null for
 *  optional properties; 0, false, "", empty bytes, 1970-01-01, 0, all-zero
 *  object id and uuid otherwise).  A class with a primary key needs it among
 *  the values; if an object with that key exists, `policy` decides.
 *  Strings and binaries are copied.  All or nothing: on failure no property
 *  is changed and nothing is created.
 *  Returns a new object handle, or NULL.
 *  Errors: FIEF_ERR_NOT_IN_TRANSACTION, FIEF_ERR_WRONG_THREAD,
 *  FIEF_ERR_NO_SUCH_CLASS, FIEF_ERR_NO_SUCH_PROPERTY, FIEF_ERR_TYPE_MISMATCH,
 *  FIEF_ERR_NULL_NOT_ALLOWED, FIEF_ERR_INVALID_UTF8,
 *  FIEF_ERR_MISSING_PRIMARY_KEY, FIEF_ERR_DUPLICATE_PRIMARY_KEY,
 *  FIEF_ERR_INVALID_ARGUMENT (same property twice, bad policy). */
FIEF_API fief_object_t *fief_object_create(fief_realm_t *realm, fief_class_key_t class_key,
                                           const fief_property_key_t *properties,
                                           const fief_value_t *values, size_t num_values,
                                           fief_update_policy_t policy);

/** Create `num_objects` objects in one call: row r's values are
 *  `values[r * num_properties ... r * num_properties + num_properties - 1]`
 *  for `properties[0 ... num_properties - 1]`.  Each row behaves as
 *  fief_object_create with `policy`.  `out_keys` (may be NULL) receives each
 *  object's key.  All or nothing: on failure, no row is kept, and the error
 *  message names the failing row.  Errors as fief_object_create. */
FIEF_API bool fief_object_create_many(fief_realm_t *realm, fief_class_key_t class_key,
                                      const fief_property_key_t *properties, size_t num_properties,
                                      const fief_value_t *values, size_t num_objects,
                                      fief_update_policy_t policy, fief_object_key_t *out_keys);

/** The object of `class_key` whose primary key equals `primary_key`.
 *  Returns a new object handle, or NULL: then `*out_found` (may be NULL)
 *  is false if there is simply no such object (no error is set), and true
 *  when the call failed (the error is set).
 *  Errors: FIEF_ERR_NO_SUCH_CLASS, FIEF_ERR_INVALID_ARGUMENT (the class
 *  has no primary key), FIEF_ERR_TYPE_MISMATCH, FIEF_ERR_NULL_NOT_ALLOWED
 *  (null for a primary key that is not optional), FIEF_ERR_INVALID_UTF8. */
FIEF_API fief_object_t *fief_object_find_by_primary_key(fief_realm_t *realm, fief_class_key_t class_key,
                                         fief_value_t primary_key, bool *out_found);

/** The object of `class_key` with key `object_key`; NULL with
 *  FIEF_ERR_NO_SUCH_OBJECT if there is none in the realm's snapshot.
 *  Errors: FIEF_ERR_NO_SUCH_OBJECT, FIEF_ERR_NO_SUCH_CLASS,
 *  FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE, FIEF_ERR_CLOSED,
 *  FIEF_ERR_WRONG_THREAD. */
FIEF_API fief_object_t *fief_object_get(fief_realm_t *realm, fief_class_key_t class_key,
                                        fief_object_key_t object_key);

/** Whether the object still exists in its realm's current snapshot.
 *  False for deleted objects, closed realms, and invalid handles (without
 *  setting an error).  Cannot fail. */
FIEF_API bool fief_object_is_valid(const fief_object_t *object);

/** The object's key into `*out_key` (works on deleted objects too).
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE,
 *  FIEF_ERR_INVALID_ARGUMENT (NULL `out_key`). */
FIEF_API bool fief_object_get_key(const fief_object_t *object, fief_object_key_t *out_key);

/** The object's class key into `*out_class_key`.
 *  Errors: as fief_object_get_key. */
FIEF_API bool fief_object_get_class_key(const fief_object_t *object,
                                        fief_class_key_t *out_class_key);

/** A new reference to the realm the object belongs to, or NULL.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API fief_realm_t *fief_object_get_realm(const fief_object_t *object);

/** Read one property into `*out_value`.  Strings and binaries are views
 *  (see OWNERSHIP).  A null optional property gives FIEF_TYPE_NULL.
 *  Errors: FIEF_ERR_INVALIDATED_OBJECT, FIEF_ERR_NO_SUCH_PROPERTY,
 *  FIEF_ERR_CLOSED, FIEF_ERR_WRONG_THREAD. */
FIEF_API bool fief_object_get_value(const fief_object_t *object, fief_property_key_t property,
                                    fief_value_t *out_value);

/** Read `num_values` properties in one call (one crossing for a whole row).
 *  Errors as fief_object_get_value. */
FIEF_API bool fief_object_get_values(const fief_object_t *object,
                                     const fief_property_key_t *properties, size_t num_values,
                                     fief_value_t *out_values);

/** Read `num_values` properties of the object of `class_key` with key
 *  `object_key`, without making an object handle: the way to follow a link
 *  (a FIEF_TYPE_LINK value names its target's class and key) or to read an
 *  object whose key was kept (fief_results_get_key, fief_object_get_key).
 *  Views as in fief_object_get_value.
 *  Errors: FIEF_ERR_NO_SUCH_CLASS, FIEF_ERR_NO_SUCH_OBJECT (none with that
 *  key in the realm's snapshot, or deleted), FIEF_ERR_NO_SUCH_PROPERTY,
 *  FIEF_ERR_CLOSED, FIEF_ERR_WRONG_THREAD. */
FIEF_API bool fief_object_get_values_by_key(fief_realm_t *realm, fief_class_key_t class_key,
                                            fief_object_key_t object_key,
                                            const fief_property_key_t *properties, size_t num_values,
                                            fief_value_t *out_values);

/** Write one property (in a write transaction).  Strings and binaries are
 *  copied.  The value's type must be the property's (or FIEF_TYPE_NULL for
 *  an optional property), except that float and double properties also take
 *  FIEF_TYPE_INT, FIEF_TYPE_FLOAT and FIEF_TYPE_DOUBLE values, converted.
 *  A link property takes FIEF_TYPE_LINK values naming an existing object of
 *  its target class in this file (or FIEF_TYPE_NULL to clear it); the link
 *  is recorded on the target's side too (its backlinks).
 *  Errors: FIEF_ERR_NOT_IN_TRANSACTION, FIEF_ERR_WRONG_THREAD,
 *  FIEF_ERR_INVALIDATED_OBJECT, FIEF_ERR_NO_SUCH_PROPERTY,
 *  FIEF_ERR_TYPE_MISMATCH (also: a link to an object of another class),
 *  FIEF_ERR_NO_SUCH_OBJECT (a link to an object that does not exist, or was
 *  deleted), FIEF_ERR_NULL_NOT_ALLOWED, FIEF_ERR_INVALID_UTF8,
 *  FIEF_ERR_PRIMARY_KEY_CHANGE (a different value for the primary key). */
FIEF_API bool fief_object_set_value(fief_object_t *object, fief_property_key_t property,
                                    fief_value_t value);

/** Write several properties, all or nothing.  Errors as fief_object_set_value,
 *  and FIEF_ERR_INVALID_ARGUMENT for a property given twice. */
FIEF_API bool fief_object_set_values(fief_object_t *object, const fief_property_key_t *properties,
                                     const fief_value_t *values, size_t num_values);

/** Delete the object (in a write transaction); the handle stays and reports
 *  FIEF_ERR_INVALIDATED_OBJECT from then on.  Every link to it becomes null
 *  in the same transaction (found through its backlinks, never by a scan).
 *  Errors: FIEF_ERR_NOT_IN_TRANSACTION, FIEF_ERR_INVALIDATED_OBJECT, ... */
FIEF_API bool fief_object_delete(fief_object_t *object);

/** The objects of class `origin_class` whose link property `origin_property`
 *  points to `object` (its linking objects, RealmSwift's LinkingObjects), as
 *  live results: they follow every later write, and filter, sort, count and
 *  read like any results.  Found through the target's backlinks (one range
 *  scan), never by scanning the origin class.
 *  Errors: FIEF_ERR_INVALIDATED_OBJECT, FIEF_ERR_NO_SUCH_CLASS,
 *  FIEF_ERR_NO_SUCH_PROPERTY, FIEF_ERR_INVALID_ARGUMENT (the property is not
 *  a link to the object's class), FIEF_ERR_CLOSED. */
FIEF_API fief_results_t *fief_object_get_backlinks(const fief_object_t *object, fief_class_key_t origin_class,
                                                   fief_property_key_t origin_property);

/** Create an object of the embedded class that link `property` of `object`
 *  points to, in place (in a write transaction): the new object has every
 *  property at its default, and the link now points to it.  The link's
 *  previous embedded object, if any, is deleted.  An embedded object lives
 *  exactly as long as its parent's link to it: it is deleted with its parent
 *  and when the link is set to another object or to null; it is never
 *  created on its own (fief_object_create refuses an embedded class with
 *  FIEF_ERR_INVALID_ARGUMENT), never linked from elsewhere, and never listed
 *  by class (fief_realm_get_objects refuses it too).
 *  Returns a new handle to the created object, or NULL.
 *  Errors: FIEF_ERR_NOT_IN_TRANSACTION, FIEF_ERR_INVALIDATED_OBJECT,
 *  FIEF_ERR_NO_SUCH_PROPERTY, FIEF_ERR_INVALID_ARGUMENT (not a link to an
 *  embedded class), FIEF_ERR_FROZEN, FIEF_ERR_WRONG_THREAD. */
FIEF_API fief_object_t *fief_object_create_embedded(fief_object_t *object, fief_property_key_t property);

/** The same object in another realm of the same file (freeze: a frozen
 *  target; thaw: a live one).  `*out_object` receives a new handle, or NULL
 *  when the object does not exist in the target's version.
 *  Errors: FIEF_ERR_CLOSED (the object's realm or `target` is closed),
 *  FIEF_ERR_INVALID_ARGUMENT (`target` is another file). */
FIEF_API bool fief_object_resolve_in(const fief_object_t *object, fief_realm_t *target,
                                     fief_object_t **out_object);

/* ==========================================================================
 * Lists
 *
 * A list property holds an ordered list of values (every scalar type,
 * optional or not) or of objects (links, or embedded objects owned by the
 * list).  A list handle names one list: a realm, an object and a property.
 * It follows the realm like an object handle: reads see the realm's
 * current version, writes need a write transaction, and once the owner is
 * deleted every call fails with FIEF_ERR_INVALIDATED_OBJECT.  Elements are
 * read in place: strings and binaries are views (see OWNERSHIP).
 *
 * Links in a list are recorded on the target's side (fief_object_get_backlinks
 * finds the owner through the list); deleting an object removes it from
 * every list that holds it, in the same transaction.  An embedded object in
 * a list is created there (fief_list_insert_embedded) and deleted when it
 * leaves the list or the owner is deleted.
 *
 * Storage: segments of up to 256 elements in LMDB, so an append writes
 * O(log n) pages and `fief_list_get` is a binary search over segments.
 * ========================================================================== */

/** The list `property` of `object`: a new handle, or NULL.  On a mixed
 *  property holding a nested list (see "Nested collections"), that list.
 *  Errors: FIEF_ERR_INVALIDATED_OBJECT, FIEF_ERR_NO_SUCH_PROPERTY,
 *  FIEF_ERR_INVALID_ARGUMENT (the property is not a list, or a mixed
 *  property holds no list). */
FIEF_API fief_list_t *fief_object_get_list(const fief_object_t *object, fief_property_key_t property);

/** Whether the list's owner still exists (false for NULL or released handles).
 *  Cannot fail (no error is set). */
FIEF_API bool fief_list_is_valid(const fief_list_t *list);

/** Number of elements into `*out_count`.
 *  Errors: FIEF_ERR_INVALIDATED_OBJECT, FIEF_ERR_INVALID_ARGUMENT (NULL
 *  `out_count`), ... */
FIEF_API bool fief_list_count(const fief_list_t *list, size_t *out_count);

/** Element `index` into `*out_value` (FIEF_TYPE_LINK for objects).
 *  Errors: FIEF_ERR_INDEX_OUT_OF_BOUNDS, FIEF_ERR_INVALIDATED_OBJECT. */
FIEF_API bool fief_list_get(const fief_list_t *list, size_t index, fief_value_t *out_value);

/** Elements `start` ... `start + count - 1` into `out_values` (one call for
 *  a range).  Errors: FIEF_ERR_INDEX_OUT_OF_BOUNDS when the range does not
 *  lie within the list (nothing is written then). */
FIEF_API bool fief_list_get_range(const fief_list_t *list, size_t start, size_t count,
                                  fief_value_t *out_values);

/** The index of the first element equal to `value` into `*out_index`, and
 *  whether there is one into `*out_found` (a value of another type is
 *  never found).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (a NULL out-pointer, a malformed
 *  value), FIEF_ERR_INVALIDATED_OBJECT, ... */
FIEF_API bool fief_list_index_of(const fief_list_t *list, fief_value_t value, size_t *out_index,
                             bool *out_found);

/** Replace element `index` (in a write transaction).  A replaced embedded
 *  object is deleted.  Values are checked as fief_object_set_value checks
 *  them, against the list's element type; a link must name an existing,
 *  non-embedded object of the list's target class.
 *  Errors: FIEF_ERR_NOT_IN_TRANSACTION, FIEF_ERR_INDEX_OUT_OF_BOUNDS,
 *  FIEF_ERR_TYPE_MISMATCH, FIEF_ERR_NULL_NOT_ALLOWED, FIEF_ERR_INVALID_UTF8,
 *  FIEF_ERR_NO_SUCH_OBJECT (a deleted object), FIEF_ERR_INVALID_ARGUMENT
 *  (an embedded object), FIEF_ERR_FROZEN, FIEF_ERR_WRONG_THREAD.  On any
 *  error the list is unchanged. */
FIEF_API bool fief_list_set(fief_list_t *list, size_t index, fief_value_t value);

/** Insert `value` before element `index` (`index` == size appends).
 *  Errors as fief_list_set. */
FIEF_API bool fief_list_insert(fief_list_t *list, size_t index, fief_value_t value);

/** Append `count` values, all checked before any is added (all or nothing).
 *  Errors as fief_list_set. */
FIEF_API bool fief_list_append(fief_list_t *list, const fief_value_t *values, size_t count);

/** Remove element `index` (an embedded object is deleted; a linked object
 *  stays).  Errors: FIEF_ERR_INDEX_OUT_OF_BOUNDS, ... */
FIEF_API bool fief_list_remove(fief_list_t *list, size_t index);

/** Move element `from` to index `to`; the elements between shift by one.
 *  Errors: FIEF_ERR_INDEX_OUT_OF_BOUNDS, FIEF_ERR_INVALIDATED_OBJECT, ... */
FIEF_API bool fief_list_move(fief_list_t *list, size_t from, size_t to);

/** Swap elements `i` and `j`.
 *  Errors: FIEF_ERR_INDEX_OUT_OF_BOUNDS, FIEF_ERR_INVALIDATED_OBJECT, ... */
FIEF_API bool fief_list_swap(fief_list_t *list, size_t i, size_t j);

/** Remove every element (linked objects stay; embedded ones are deleted).
 *  Errors: FIEF_ERR_INVALIDATED_OBJECT, ... */
FIEF_API bool fief_list_clear(fief_list_t *list);

/** Remove every element of a list of objects and delete those objects
 *  (each once, however often it was listed).  Errors as fief_list_clear,
 *  and FIEF_ERR_INVALID_ARGUMENT for a list of values. */
FIEF_API bool fief_list_delete_all_objects(fief_list_t *list);

/** Create an object of the list's embedded class in place, inserted before
 *  element `index` (size appends); every property at its default.  Returns
 *  a new handle to it, or NULL.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (not a list of an embedded class),
 *  FIEF_ERR_INDEX_OUT_OF_BOUNDS, FIEF_ERR_NOT_IN_TRANSACTION, ... */
FIEF_API fief_object_t *fief_list_insert_embedded(fief_list_t *list, size_t index);

/** The list's elements as live results, in list order.
 *  A list of links gives results of objects (an object listed twice is
 *  there twice): filter and sort them like any results (a sort keeps list
 *  order among equal keys); they follow every later change to the list and
 *  to the objects.  Deleting objects through them (fief_results_delete_all)
 *  deletes each once.
 *  A list of values gives results of values: read them with
 *  fief_results_get_value, filter them with predicates over `self`
 *  ("self > 5", "self BEGINSWITH[c] 'a'", "self == nil"), sort them with
 *  the key "self", look values up with fief_results_index_of_value and aggregate them
 *  (fief_results_aggregate); the functions for objects refuse them (see
 *  "Results and queries").  They follow every later change to the list.
 *  A list of mixed values gives results of values too, each read with its
 *  own type (a link as FIEF_TYPE_LINK), filtered, sorted, found and
 *  aggregated by Realm's rules for mixed values (see "Mixed values in
 *  results").
 *  Errors: FIEF_ERR_INVALIDATED_OBJECT (the owner was deleted). */
FIEF_API fief_results_t *fief_list_to_results(const fief_list_t *list);

/** The same list in another realm of the same file (freeze: a frozen
 *  target; thaw: a live one).  `*out_list` receives a new handle, or NULL
 *  when the owner does not exist in the target's version.
 *  Errors: FIEF_ERR_CLOSED (the list's realm or `target` is closed),
 *  FIEF_ERR_INVALID_ARGUMENT (`target` is another file). */
FIEF_API bool fief_list_resolve_in(const fief_list_t *list, fief_realm_t *target, fief_list_t **out_list);

/* ==========================================================================
 * Sets
 *
 * A set property holds distinct values (every scalar type, optional or
 * not) or distinct objects (links; never embedded objects).  A set handle
 * names one set, like a list handle (a realm, an object, a property), and
 * follows the realm the same way.  Elements are kept in their order:
 * numbers by value (-0 and 0 are one element, every NaN is one NaN,
 * first), strings and binaries bytewise, timestamps in time order, object
 * ids and UUIDs bytewise, decimals by value (1.0 and 1.00 are one element,
 * stored and read back in one canonical form: 2.50 reads as 2.5, -0 as 0),
 * links by object key, null first; fief_set_get(i) is the i-th in that
 * order.  Strings and binaries are views (see OWNERSHIP).  A set of mixed
 * values holds one element per value as Realm's equality has it (see
 * "Mixed values in results"): int 1, float 1, double 1.0 and decimal128 1
 * are one element, and so are decimal128 2^70 and double 2^70; the value
 * first added is the one kept and read back.
 *
 * Links in a set are recorded on the target's side; deleting an object
 * removes it from every set that holds it, in the same transaction.
 *
 * Storage: one LMDB entry per element, keyed by the owner and the element
 * in an order-preserving encoding, so insert, remove and contains are one
 * B-tree operation each (O(log n) pages) and two sets are merged in order.
 * ========================================================================== */

/** The set `property` of `object`: a new handle, or NULL.
 *  Errors: FIEF_ERR_INVALIDATED_OBJECT, FIEF_ERR_NO_SUCH_PROPERTY,
 *  FIEF_ERR_INVALID_ARGUMENT (the property is not a set). */
FIEF_API fief_set_t *fief_object_get_set(const fief_object_t *object, fief_property_key_t property);

/** Whether the set's owner still exists (false for a released handle).
 *  Cannot fail (no error is set). */
FIEF_API bool fief_set_is_valid(const fief_set_t *set);

/** The number of elements into `*out_count`.
 *  Errors: FIEF_ERR_INVALIDATED_OBJECT, FIEF_ERR_INVALID_HANDLE, ... */
FIEF_API bool fief_set_count(const fief_set_t *set, size_t *out_count);

/** Element `index` in the set's order into `*out_value`.  The first read of
 *  a set in a version walks it once; later reads are direct.
 *  Errors: FIEF_ERR_INDEX_OUT_OF_BOUNDS, FIEF_ERR_INVALIDATED_OBJECT, ... */
FIEF_API bool fief_set_get(const fief_set_t *set, size_t index, fief_value_t *out_value);

/** Elements `start ..< start + count` into `out_values` (one call for a
 *  range).  Errors: FIEF_ERR_INDEX_OUT_OF_BOUNDS (nothing is written), ... */
FIEF_API bool fief_set_get_range(const fief_set_t *set, size_t start, size_t count,
                                 fief_value_t *out_values);

/** Whether the set holds `value` into `*out_contains` (one lookup).  A value
 *  of another type is in no set (not an error); ints and floats are
 *  converted like writes (an int 2 is found in a set of doubles).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL `out_contains`, a malformed
 *  value), FIEF_ERR_INVALIDATED_OBJECT, ... */
FIEF_API bool fief_set_contains(const fief_set_t *set, fief_value_t value, bool *out_contains);

/** The position of `value` in the set's order: `*out_found` says whether it
 *  is there, `*out_index` where (0 when not found).
 *  Errors: as fief_set_contains. */
FIEF_API bool fief_set_index_of(const fief_set_t *set, fief_value_t value, size_t *out_index,
                            bool *out_found);

/** Add `value`; `*out_inserted` (may be NULL) says whether it was new.
 *  Errors: FIEF_ERR_NOT_IN_TRANSACTION, FIEF_ERR_TYPE_MISMATCH (a value or a
 *  link of another type or class), FIEF_ERR_NULL_NOT_ALLOWED,
 *  FIEF_ERR_INVALID_UTF8, FIEF_ERR_NO_SUCH_OBJECT (a link to an object that
 *  does not exist), FIEF_ERR_INVALIDATED_OBJECT (the owner was deleted),
 *  FIEF_ERR_FROZEN ...; on error nothing is written. */
FIEF_API bool fief_set_insert(fief_set_t *set, fief_value_t value, bool *out_inserted);

/** Take `value` out; `*out_removed` (may be NULL) says whether it was there.
 *  Errors as fief_set_insert (a value of another type is simply not there). */
FIEF_API bool fief_set_remove(fief_set_t *set, fief_value_t value, bool *out_removed);

/** Remove every element (linked objects stay).
 *  Errors: FIEF_ERR_INVALIDATED_OBJECT, ... */
FIEF_API bool fief_set_clear(fief_set_t *set);

/** Set algebra with `other`, a set of the same element type (and target
 *  class) in the same realm handle; `set` and `other` may be the same set.
 *  The tests write their answer to `*out_result`; the others change `set`.
 *  Errors: FIEF_ERR_TYPE_MISMATCH (other element types), FIEF_ERR_INVALID_ARGUMENT
 *  (`other` of another realm handle: resolve it first), FIEF_ERR_INVALID_HANDLE
 *  (`other` released or not a set), and for the changes those of
 *  fief_set_insert. */
FIEF_API bool fief_set_intersects(const fief_set_t *set, const fief_set_t *other, bool *out_result);
FIEF_API bool fief_set_is_subset_of(const fief_set_t *set, const fief_set_t *other, bool *out_result);
FIEF_API bool fief_set_is_superset_of(const fief_set_t *set, const fief_set_t *other, bool *out_result);
/** set = set ∪ other.  Errors as fief_set_intersects (above). */
FIEF_API bool fief_set_form_union(fief_set_t *set, const fief_set_t *other);
/** set = set ∩ other.  Errors as fief_set_intersects (above). */
FIEF_API bool fief_set_form_intersection(fief_set_t *set, const fief_set_t *other);
/** set = set − other.  Errors as fief_set_intersects (above). */
FIEF_API bool fief_set_subtract(fief_set_t *set, const fief_set_t *other);

/** The set as live results, in the set's order: for a set of links, its
 *  objects (filter and sort them like any results); for a set of values,
 *  results of values (filter with `self`, sort by "self", read them with
 *  fief_results_get_value, as a list's; a set of mixed values by the rules
 *  of "Mixed values in results").  They follow every later change.
 *  Errors: FIEF_ERR_INVALIDATED_OBJECT. */
FIEF_API fief_results_t *fief_set_to_results(const fief_set_t *set);

/** The same set in another realm of the same file (freeze: a frozen
 *  target; thaw: a live one).  `*out_set` receives a new handle, or NULL
 *  when the owner does not exist in the target's version.
 *  Errors: FIEF_ERR_CLOSED (the set's realm or `target` is closed),
 *  FIEF_ERR_INVALID_ARGUMENT (`target` is another file). */
FIEF_API bool fief_set_resolve_in(const fief_set_t *set, fief_realm_t *target, fief_set_t **out_set);

/* ==========================================================================
 * Maps
 *
 * A map property maps string keys to values (every scalar type, optional
 * or not), to objects (links, always optional) or to embedded objects owned
 * by the map.  A map handle names one map, like a list handle.  Entries are
 * kept in key order (bytewise UTF-8, as Realm orders them); entry i is the
 * i-th in that order.  Keys and values read are views (see OWNERSHIP).
 *
 * Keys are UTF-8 of at most 480 bytes that contain no '.' and do not start
 * with '$' (the query language uses both); any other key is refused with
 * FIEF_ERR_INVALID_ARGUMENT (FIEF_ERR_INVALID_UTF8 for bad UTF-8) and
 * nothing is written.  Reading such a key finds nothing.
 *
 * Links in a map are recorded on the target's side; deleting an object
 * sets every map value pointing at it to null (the keys stay).  An embedded
 * value is created in place (fief_map_insert_embedded) and deleted when its
 * key is removed or set to another value, or its owner is deleted.
 *
 * Storage: one LMDB entry per key, so set, get and remove are one B-tree
 * operation each.
 * ========================================================================== */

/** The map `property` of `object`: a new handle, or NULL.  On a mixed
 *  property holding a nested map (see "Nested collections"), that
 *  map.
 *  Errors: FIEF_ERR_INVALIDATED_OBJECT, FIEF_ERR_NO_SUCH_PROPERTY,
 *  FIEF_ERR_INVALID_ARGUMENT (the property is not a map, or a mixed
 *  property holds no map). */
FIEF_API fief_map_t *fief_object_get_map(const fief_object_t *object, fief_property_key_t property);

/** Whether the map's owner still exists (false for a released handle).
 *  Cannot fail (no error is set). */
FIEF_API bool fief_map_is_valid(const fief_map_t *map);

/** The number of entries into `*out_count`.
 *  Errors: FIEF_ERR_INVALIDATED_OBJECT, FIEF_ERR_INVALID_ARGUMENT (NULL
 *  `out_count`), ... */
FIEF_API bool fief_map_count(const fief_map_t *map, size_t *out_count);

/** The value of `key`: `*out_found` says whether the map has the key;
 *  `*out_value` is the value (type FIEF_TYPE_NULL when not found, or when
 *  the value is null).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (a NULL out-pointer, `key.data`
 *  NULL with a size), FIEF_ERR_INVALIDATED_OBJECT, ... */
FIEF_API bool fief_map_get(const fief_map_t *map, fief_string_t key, fief_value_t *out_value, bool *out_found);

/** Whether the map has `key` into `*out_contains`.
 *  Errors: as fief_map_get. */
FIEF_API bool fief_map_contains_key(const fief_map_t *map, fief_string_t key, bool *out_contains);

/** The position of `key` in key order: `*out_found`, `*out_index`.
 *  Errors: as fief_map_get. */
FIEF_API bool fief_map_index_of_key(const fief_map_t *map, fief_string_t key, size_t *out_index, bool *out_found);

/** Entry `index` in key order: its key into `*out_key` and value into
 *  `*out_value` (either may be NULL).
 *  Errors: FIEF_ERR_INDEX_OUT_OF_BOUNDS, FIEF_ERR_INVALIDATED_OBJECT, ... */
FIEF_API bool fief_map_get_entry(const fief_map_t *map, size_t index, fief_string_t *out_key, fief_value_t *out_value);

/** Entries `start ..< start + count`: keys into `out_keys` and values into
 *  `out_values` (either may be NULL, not both when count > 0).
 *  Errors: FIEF_ERR_INDEX_OUT_OF_BOUNDS (nothing is written), ... */
FIEF_API bool fief_map_get_entries(const fief_map_t *map, size_t start, size_t count,
                                   fief_string_t *out_keys, fief_value_t *out_values);

/** Set `key` to `value`, adding the key if it is new.  For a map of
 *  embedded objects, use fief_map_insert_embedded (or null to clear a key).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (a key refused: see above; an existing
 *  object for a map of embedded objects), FIEF_ERR_INVALID_UTF8,
 *  FIEF_ERR_TYPE_MISMATCH, FIEF_ERR_NULL_NOT_ALLOWED, FIEF_ERR_NO_SUCH_OBJECT,
 *  FIEF_ERR_NOT_IN_TRANSACTION, FIEF_ERR_INVALIDATED_OBJECT, FIEF_ERR_FROZEN;
 *  on error nothing is written. */
FIEF_API bool fief_map_set(fief_map_t *map, fief_string_t key, fief_value_t value);

/** Remove `key`; `*out_removed` (may be NULL) says whether it was there
 *  (an embedded value is deleted with it).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (`key.data` NULL with a size),
 *  FIEF_ERR_INVALIDATED_OBJECT, ... */
FIEF_API bool fief_map_remove(fief_map_t *map, fief_string_t key, bool *out_removed);

/** Remove every entry (linked objects stay; embedded ones are deleted).
 *  Errors: FIEF_ERR_INVALIDATED_OBJECT, ... */
FIEF_API bool fief_map_clear(fief_map_t *map);

/** Create an object of the map's embedded class in place as the value of
 *  `key` (the key's previous embedded object is deleted); every property
 *  at its default.  Returns a new handle to it, or NULL.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (not a map of an embedded class, or a
 *  key refused), FIEF_ERR_NOT_IN_TRANSACTION, ... */
FIEF_API fief_object_t *fief_map_insert_embedded(fief_map_t *map, fief_string_t key);

/** The map's values as live results, in key order: for a map of links,
 *  the objects (null values left out; an object that is the value of two
 *  keys is there twice); for a map of values, results of values (as a
 *  set's; a map of mixed values by the rules of "Mixed values in
 *  results", links and nulls included).  Errors: FIEF_ERR_INVALIDATED_OBJECT. */
FIEF_API fief_results_t *fief_map_to_results(const fief_map_t *map);

/** The same map in another realm of the same file (see fief_set_resolve_in).
 *  Errors: as fief_set_resolve_in. */
FIEF_API bool fief_map_resolve_in(const fief_map_t *map, fief_realm_t *target, fief_map_t **out_map);

/* ==========================================================================
 * Nested collections
 *
 * A mixed value (a mixed property, an element of a list of mixed values, a
 * value of a map of mixed values, or an element of another nested
 * collection) may hold a list or a map of mixed values, as Realm's
 * AnyRealmValue.list and .dictionary do; they nest to any depth, and every
 * call works at any depth (none recurses per level: deleting, replacing,
 * querying, fief_file_verify and fief_file_copy were tested at 100,000
 * levels on a thread with a 512 KB stack).  Sets of mixed values never
 * hold one.
 *
 * Writing: a fief_value_t of type FIEF_TYPE_LIST or FIEF_TYPE_MAP
 * (its `u` is ignored) written where a mixed value goes (fief_object_set_value,
 * fief_object_create, fief_list_set / _insert / _append, fief_map_set)
 * stores a new, empty nested collection there.  A nested collection belongs
 * to the value holding it: replacing that value, removing the element or
 * key, clearing the collection around it or deleting the owner object
 * deletes it and everything nested in it, in the same transaction.  Written
 * anywhere else (a property or collection of another type, a set of mixed
 * values) such a value is refused with FIEF_ERR_TYPE_MISMATCH.
 *
 * Reading: the value reads back as type FIEF_TYPE_LIST or
 * FIEF_TYPE_MAP (no payload); get a handle to the collection with
 * fief_object_get_list / fief_object_get_map on the mixed property, or
 * fief_list_get_list / _get_map and fief_map_get_list / _get_map on the
 * collection holding it.  A nested list handle is a fief_list_t and a nested
 * map handle a fief_map_t: every list and map function takes them
 * (fief_list_insert_embedded and fief_map_insert_embedded refuse them with
 * FIEF_ERR_INVALID_ARGUMENT, as for any collection of mixed values), they
 * follow the realm and resolve into other realms like any collection
 * handle, and once the nested collection is gone (replaced, removed, its
 * owner deleted) every call but release fails with
 * FIEF_ERR_INVALIDATED_OBJECT and fief_list_is_valid / fief_map_is_valid
 * say false.  Map key rules apply to nested map keys.  Links inside
 * nested collections are recorded on the target's side with the owner
 * object and the top mixed property (or list or map) as their origin;
 * deleting a target removes it from nested lists (as from lists of mixed
 * values) and sets it to null in nested maps.  fief_list_to_results
 * and fief_map_to_results give results of their values (a nested list's in
 * order, a nested map's in key order), filtered, sorted and
 * aggregated as any results of mixed values; fief_list_aggregate and
 * fief_map_aggregate aggregate them directly.
 *
 * Queries read into nested collections with key paths continuing after
 * the mixed value: "mixed[0] == 5", "mixed['a']['b'][1] > 3", "ANY
 * mixed[*] == 'x'", "items[0].k == 1", "mixed.@size == 2", "mixed.@type ==
 * 'dictionary'" (see fief_results_filter, "Into the lists and maps
 * nested in mixed values"); results filtered so follow every change inside
 * the nested collections they read.
 *
 * Storage: per class, one LMDB database of nested entries: one entry per
 * element (a list's keyed by collection id and a position with gaps, a
 * map's by collection id and key), so a nested collection's writes
 * cost one B-tree operation each, as a map's do.
 * ========================================================================== */

/** The nested list or map that element `index` of `list` (a list of
 *  mixed values, or a nested list) holds: a new handle, or NULL.
 *  Errors: FIEF_ERR_INDEX_OUT_OF_BOUNDS, FIEF_ERR_INVALID_ARGUMENT (the
 *  element holds something else: the message names what),
 *  FIEF_ERR_INVALIDATED_OBJECT. */
FIEF_API fief_list_t *fief_list_get_list(const fief_list_t *list, size_t index);
FIEF_API fief_map_t *fief_list_get_map(const fief_list_t *list, size_t index);

/** The nested list or map that the value of `key` in `map` (a map of
 *  mixed values, or a nested map) holds: a new handle, or NULL.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (no such key, or its value holds
 *  something else: the message says which), FIEF_ERR_INVALIDATED_OBJECT. */
FIEF_API fief_list_t *fief_map_get_list(const fief_map_t *map, fief_string_t key);
FIEF_API fief_map_t *fief_map_get_map(const fief_map_t *map, fief_string_t key);

/* ==========================================================================
 * Results and queries
 *
 * Results hold either objects (fief_realm_get_objects, backlinks, a list of
 * links) or values (a list of values: fief_list_to_results).  Results of
 * values read their elements in place from the list (strings and binaries
 * are views, see OWNERSHIP): unfiltered and unordered they keep nothing;
 * otherwise they keep the positions of their elements, evaluated again
 * after every change to the list or its owner.  Filters name the element
 * `self`; the one sort and distinct key path is "self".  fief_results_count,
 * _filter, _sort, _distinct, _limit, _is_valid, _get_realm, _resolve_in and
 * fief_results_aggregate take both kinds; fief_results_get_value,
 * fief_results_index_of_value take values only; fief_results_get_object, _get_key,
 * _get_values, _index_of_object, _get_class_key and _delete_all take objects only.
 * A call on the other kind fails with FIEF_ERR_INVALID_ARGUMENT and a
 * message naming the function, and changes nothing.
 *
 * Sort, distinct and limit.  After their filters, results apply a list of
 * stages, left to right, each to what the ones before it left, as Realm's
 * SORT(...) DISTINCT(...) LIMIT(n) do: fief_results_sort,
 * fief_results_distinct and fief_results_limit each return new results
 * with one stage more.  So limiting then sorting sorts the first n objects
 * (in the order of the results: key order for fief_realm_get_objects, list
 * order for a list), while sorting then limiting takes the n first in the
 * sorted order; a distinct after a sort keeps, for each value, the object
 * first in that order.  Sort and distinct key paths may follow to-one
 * links and embedded objects ("owner.name", "address.city"), never lists,
 * sets or maps.  Such results stay live: they evaluate again after a
 * write to anything they read, the links followed and the linked objects'
 * properties included (renaming an owner reorders dogs sorted by
 * "owner.name").  Count, aggregates, fief_results_index_of_object and
 * fief_results_delete_all see the objects the stages leave.
 *
 * Mixed values in results (a list, set or map of mixed values, a nested list
 * or map), as Realm compares mixed values:
 *  - Order (sorting by "self"; nulls first ascending, last descending):
 *    null, bool (false, true), numbers, string, binary, timestamp, object
 *    id, uuid, link (by class key, then object key), nested list, nested
 *    map (each kind in the collection's order).  Numbers of every
 *    type sort together by exact value (int 1, double 1.0 and decimal128 1
 *    are equal; a NaN is below every other number); strings and binaries
 *    by their bytes.  Equal values keep the collection's order, either way.
 *  - Equality (fief_results_index_of_value, ==, !=): numbers equal across int, float,
 *    double and decimal128 by exact value (the double 0.1 is not the
 *    decimal128 0.1, as in a set of mixed values); values of other groups
 *    are never equal (true is not 1, "1" is not 1, a string is not a binary);
 *    a FIEF_TYPE_LIST or FIEF_TYPE_MAP value is never found.
 *  - Filters over `self`: "self == 1" matches int 1, double 1.0 and
 *    decimal128 1; <, <=, >, >= compare a number with numbers only, a string
 *    with strings only (and so on), and are false for every value of another
 *    group; != is true for them (and for a NaN, which no other comparison
 *    matches).  "self == nil" matches nulls.  BEGINSWITH,
 *    ENDSWITH, CONTAINS, LIKE and [c]/[d] take a string (or binary) value and
 *    match string (or binary) elements only.  A bool or link is compared
 *    with == and != only.  A predicate breaking these rules fails with
 *    FIEF_ERR_QUERY_INVALID (FIEF_ERR_QUERY_ARGUMENT when the value is an
 *    argument).
 * ========================================================================== */

/** One argument of a predicate: `$n` (or the n-th `%@`) is `values[0]` when
 *  `is_list` is false; a list of `count` values otherwise (reserved for IN). */
typedef struct fief_query_arg {
    size_t count;
    bool is_list;
    const fief_value_t *values;
} fief_query_arg_t;

/** Geospatial queries.  Points are stored as embedded objects shaped as
 *  GeoJSON points: an embedded class with a string property `type` (holding
 *  "Point", any case) and a list of doubles `coordinates` ([longitude,
 *  latitude] or [longitude, latitude, altitude], degrees).  A link to such
 *  objects is queried with `location GEOWITHIN <shape>`, the shape written
 *  in the predicate (`geoBox([lon, lat], [lon, lat])`, `geoPolygon({[lon,
 *  lat], ...}, {hole}, ...)`, `geoCircle([lon, lat], radians)`, its numbers
 *  maybe arguments) or given as an argument: a FIEF_TYPE_GEO_SHAPE value, or
 *  a FIEF_TYPE_STRING holding that text.  `location IN $0` with a shape
 *  argument means the same.  Through lists, sets, maps of links and
 *  backlinks the test is quantified: ANY (the default) when some point
 *  reached is inside, NONE when none is, ALL when at least one is reached
 *  and all are inside.  An object that is no point (another type, fewer
 *  than two coordinates, coordinates out of range) is inside no shape.
 *  Geometry is on the sphere: edges are great-circle arcs (a box is the
 *  polygon of its four corners, taking the shorter way round, so corners at
 *  longitudes 170 and -170 make a 20-degree box across the antimeridian),
 *  a ring stands for the smaller region it bounds, circles are closed caps;
 *  distances in radians use an Earth radius of 6378.1 km.  One point of a
 *  list (`locations[0]`, `locations[FIRST]`, `locations[LAST]`) or under a
 *  map key may be tested too.
 *  Cost: every embedded class shaped as a point has a spatial index, kept
 *  by every write (no declaration): a query reads only the points near its
 *  shape's bounding rectangle, in place, and tests those exactly.  A file
 *  written before spatial indexes gets its index on its first writable
 *  open (opened read-only, queries read every point).
 *  fief_results_get_description writes shape and coordinate arguments in
 *  as literal shapes (`location GEOWITHIN geoBox([0.2, 0.2], [0.7, 0.7])`).
 *  Errors: a left side that is not a link to an embedded class shaped as a
 *  point is FIEF_ERR_QUERY_INVALID; an invalid shape (a coordinate out of
 *  range, a negative or NaN radius, a ring not closed, with fewer than three
 *  distinct vertices or crossing itself, a hole outside the outer ring,
 *  ...) is FIEF_ERR_QUERY_INVALID when written in the predicate and
 *  FIEF_ERR_QUERY_ARGUMENT when given as an argument, as is an argument of
 *  another type after GEOWITHIN, a string that is no shape, a coordinate
 *  argument that is not a number, and a shape argument anywhere but after
 *  GEOWITHIN or IN. */

/** A point for a shape: degrees, longitude first (GeoJSON order). */
typedef struct fief_geo_point {
    double longitude; /* -180 ... 180 */
    double latitude;  /* -90 ... 90 */
} fief_geo_point_t;

/** A ring of a polygon: `count` points, closed (the last equals the first),
 *  with at least three distinct vertices. */
typedef struct fief_geo_ring {
    const fief_geo_point_t *points;
    size_t count;
} fief_geo_ring_t;

/** The kind of a fief_geo_shape_t. */
typedef int32_t fief_geo_kind_t;
#define FIEF_GEO_BOX 1     /* `corners`: two opposite corners, in either order */
#define FIEF_GEO_POLYGON 2 /* `rings`: the outer ring, then any holes */
#define FIEF_GEO_CIRCLE 3  /* `center` and `radius`, in radians (the angle at the
                              Earth's center: kilometers / 6378.1) */

/** A region for GEOWITHIN, passed as a query argument through a
 *  fief_value_t of type FIEF_TYPE_GEO_SHAPE (`u.geo_shape`, not NULL) in an
 *  argument that is not a list.  Only the members of its kind are read, and
 *  only during the fief_results_filter call (the shape is copied).  An
 *  unknown kind, `rings` NULL with `num_rings` above 0 or a ring's `points`
 *  NULL with a count is FIEF_ERR_INVALID_ARGUMENT; the geometry is checked as
 *  the query language checks it (FIEF_ERR_QUERY_ARGUMENT).
 *
 *      fief_geo_shape_t box = {FIEF_GEO_BOX, .corners = {{-122.7, 47.3}, {-122.1, 48.1}}};
 *      fief_value_t shape = {FIEF_TYPE_GEO_SHAPE, .u.geo_shape = &box};
 *      fief_query_arg_t arg = {1, false, &shape};
 *      fief_results_t *near = fief_results_filter(all, "location GEOWITHIN $0", &arg, 1);
 */
typedef struct fief_geo_shape {
    fief_geo_kind_t kind;
    fief_geo_point_t corners[2];   /* FIEF_GEO_BOX */
    const fief_geo_ring_t *rings;  /* FIEF_GEO_POLYGON */
    size_t num_rings;
    fief_geo_point_t center;       /* FIEF_GEO_CIRCLE */
    double radius;
} fief_geo_shape_t;

/** One sort key: a key path, and the direction.  The key path is a
 *  zero-terminated UTF-8 string of property names joined by '.': a property
 *  of the objects ("name"), or a path through to-one links and embedded
 *  objects to a property of the object at its end ("owner.name",
 *  "address.city", "a.b.c"), or to a map of values and one key of it
 *  ("meta.age": the value at that key, null when the map lacks it, as
 *  realm-core sorts and dedups by a dictionary key); "self" for results of
 *  values. */
typedef struct fief_sort_descriptor {
    const char *key_path; /* zero-terminated key path */
    bool ascending;
} fief_sort_descriptor_t;

/** Every object of `class_key`, in key order (creation order), live.
 *  Returns a new results handle, or NULL (FIEF_ERR_NO_SUCH_CLASS, ...).
 *  Errors: FIEF_ERR_NO_SUCH_CLASS, FIEF_ERR_INVALID_ARGUMENT (an embedded
 *  class), FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE,
 *  FIEF_ERR_CLOSED, FIEF_ERR_WRONG_THREAD. */
FIEF_API fief_results_t *fief_realm_get_objects(fief_realm_t *realm, fief_class_key_t class_key);

/** The objects of `results` that match `predicate`, a zero-terminated UTF-8
 *  string in Realm's query language (realm-core's grammar and semantics).
 *  Keywords are case-insensitive.  `args` holds `num_args` arguments.
 *
 *  Predicates: comparisons `== = != <> < <= =< > >= =>`; string operators
 *  `BEGINSWITH ENDSWITH CONTAINS LIKE` (`*` and `?` wildcards), each of
 *  these and `==`/`!=` optionally followed by `[c]` (case-insensitive),
 *  `[d]` (diacritic-insensitive) or `[cd]`; `x IN list`, `x BETWEEN {low,
 *  high}` (bounds included); `AND && OR || NOT !`, parentheses,
 *  TRUEPREDICATE, FALSEPREDICATE.
 *  Literals: numbers (`1`, `-2.5`, `0x1F`, `1.5f` float, digits beyond a
 *  double's precision kept exactly for decimal128), 'strings' or "strings",
 *  true, false, null/nil, timestamps `T<s>:<ns>` or `YYYY-MM-DD@HH:MM:SS`,
 *  `oid(<24 hex>)`, `uuid(<uuid>)`, `B64"<base64>"` (a string, as in
 *  realm-core's grammar: `name == B64"UmV4"` is `name == 'Rex'`; bytes
 *  that are not UTF-8 are FIEF_ERR_QUERY_SYNTAX), binaries `bin('text')`,
 *  `binary("text")` and `bin(B64"<base64>")` (only these are binary), lists
 *  `{1, 'a', $0}`, an object by primary key `obj('Class', pk)`, an object
 *  by key `O<key>` (of the class of the link it is compared with:
 *  "friend == O3") or `L<class key>:<object key>`.
 *  Arguments: `$0 $1 ...` or `%@` (each `%@` takes the next argument); a
 *  list argument (`is_list`) wherever a list literal goes ("age IN $0");
 *  `$K0` or `%K` (each `%K` takes the next argument, as `%@` does) is a
 *  key path given as a FIEF_TYPE_STRING argument: property names joined by
 *  '.' ("owner.name"), `@links.Class.property`, `@links`, `@keys`,
 *  `@values` ("%K == %@" with "name" and "Rex" is "name == 'Rex'"); only
 *  `.@count`, `.@type` or an aggregate may follow it.  NSPredicate's
 *  printf-style numbers take the next argument as `%@` does and convert
 *  it: `%d %i %ld %lld %u %x ...` (flags, width, precision and length
 *  modifiers read and ignored; the value is never narrowed) take any
 *  number as an integer (a double truncated toward zero, a bool as 0 or
 *  1), `%f %lf %g %e ...` any number as a double ("age > %d" with 3,
 *  "ratio >= %f" with 0.5); another type is FIEF_ERR_QUERY_ARGUMENT.
 *  `%s %c %p` and `%%` outside a quoted string are FIEF_ERR_QUERY_SYNTAX;
 *  inside quotes every specifier is text.
 *  Key paths: a property ("age"); through to-one links and embedded objects
 *  ("owner.address.city"; a null link on the way reads null); through lists,
 *  sets and maps of links and backlinks `@links.Class.property` ("dogs.age",
 *  "@links.Person.dogs.name"), which reach many values; map values by key
 *  ("prices['tea']", "prices.tea", "prices[$0]", all of them: "prices[*]",
 *  "prices.@values"; the keys: "prices.@keys"; NSPredicate's "@allValues"
 *  and "@allKeys" are the same) and list elements by
 *  position ("scores[0]", "[FIRST]", "[LAST]", "[$0]").
 *  Into the lists and maps nested in mixed values (see "Nested
 *  collections"), after a mixed property or one element or key of a list
 *  or map of mixed values, to any depth: a position of a nested list
 *  ("mixed[0]", "[FIRST]", "[LAST]", "[$0]" with an int argument), a key of
 *  a nested map ("mixed['key']", "mixed.key", "[$0]" with a string),
 *  every element or value ("mixed[*]"), a nested map's keys at the end
 *  ("mixed.@keys"): "mixed['a']['b'][1] > 3", "items[0].k == 1",
 *  "props.a[*] == 2", "ANY mixed[*] == 1", "mixed['a'].@size > 2",
 *  "mixed.@size == 3" (a string's or binary's length, a nested
 *  collection's size, null for other values), "mixed[3].@type == 'list'"
 *  ('list'/'array', 'dictionary'/'object', 'collection').  A link met on
 *  the way is followed by naming a property of its object
 *  ("mixed.friend.name").  A step meeting anything else (a scalar, null, a
 *  key for a list, a position for a map, a position past the end)
 *  reaches nothing, and a missing key before the last step too: no match,
 *  never an error; a missing key at the last step reads null
 *  ("mixed.missing == nil").  As in realm-core, each walk reaching the last
 *  step is compared on its own and the object matches when one does: "NONE
 *  mixed[*][*] == 2" holds when some inner list holds no 2, "ALL
 *  friends.mixed.k == 1" when some friend's is 1 (or there is no friend); a
 *  path with `[*]` or `@keys` (or through a list of mixed values) reads a
 *  list, compared element by element with a list given with the query
 *  ("mixed[*] == {1, 2, 3}") and with ANY (implied), ALL or NONE otherwise;
 *  a path reaching nothing reads an empty list (so "mixed[0] ==
 *  mixed[1]" holds when neither reaches a value).  FIEF_ERR_QUERY_INVALID,
 *  as realm-core refuses them: steps after a value that is not mixed
 *  ("tags[0][1]", "name[0]"), an aggregate of such a path
 *  ("mixed['a'].@max"), anything after `@keys`, `@links` after a nested
 *  value, a path into one mixed value after IN ("5 IN mixed[*]": write
 *  "ANY mixed[*] == 5"), ALL/NONE before "mixed.@size" without a to-many
 *  step, two collections of values compared with each other (list, set
 *  and map properties and paths into a list or map of mixed values:
 *  "items[*] == scores"; a path into a mixed property is not one, as in
 *  realm-core: "mixed[*] == scores" compares two lists, as below); an
 *  argument after `[` that is neither a string nor an int from 0 is
 *  FIEF_ERR_QUERY_ARGUMENT.
 *  Many values: a comparison holds when it holds for ANY value reached
 *  (implicitly, or written `ANY`/`SOME`), `ALL` of them (true when there
 *  are none) or `NONE`; "ANY dogs.age > 5", "ALL scores BETWEEN {1, 9}",
 *  "x IN scores" (x is among them), "scores == {1, 2}" (the same values in
 *  the same order), "age IN {1, 2}", "name == ANY {'a', 'b'}", "age != ALL
 *  $0".  Collections of values behind a to-many step are quantified per
 *  object reached.  With a quantifier on a list and on a collection, or
 *  between two collections, the left side's quantifier is the outer one:
 *  "ALL {4, 8} > ANY scores" (each of 4 and 8 is above some score), "ANY
 *  {1, 2} IN ALL scores", "ALL items.price IN ANY items.price".  With no
 *  ANY, ALL or NONE on either side, many values against a list
 *  ("scores == {1, 2}", "{5, 9} > prices", a list argument) or against
 *  the many values of another key path ("list1.price == list2.price",
 *  "items.price IN items.price") are compared element by element in
 *  order, as in realm-core: of different lengths they match only for
 *  `!=`; of one length, when every position matches the operator, `!=`
 *  included ("scores != {1, 2}" holds when the lengths differ or when
 *  every position differs: [1, 3] is neither == nor != {1, 2}; "NOT scores
 *  == {1, 2}" is the negation); two empty lists match whatever the
 *  operator.  Two lists,
 *  sets or maps of values compared directly ("scores == scores") are
 *  FIEF_ERR_QUERY_INVALID, as in realm-core; a path into a mixed property
 *  compared with one is not: "mixed[*] == scores" holds when the two hold
 *  the same values in the same order, "ANY mixed[*] == scores" when they
 *  share one, "ALL mixed[*] == scores" when each of the first is among
 *  the second (quantifiers as above).  A map of links may hold
 *  null values, which compare as null: "dogMap.@values == nil" (some value
 *  is null), "dogMap.@values == ANY {obj('Dog', 1), nil}", "ALL
 *  dogMap.@values != nil"; a list, set or backlinks of objects holds no
 *  null: a null in a list compared with one equals nothing, and a null
 *  alone ("dogs == nil") is FIEF_ERR_QUERY_INVALID (an argument:
 *  FIEF_ERR_QUERY_ARGUMENT), as in realm-core.
 *  Operations ending a key path: `.@count` / `.@size` / `[SIZE]` (elements
 *  of a collection, bytes of a string or binary, 0 or 1 for a to-one
 *  link; after one element of a list or map of strings, binaries or mixed
 *  values, that element's size: "tags[0].@size == 3", "tags[LAST].@count",
 *  "notes['k'].@size", the elements of a nested list or map in a
 *  mixed value, null for null, for any other value and past the end;
 *  after a key of a map of links, the map's entries, as realm-core counts
 *  them: "dogMap['a'].@count" is "dogMap.@count"; after a position of a
 *  list of links, FIEF_ERR_QUERY_INVALID, as realm-core refuses the
 *  position: "dogs[0].@count"),
 *  `.length` after a list or set of strings, binaries or mixed values (the
 *  length of each element that is a string or binary, a null string 0:
 *  "ANY tags.length > 5", "ALL tags.length == 0"; a map takes `length` as
 *  a key), `@links.@count` (incoming links), `.@min .@max .@sum .@avg` of a
 *  collection of values or of a property of the objects reached
 *  ("dogs.@avg.age"), `.@type` of a mixed value compared with type names
 *  ('int', 'string', 'numeric', 'binary', 'object', 'null', ...; "a.@type
 *  == 'int|double'"), and `SUBQUERY(collection, $x, predicate).@count`
 *  (how many objects of the collection match, `$x.` naming each one; as
 *  in realm-core, a key path without `$x.` names a property of those
 *  objects too, so a SUBQUERY never reads the object outside it).
 *  Arithmetic: `+ - * /` and unary `-` over numbers, properties, key paths
 *  and aggregates ("price * quantity > 100"), as realm-core computes them:
 *  the result has the widest type of its terms (int, float, double,
 *  decimal128); int division truncates, an int result wraps and an int
 *  divided by 0 is the largest int of the dividend's sign; decimal128 is
 *  IEEE 754-2008 decimal128 (34 significant digits, rounded half to even:
 *  "price / 3" of 10 is 3.333333333333333333333333333333333; an overflow
 *  is an infinity, a non-zero number divided by 0 an infinity of the
 *  operands' signs, 0 / 0 NaN), an int, float or double meeting a decimal
 *  becoming one; a null or non-number term makes the result null.  On a
 *  list of values with numbers given with the query, each element's
 *  result, the list's quantifier kept: "ALL {8, 10} / 2 >= ANY
 *  items.price", "{1, 2} * 2 == scores", "age IN $0 - 1".  A list of
 *  values with a property or key path gives one result per element, in
 *  order: "{1, 2} * age == 84" (age 84 or 42), "ALL $0 * price > 5" with
 *  a list argument; against another list, element by element ("{1, 2} *
 *  age == {42, 84}").  As in realm-core, one expression takes one list or
 *  collection at most: "scores * scores", "{1, 2} * items.price" and two
 *  lists are FIEF_ERR_QUERY_INVALID ("Realm's query language does not
 *  allow ..."), and so is arithmetic in a query on a collection of values.
 *  A list, set or backlinks of objects compares with a list of objects
 *  element by element in order: "items == {obj('Item', 'a'), $0}"; a map
 *  of links too, its values in key order with null ones ("dogMap ==
 *  {$0, nil}").  A collection of values behind a to-many step compared
 *  with a list element by element is compared per object reached, each
 *  one's collection on its own, as in realm-core: "link.scores == {4, 5}"
 *  holds when some object reached has exactly those scores.
 *  Points: `location GEOWITHIN <shape>` (see "Geospatial queries" above).
 *  Stages: the predicate may end with `SORT(key ASC|DESC, ...)`,
 *  `DISTINCT(key, ...)` and `LIMIT(n)`, in any order and number, applied
 *  left to right after the filter as fief_results_sort, _distinct and
 *  _limit are (their keys are key paths through to-one links; a map of
 *  values and a key, "SORT(meta['age'] ASC)" or "DISTINCT(meta.age)",
 *  orders and dedups by the value at that key, a missing key as null, as
 *  in realm-core).
 *
 *  The predicate is checked against the schema now: an unknown property or
 *  a comparison of incompatible types written in the predicate is
 *  FIEF_ERR_QUERY_INVALID; one caused by an argument (its type, a missing
 *  argument, a key-path argument that is no string or names no property)
 *  is FIEF_ERR_QUERY_ARGUMENT.  Strings and binaries are distinct types, as
 *  in Realm: a string property compares with strings only, a binary
 *  property with binaries only (bin(...) or a FIEF_TYPE_BINARY argument),
 *  whatever the operator.  Invalid UTF-8 in the predicate or a string
 *  argument is FIEF_ERR_INVALID_UTF8; an invalid timestamp argument is
 *  FIEF_ERR_INVALID_ARGUMENT.  fief_results_get_description gives the
 *  query back as canonical text.
 *  For results of values, `self` (or `SELF`) is the element: "self >= 2",
 *  "self CONTAINS[c] 'x'", "self == nil", "NOT (self == $0)"; a property
 *  name there is FIEF_ERR_QUERY_INVALID.  For results of objects, `self`
 *  is the property named "self" when the class has one, and followed by
 *  '.' or '[' it starts a key path through it, as in realm-core
 *  ("self.name == 'a'", "self.@count == 1", "@links.Item.self.@count > 0";
 *  for a class without such a property, FIEF_ERR_QUERY_INVALID naming
 *  'self'); else `self` alone is the object tested, compared by identity
 *  with objects given with the query, as RealmSwift's `SELF == %@`:
 *  "self == $0", "SELF != $0", "SELF IN $0" (a list argument), "self ==
 *  obj('Dog', 5)"; null equals no object, an object of another class or
 *  a value of another type is FIEF_ERR_QUERY_ARGUMENT
 *  (FIEF_ERR_QUERY_INVALID written in the predicate), and an operator
 *  other than ==, != and IN is FIEF_ERR_QUERY_INVALID.
 *  Limits (FIEF_ERR_QUERY_SYNTAX beyond them): at most 100 levels of
 *  parentheses and NOT together (each '(' and each NOT or '!' around a
 *  term counts one: "predicate is nested too deeply (more than 100 levels
 *  of '(' and NOT) at offset N"), and a tree at most 1000 terms deep (a
 *  chain of n terms joined by AND/OR is n deep, each NOT adds one: "predicate
 *  is too complex (more than 1000 nested terms) at offset N").  A syntax
 *  error's message ends with the offset and an excerpt ("at offset 6 (near
 *  'age < < 5')").
 *  Full-text search: `prop TEXT 'words'` (or `TEXT $0`, a string argument)
 *  on a FIEF_PROPERTY_FULLTEXT_INDEXED property, or a key path to one
 *  through links and lists (`owner.bio TEXT $0`), matches the objects whose
 *  text has every word; `word*` a word starting with `word`, `-word`
 *  excludes objects having `word` (a search of only exclusions matches
 *  every other object, null texts included).  Words are runs of letters and
 *  digits of ASCII and Latin-1, compared without case and accents (`Café`
 *  is `cafe`); anything else separates words (`full-text` is two, and as a
 *  search word an error: FIEF_ERR_QUERY_INVALID, or FIEF_ERR_QUERY_ARGUMENT
 *  for an argument; so are an empty search, a word both searched for and
 *  excluded, an excluded prefix, and TEXT on a property without a
 *  full-text index).  No ranking, no suffix search.  Inside a write
 *  transaction the search sees its uncommitted writes.
 *  The predicate joins the filters of `results`, before their stages (see
 *  "Sort, distinct and limit"): filtered sorted results stay sorted,
 *  filtered distinct results are distinct among the matches; results with
 *  a limit cannot be filtered (FIEF_ERR_QUERY_INVALID), as in Realm.
 *  Returns a new results handle, or NULL.
 *  Errors: FIEF_ERR_QUERY_SYNTAX, FIEF_ERR_QUERY_INVALID,
 *  FIEF_ERR_QUERY_ARGUMENT, FIEF_ERR_INVALIDATED_RESULTS, ... */
FIEF_API fief_results_t *fief_results_filter(const fief_results_t *results, const char *predicate,
                                             const fief_query_arg_t *args, size_t num_args);

/** The objects of `results` sorted by `num_keys` keys (`keys` may be NULL
 *  when `num_keys` is 0: the results unchanged, as a new handle), the first
 *  most significant; ties keep the order of `results`.  A sort is a stage
 *  (see "Sort, distinct and limit"): a sort of results whose last stage is
 *  a sort merges with it, its keys first (so sorting sorted results makes
 *  the earlier keys secondary).  Strings sort by Unicode code point (byte
 *  order of UTF-8); nulls come first ascending, last descending; mixed
 *  values in Realm's order of mixed values (see "Mixed values in
 *  results"); an object whose key path crosses a null link (a dog without
 *  an owner, sorted by "owner.name") comes after every value ascending and
 *  before every value descending, as in Realm.  Results of values sort by
 *  value with the one key "self" (a sort directly after a sort replaces
 *  it).  The results are read at once, the key paths checked now.
 *  Returns a new results handle, or NULL.
 *  Errors: FIEF_ERR_QUERY_INVALID (an unknown property, a key path through
 *  or to a list, set or map (but for a map of values and one key, "meta.age"),
 *  through a property that is not a link, or
 *  ending at a link; for results of values any key but a single "self"),
 *  FIEF_ERR_INVALID_ARGUMENT (`keys` or a key path NULL),
 *  FIEF_ERR_INVALID_UTF8 (a key path), FIEF_ERR_INVALIDATED_RESULTS,
 *  FIEF_ERR_CLOSED. */
FIEF_API fief_results_t *fief_results_sort(const fief_results_t *results,
                                           const fief_sort_descriptor_t *keys, size_t num_keys);

/** The first object of `results` for each distinct tuple of values of the
 *  `num_key_paths` key paths `key_paths` (zero-terminated strings, as in
 *  fief_sort_descriptor_t), in the order of `results`: a stage (see "Sort,
 *  distinct and limit").  Values compare as Realm's equality: in a mixed
 *  property int 1, double 1.0 and decimal128 1 are one value (true, "1"
 *  and 1 are three); decimal128s by value; strings and binaries exactly
 *  (no case or Unicode folding); nulls are one value.  An object whose key
 *  path crosses a null link is left out, as in Realm.  Results of values
 *  take the one key path "self".  `key_paths` may be NULL when
 *  `num_key_paths` is 0 (the results unchanged, as a new handle).
 *  Returns a new results handle, or NULL.
 *  Errors: FIEF_ERR_QUERY_INVALID (as for fief_results_sort),
 *  FIEF_ERR_INVALID_ARGUMENT (`key_paths` or one of them NULL),
 *  FIEF_ERR_INVALID_UTF8 (a key path), FIEF_ERR_INVALIDATED_RESULTS,
 *  FIEF_ERR_CLOSED. */
FIEF_API fief_results_t *fief_results_distinct(const fief_results_t *results, const char *const *key_paths,
                                               size_t num_key_paths);

/** The first `max_count` objects (or values) of `results`: a stage (see
 *  "Sort, distinct and limit").  0 gives empty results; a limit at least
 *  the count keeps everything (SIZE_MAX is no limit).  Results with a
 *  limit cannot be filtered (fief_results_filter): filter first.
 *  Returns a new results handle, or NULL.
 *  Errors: FIEF_ERR_INVALIDATED_RESULTS, FIEF_ERR_CLOSED, ... */
FIEF_API fief_results_t *fief_results_limit(const fief_results_t *results, size_t max_count);

/** The query `results` answer, as canonical text in the query language
 *  (realm-core's Query::get_description with its ordering): the filters
 *  joined by AND, or "TRUEPREDICATE" when there are none, then the stages
 *  ("age < 5 AND name BEGINSWITH 'R' SORT(name ASC) LIMIT(10)").  Arguments
 *  are written in as literals (a list argument as {...}, a link as
 *  L<class key>:<object key>, a key-path argument as its key path), so the
 *  text, given to fief_results_filter on the same starting objects without
 *  arguments, gives the same results.  Spelling is fixed: keywords in
 *  capitals, operators in their first spelling (==, !=, <=, >=), strings
 *  single-quoted, parentheses only where needed.  What the results start
 *  from (a class, a list, linking objects) is not part of the text.
 *  Returns a zero-terminated UTF-8 string owned by the results handle (it
 *  lives until the handle is released; do not free it), or NULL.
 *  Errors: FIEF_ERR_QUERY_INVALID (an argument with no literal: a nested
 *  list or map), FIEF_ERR_INVALIDATED_RESULTS, FIEF_ERR_CLOSED,
 *  FIEF_ERR_INVALID_HANDLE. */
FIEF_API const char *fief_results_get_description(const fief_results_t *results);

/** Number of objects (or values) into `*out_count` (evaluates the results
 *  if needed; with a distinct stage, the whole ordering).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL `out_count`),
 *  FIEF_ERR_INVALIDATED_RESULTS, FIEF_ERR_INVALIDATED_OBJECT (results of a
 *  collection whose owner was deleted), FIEF_ERR_FILE_CORRUPT, ... */
FIEF_API bool fief_results_count(const fief_results_t *results, size_t *out_count);

/** The class key of the results' objects into `*out_class_key`.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT for results of values. */
FIEF_API bool fief_results_get_class_key(const fief_results_t *results,
                                         fief_class_key_t *out_class_key);

/** What the results hold: FIEF_TYPE_LINK (objects) or the type of their
 *  values into `*out_type`, and whether those values may be null into
 *  `*out_nullable` (may be NULL; false for objects).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL `out_type`), ... */
FIEF_API bool fief_results_get_element_type(const fief_results_t *results, fief_type_t *out_type,
                                            bool *out_nullable);

/** A new handle on the object at `index`, or NULL
 *  (FIEF_ERR_INDEX_OUT_OF_BOUNDS, ...).
 *  Errors: FIEF_ERR_INDEX_OUT_OF_BOUNDS, FIEF_ERR_INVALID_ARGUMENT (results
 *  of values), FIEF_ERR_INVALIDATED_RESULTS, ... */
FIEF_API fief_object_t *fief_results_get_object(const fief_results_t *results, size_t index);

/** The key of the object at `index` into `*out_key`.
 *  Errors: as fief_results_get_object. */
FIEF_API bool fief_results_get_key(const fief_results_t *results, size_t index,
                                   fief_object_key_t *out_key);

/** The keys of the objects at `start`, `start + 1`, ... into `out_keys`
 *  (an array of `count`): one call for a batch of keys, where
 *  fief_results_get_key takes one per key.  With `out_count` NULL, the
 *  range `start` ..< `start + count` must lie within the results
 *  (FIEF_ERR_INDEX_OUT_OF_BOUNDS otherwise, nothing written); with
 *  `out_count`, up to `count` keys are written, fewer at the end, and
 *  their number goes to `*out_count` (0 when `start` is the count).
 *  Iterating results: the bindings iterate as RealmSwift does (its for-in
 *  enumerates a snapshot of the results): when the iteration begins they
 *  read every key, in batches of 1,024 through this call, and then visit
 *  those objects in that order, each fetched by key (fief_object_get) when
 *  the iteration reaches it.  Changes made meanwhile (in the loop's own
 *  write transaction, or a refresh) neither add nor move objects: an
 *  object that stops matching, or moves in a sort, is still visited, at
 *  its place; one that starts matching is not; one deleted is skipped.
 *  Results of values are iterated the same way, their values read when
 *  the iteration begins.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE,
 *  FIEF_ERR_INVALID_ARGUMENT (results of values; `out_keys` NULL with a
 *  `count`), FIEF_ERR_INDEX_OUT_OF_BOUNDS (`start` past the count, or the
 *  range as above), FIEF_ERR_INVALIDATED_RESULTS, FIEF_ERR_CLOSED,
 *  FIEF_ERR_WRONG_THREAD. */
FIEF_API bool fief_results_get_keys(const fief_results_t *results, size_t start, size_t count,
                                    fief_object_key_t *out_keys, size_t *out_count);

/** Read `num_values` properties of the object at `index` without making an
 *  object handle.  Views as in fief_object_get_value.
 *  Errors: FIEF_ERR_INDEX_OUT_OF_BOUNDS, FIEF_ERR_NO_SUCH_PROPERTY,
 *  FIEF_ERR_INVALID_ARGUMENT (results of values, NULL arrays with a count),
 *  FIEF_ERR_INVALIDATED_RESULTS, ... */
FIEF_API bool fief_results_get_values(const fief_results_t *results, size_t index,
                                      const fief_property_key_t *properties, size_t num_values,
                                      fief_value_t *out_values);

/** The position of `object` in `results` into `*out_index`, and whether it is
 *  there into `*out_found` (false for an object of another class or file).
 *  Neither out-pointer may be NULL (FIEF_ERR_INVALID_ARGUMENT).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (results of values, NULL out-
 *  pointers), FIEF_ERR_INVALID_HANDLE (`object` too), ... */
FIEF_API bool fief_results_index_of_object(const fief_results_t *results, const fief_object_t *object,
                                    size_t *out_index, bool *out_found);

/** Delete every object in `results` (in a write transaction).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (results of values),
 *  FIEF_ERR_NOT_IN_TRANSACTION, FIEF_ERR_FROZEN, FIEF_ERR_READ_ONLY,
 *  FIEF_ERR_INVALIDATED_RESULTS, ... */
FIEF_API bool fief_results_delete_all(fief_results_t *results);

/** Set one property of every object in `results` to `value`, in one call
 *  (in a write transaction): RealmSwift's Results.setValue(_:forKey:),
 *  without a handle or a crossing per object.  `value` is checked and
 *  converted once, as fief_object_set_value checks it (strings and binaries
 *  are copied; float and double properties also take ints; a link names an
 *  existing object of the property's target class and every object's
 *  backlink moves to it; a mixed property takes any value, and
 *  FIEF_TYPE_LIST or FIEF_TYPE_MAP gives each object a new, empty
 *  nested collection), then the property's column is written cluster by
 *  cluster.  The objects are those in `results` when the call begins: an
 *  object that stops matching because of the new value is set too.
 *  Results filtered or sorted on the property evaluate again afterwards.
 *  The primary key is never set this way (as in realm-core), whatever the
 *  number of objects.  Empty results change nothing.  Results of objects
 *  only (of a class, filtered or sorted, linking objects, a list or set of
 *  links; an object listed twice is set once).
 *  On failure nothing was written, except after a storage failure, which
 *  leaves the transaction to be cancelled (as every write does).
 *  Threads: the thread of the realm's write transaction.
 *  Errors: FIEF_ERR_INVALID_HANDLE (NULL or released), FIEF_ERR_WRONG_HANDLE_TYPE,
 *  FIEF_ERR_INVALID_ARGUMENT (results of values; a malformed value; an
 *  embedded object as the value), FIEF_ERR_NOT_IN_TRANSACTION,
 *  FIEF_ERR_FROZEN (frozen results), FIEF_ERR_READ_ONLY, FIEF_ERR_CLOSED,
 *  FIEF_ERR_WRONG_THREAD, FIEF_ERR_INVALIDATED_RESULTS (the class was
 *  removed), FIEF_ERR_NO_SUCH_PROPERTY, FIEF_ERR_TYPE_MISMATCH (a value of
 *  another type, a link to an object of another class, a list, set or map
 *  property), FIEF_ERR_NULL_NOT_ALLOWED, FIEF_ERR_INVALID_UTF8,
 *  FIEF_ERR_NO_SUCH_OBJECT (a link to an object that does not exist),
 *  FIEF_ERR_PRIMARY_KEY_CHANGE (the primary key). */
FIEF_API bool fief_results_set_value(fief_results_t *results, fief_property_key_t property,
                                     fief_value_t value);

/** The value at `index` of results of values into `*out_value` (strings
 *  and binaries are views, see OWNERSHIP).
 *  Errors: FIEF_ERR_INDEX_OUT_OF_BOUNDS, FIEF_ERR_INVALID_ARGUMENT (results
 *  of objects, or `out_value` NULL), FIEF_ERR_INVALIDATED_OBJECT (the
 *  list's owner was deleted). */
FIEF_API bool fief_results_get_value(const fief_results_t *results, size_t index, fief_value_t *out_value);

/** The position of the first value of results of values equal to `value`
 *  into `*out_index` (0 when there is none), and whether there is one into
 *  `*out_found`.  A value of another type is never found; ints and floats
 *  compare as the element type (as in fief_list_index_of); among mixed values,
 *  numbers are found by value across types and nothing else across types
 *  (see "Mixed values in results").
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (results of objects, a NULL
 *  out-pointer, a malformed value), FIEF_ERR_INVALIDATED_OBJECT. */
FIEF_API bool fief_results_index_of_value(const fief_results_t *results, fief_value_t value, size_t *out_index,
                                bool *out_found);

/** Whether the results can still be used (their realm is open and their
 *  class exists).  False for invalid handles, without an error.  Cannot fail. */
FIEF_API bool fief_results_is_valid(const fief_results_t *results);

/** A new reference to the realm the results belong to, or NULL.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API fief_realm_t *fief_results_get_realm(const fief_results_t *results);

/** The same query in another realm of the same file (freeze or thaw).
 *  Returns a new results handle, or NULL.
 *  Errors: FIEF_ERR_CLOSED (the results' realm or `target` is closed),
 *  FIEF_ERR_INVALID_ARGUMENT (`target` is another file). */
FIEF_API fief_results_t *fief_results_resolve_in(const fief_results_t *results,
                                                 fief_realm_t *target);

/* ==========================================================================
 * Aggregates
 *
 * min, max, sum and average over a property of the objects of any results
 * (all of a class, filtered, sorted, a list of links, backlinks) or over
 * the values of results of values or of a list.  Values are read where
 * they are stored (column chunks, list segments), without ordering or
 * copying them; results are evaluated first when they need it.
 *
 * Realm's rules: nulls are skipped; with no value left, min, max and
 * average give a null value (type FIEF_TYPE_NULL) and sum gives 0.  min and
 * max take int, float, double, decimal128 and timestamp values and give a
 * value of that type (NaN has no order: they skip it).  sum and average
 * take numbers only: the sum of ints is an int (wrapping around on
 * overflow), of floats and doubles a double, of decimal128s a decimal128
 * (rounded to 34 digits); the average of ints, floats and doubles is a
 * double, of decimal128s a decimal128.  An object listed twice in a list
 * counts twice.
 *
 * Mixed values (a mixed property of objects, a list, set or map of mixed
 * values, results of them), as realm-core aggregates them: every operation
 * takes them (none fails with FIEF_ERR_TYPE_MISMATCH).  min and max
 * consider every non-null value, numeric or not, in the order of "Mixed
 * values in results" (so a bool is below every number and a string above,
 * and the max of {1, "a", true} is "a") and give the value itself, with
 * its own type (the first of equal values); NaN and nested lists and
 * maps are skipped.  sum and
 * average take the numbers only (int, float, double, decimal128; other
 * values, nested collections and NaN are skipped), each added as a decimal128 (a double rounded
 * to 15 significant digits and a float to 7, as realm-core converts them,
 * so 0.1 + 0.2 is 0.3), and give a decimal128 (rounded to 34 digits); with
 * no number the sum is decimal128 0 and the average null.
 * ========================================================================== */

/** An aggregate: one of the FIEF_AGGREGATE_* constants. */
typedef int32_t fief_aggregate_t;
#define FIEF_AGGREGATE_MIN 1
#define FIEF_AGGREGATE_MAX 2
#define FIEF_AGGREGATE_SUM 3
#define FIEF_AGGREGATE_AVERAGE 4

/** The aggregate `op` into `*out_value`: of property `property` of the
 *  results' objects, or of the values of results of values (`property` is
 *  then ignored).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (`op` unknown, `out_value` NULL, or
 *  `property` a list or a link), FIEF_ERR_NO_SUCH_PROPERTY,
 *  FIEF_ERR_TYPE_MISMATCH (values `op` does not take: a string, bool,
 *  binary, object id or uuid property, or a timestamp for sum and
 *  average; the message names the property and its type; mixed values
 *  are always taken),
 *  FIEF_ERR_INVALIDATED_RESULTS, FIEF_ERR_INVALIDATED_OBJECT (the list of
 *  results of values lost its owner), FIEF_ERR_INVALID_HANDLE,
 *  FIEF_ERR_CLOSED, FIEF_ERR_WRONG_THREAD.  On error `*out_value` is
 *  unchanged. */
FIEF_API bool fief_results_aggregate(const fief_results_t *results, fief_property_key_t property,
                                     fief_aggregate_t op, fief_value_t *out_value);

/** The aggregate `op` of a list into `*out_value`: of its values (a list of
 *  values; `property` is ignored), or of property `property` of its
 *  objects (a list of links).  Errors as fief_results_aggregate, with
 *  FIEF_ERR_INVALIDATED_OBJECT when the list's owner was deleted. */
FIEF_API bool fief_list_aggregate(const fief_list_t *list, fief_property_key_t property, fief_aggregate_t op,
                                  fief_value_t *out_value);

/** The same for a set (its values, or `property` of its objects) and for a
 *  map (its values, or `property` of the objects that are its values).
 *  Errors as fief_list_aggregate. */
FIEF_API bool fief_set_aggregate(const fief_set_t *set, fief_property_key_t property, fief_aggregate_t op,
                                 fief_value_t *out_value);
FIEF_API bool fief_map_aggregate(const fief_map_t *map, fief_property_key_t property, fief_aggregate_t op,
                                 fief_value_t *out_value);

/* ==========================================================================
 * Files: check and copy
 * ========================================================================== */

/* The kind of a report line (fief_report_fn's `kind`). */
typedef int32_t fief_report_kind_t;
#define FIEF_REPORT_INFO 0      /* what was checked or copied: a summary */
#define FIEF_REPORT_PROBLEM 1   /* damage found, or data left out of a copy */

/** Receives one line of a file check or copy, during the call that reports
 *  it and on its thread only (so no free function is needed for `userdata`).
 *  `text` is zero-terminated UTF-8, valid during the callback only. */
typedef void (*fief_report_fn)(void *userdata, fief_report_kind_t kind, const char *text);

/** Check the realm file at `path` for damage, without changing it: every
 *  page LMDB reaches and the page accounting (each page is a meta page, in
 *  exactly one tree, or free), the meta values and schema, every chunk of
 *  every class (checksum and layout), the objects each cluster lists, the
 *  object counts, the primary-key tables and indexes against the
 *  objects, and the change records (sealed, decoding, in version order).
 *  It reads one snapshot: writers may go on meanwhile.
 *  `report` (may be NULL) receives each finding; `*out_problems` (may be
 *  NULL) the number of problems.  Returns true when the file could be
 *  examined, damaged or not: check `*out_problems`.  Cost: reads the whole
 *  file once.
 *  `path` must be a regular file as for fief_realm_open: anything else (a
 *  directory, a FIFO, a device, a /proc file, ...) is refused before it is
 *  opened, with FIEF_ERR_FILE_NOT_FIEF and the same message.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL path), FIEF_ERR_FILE_NOT_FOUND,
 *  FIEF_ERR_FILE_PERMISSION, FIEF_ERR_FILE_NOT_FIEF (not a regular file, not
 *  an LMDB file, or cut short: nothing can be examined), FIEF_ERR_FILE_LOCKED. */
FIEF_API bool fief_file_verify(const char *path, fief_report_fn report, void *userdata,
                               size_t *out_problems);

/** Write a compacted copy of the realm file `source` to `destination`, a
 *  file that must not exist, holding everything that can be read: valid
 *  chunks are copied (files of older formats are converted to the current
 *  one, format 6: full-text indexes and sets of mixed values as a
 *  read-write open upgrades them),
 *  damaged ones are left out and reported as problems (a damaged object
 *  list or primary-key column loses those objects; a damaged property
 *  leaves it null or at its default for them), and primary keys and indexes
 *  are built again.  Lists, sets and maps keep what can be read (a link to
 *  an object that was lost leaves its list or set; a map keeps the key,
 *  with null), their sizes count what was kept, and backlinks are built
 *  again from the links copied.  The copy holds no free pages, so copying is also how a
 *  file that grew shrinks again.  Reads one snapshot of the source; the copy
 *  is complete or, on failure, not there at all.
 *  `report`, `userdata`, `*out_problems`: as for fief_file_verify; `source`
 *  must be a regular file as there.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL or empty path, or `destination`
 *  exists), FIEF_ERR_FILE_NOT_FOUND, FIEF_ERR_FILE_PERMISSION,
 *  FIEF_ERR_FILE_NOT_FIEF (also: not a regular file, no readable schema), FIEF_ERR_FILE_CORRUPT,
 *  FIEF_ERR_FILE_FORMAT, FIEF_ERR_FILE_FULL, FIEF_ERR_FILE_IO. */
FIEF_API bool fief_file_copy(const char *source, const char *destination, fief_report_fn report,
                             void *userdata, size_t *out_problems);

/** Write a compacted copy of the version `realm` reads to `path`, a file
 *  that must not exist (RealmSwift's writeCopy(toFile:)); as fief_file_copy
 *  otherwise.  Not inside a write transaction.
 *  Errors: those of fief_file_copy, FIEF_ERR_INVALID_HANDLE,
 *  FIEF_ERR_ALREADY_IN_TRANSACTION, FIEF_ERR_CLOSED, FIEF_ERR_WRONG_THREAD. */
FIEF_API bool fief_realm_write_copy(fief_realm_t *realm, const char *path, fief_report_fn report,
                                    void *userdata, size_t *out_problems);

/* ==========================================================================
 * Notifications
 *
 * A live realm tells the host when its file changed: a commit of this
 * process (any realm of the file, any thread) or of another process.  The
 * host schedules; the library never calls back on a thread of its own
 * except the wake-up below.
 *
 * Machinery.  Per file and process, one worker thread runs while any realm
 * of the file has a notification callback (none otherwise); it wakes on
 * every commit, reads the newest version and marks a delivery pending for
 * each realm that has something new.  Commits between two wake-ups make one
 * delivery.  Other processes are woken through a named pipe beside the
 * file, "<path>.note" (or, where the directory cannot hold a FIFO, one in
 * $XDG_RUNTIME_DIR or /tmp named by the file's device and inode): every
 * commit to a file writes one byte to it.  fief_file_delete removes it.  A
 * process killed at any point leaves nothing to repair.  In-memory realms
 * are seen by this process only.
 *
 * Scheduling.  A pending delivery makes the realm's notification fd
 * readable (fief_realm_get_notification_fd; poll, epoll or an event loop's
 * reader) and calls its wake-up callback (fief_realm_set_wakeup), if any,
 * on the worker thread.  The host then calls
 * fief_realm_deliver_notifications on the thread it wants the callbacks on:
 * that call moves a realm with autorefresh (the default) to the newest
 * version and calls the realm's callbacks on the calling thread.
 *
 * Realm callbacks (RealmSwift's Realm.observe) are told
 * FIEF_REALM_DID_CHANGE when the realm's version moved: on delivery, and
 * also at once, on the calling thread, at the end of fief_realm_commit,
 * fief_realm_refresh (when it moved) and at the start of
 * fief_realm_begin_write, which first moves the realm to the newest
 * version (as refresh) and calls them before the write begins, as
 * RealmSwift does.  With autorefresh off a delivery does not move the realm
 * and tells FIEF_REALM_REFRESH_REQUIRED, once per newer version.
 *
 * Reentrancy.  A callback may read the realm, begin and commit a write
 * (the callbacks are told of its commit at the next delivery, not
 * recursively), add callbacks (first called at the next delivery) and
 * release any token, its own included: a released token is never called
 * again, even later in the same round.  fief_realm_deliver_notifications
 * called from inside a callback (or while another thread delivers for the
 * same realm) returns at once with `*out_delivered` false.  A token may be
 * released from any thread: a call in progress on another thread ends
 * first, and none begins after fief_release returns (so a callback must
 * not wait for a thread that is releasing its own token).  `free_userdata`
 * (may be NULL) runs exactly once, on the thread that drops the last
 * reference: the release of the token, or, when released during its own
 * call, the end of that call.  When a registration fails, it is not
 * called: the caller keeps `userdata`.
 * ========================================================================== */

/** A notification token: keeps a callback registered (and its realm open)
 *  until released with fief_release. */
typedef struct fief_notification_token fief_notification_token_t;

/** What a realm callback is told. */
typedef int32_t fief_realm_notification_t;
#define FIEF_REALM_DID_CHANGE 1       /* the realm's version moved on */
#define FIEF_REALM_REFRESH_REQUIRED 2 /* autorefresh is off and a newer version is ready */

/** A realm callback: on the thread that delivers (see above). */
typedef void (*fief_realm_notification_fn)(void *userdata, fief_realm_notification_t notification);
/** A wake-up: on the worker thread; it must only schedule a delivery (it
 *  must not call into the realm). */
typedef void (*fief_wakeup_fn)(void *userdata);
/** Frees a callback's `userdata`. */
typedef void (*fief_free_fn)(void *userdata);

/** Register `callback` on a live realm; returns a new token, or NULL.
 *  Allowed inside a write transaction (as RealmSwift's Realm.observe).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL `callback`), FIEF_ERR_FROZEN,
 *  FIEF_ERR_READ_ONLY (read-only and frozen realms never change),
 *  FIEF_ERR_CLOSED, FIEF_ERR_WRONG_THREAD (another thread's write is
 *  open), FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE.  Any thread. */
FIEF_API fief_notification_token_t *fief_realm_add_notification_callback(fief_realm_t *realm,
                                                                        fief_realm_notification_fn callback,
                                                                        void *userdata,
                                                                        fief_free_fn free_userdata);

/** The realm's notification fd into `*out_fd`: an eventfd, readable while a
 *  delivery is pending; fief_realm_deliver_notifications makes it
 *  unreadable again.  Owned by the realm (do not read or close it); valid
 *  until the realm's last handle is released.  Same fd on every call.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL `out_fd`), FIEF_ERR_FROZEN,
 *  FIEF_ERR_READ_ONLY, FIEF_ERR_CLOSED, FIEF_ERR_INTERNAL (no eventfd),
 *  FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE.  Any thread. */
FIEF_API bool fief_realm_get_notification_fd(fief_realm_t *realm, int *out_fd);

/** Set the realm's wake-up callback (NULL `callback`: none), called on the
 *  worker thread each time a delivery becomes pending.  The one it replaces
 *  has its `free_userdata` called now, on this thread; the last one's runs
 *  when the realm goes.
 *  Errors: FIEF_ERR_FROZEN, FIEF_ERR_READ_ONLY, FIEF_ERR_CLOSED,
 *  FIEF_ERR_INTERNAL, FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE.
 *  Any thread. */
FIEF_API bool fief_realm_set_wakeup(fief_realm_t *realm, fief_wakeup_fn callback, void *userdata,
                                    fief_free_fn free_userdata);

/** Deliver what is pending, on the calling thread: move a realm with
 *  autorefresh to the newest version found (not inside a write
 *  transaction), then call the callbacks.  `*out_delivered` (may be NULL):
 *  whether any callback was called.  Nothing pending: returns at once.  A
 *  frozen or read-only realm has nothing to deliver.
 *  Errors: FIEF_ERR_CLOSED, FIEF_ERR_FILE_IO and FIEF_ERR_INTERNAL (the
 *  refresh failed), FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE.
 *  Any thread (the callbacks run on it). */
FIEF_API bool fief_realm_deliver_notifications(fief_realm_t *realm, bool *out_delivered);

/** Whether deliveries move the realm to the newest version (RealmSwift's
 *  autorefresh; default true).  fief_realm_refresh works either way.
 *  Errors: FIEF_ERR_FROZEN (true on a frozen realm; false is accepted),
 *  FIEF_ERR_READ_ONLY (false on a read-only realm), FIEF_ERR_CLOSED,
 *  FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_realm_set_autorefresh(fief_realm_t *realm, bool autorefresh);

/** Whether the realm autorefreshes into `*out_autorefresh` (false for a
 *  frozen realm).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL `out_autorefresh`),
 *  FIEF_ERR_CLOSED, FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_realm_get_autorefresh(const fief_realm_t *realm, bool *out_autorefresh);

/* --------------------------------------------------------------------------
 * Results notifications (RealmSwift's Results.observe)
 *
 * A results callback is first called, at the first delivery after the
 * registration, with the initial state: a change set whose
 * fief_collection_changes_get_flags reports `initial` and whose counts are
 * all 0 (as realm-core's C API); writes committed between the registration
 * and that delivery are part of that state, never an update.  Later
 * deliveries call it when the results changed: rows deleted (indices in
 * the results before), inserted (after), modified (both), coalesced over
 * every commit since the last call.  Rows that change place in sorted
 * results are a deletion and an insertion (no moves, as realm-core
 * reports for results); moves stay in the reader for lists.  A row is
 * modified when its object has a write to a watched property: by default
 * (no key paths) any property of the object or of an object reached
 * through its links, lists, sets and maps of links, to a depth of 4; with
 * key paths, exactly those (see fief_results_add_notification_callback).
 * Insertions and deletions are reported whatever the key paths.  When the
 * callback runs the results already hold the rows of the version the realm
 * reads (evaluated on the worker thread: reading them evaluates nothing).
 * The worker evaluates results again only when a commit touched what they
 * read.  If the results cannot be evaluated any more (a property they read
 * removed by another realm's or process's open with a higher schema
 * version), the callback is called once more with an error
 * (fief_collection_changes_get_error: FIEF_ERR_INVALIDATED_RESULTS naming
 * the property) and never again.  A class is never removed from a file (a
 * schema that leaves one out keeps it), so results never fail because
 * their class went away.
 * -------------------------------------------------------------------------- */

/** The changes a collection callback is given: valid during the callback
 *  only (a use after it returns fails with FIEF_ERR_INVALID_HANDLE); do not
 *  release it. */
typedef struct fief_collection_changes fief_collection_changes_t;

/** A results (or collection) callback: on the thread that delivers. */
typedef void (*fief_collection_changes_fn)(void *userdata, const fief_collection_changes_t *changes);

/** A run of indices: `from`, `from + 1`, ... `to - 1`. */
typedef struct fief_index_range {
    size_t from;
    size_t to;
} fief_index_range_t;

/** Register `callback` on results of objects (of a class, of a list, set or
 *  map of links, linking objects; filtered, sorted, distinct, limited);
 *  returns a new token, or NULL.  `key_paths` (`num_key_paths` of them;
 *  NULL and 0: the default above) name what counts as a modification:
 *  "name" (a property), "dog.name" (the link and a property of its
 *  target), "dogs" (the list, set or map itself: its elements' values are
 *  not watched), "*" (every property, links not followed), "dogs.*" (the
 *  collection and every property of its elements); a linking-objects
 *  property may be a step.
 *  Errors: FIEF_ERR_NO_SUCH_PROPERTY (a key path naming no property; the
 *  message names the key path), FIEF_ERR_INVALID_ARGUMENT (NULL `callback`,
 *  NULL `key_paths` with a count, a NULL or empty key path or step, a step
 *  after a property that is not a link, key paths on results of values),
 *  FIEF_ERR_INVALID_UTF8, FIEF_ERR_FROZEN (frozen
 *  results never change), FIEF_ERR_ALREADY_IN_TRANSACTION (inside a write
 *  transaction, as RealmSwift), FIEF_ERR_READ_ONLY, FIEF_ERR_CLOSED,
 *  FIEF_ERR_WRONG_THREAD, FIEF_ERR_INVALIDATED_OBJECT (the list's owner or
 *  the linked object was deleted), FIEF_ERR_INVALIDATED_RESULTS,
 *  FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE.  Any thread. */
FIEF_API fief_notification_token_t *fief_results_add_notification_callback(fief_results_t *results,
                                                                          const char *const *key_paths,
                                                                          size_t num_key_paths,
                                                                          fief_collection_changes_fn callback,
                                                                          void *userdata,
                                                                          fief_free_fn free_userdata);

/** How many indices each part of the change set has (each out-pointer may
 *  be NULL): deleted, inserted, modified (one count for the old and new
 *  indices) and moved rows.
 *  Errors: FIEF_ERR_INVALID_HANDLE (also after the callback returned),
 *  FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_collection_changes_get_counts(const fief_collection_changes_t *changes, size_t *out_deletions,
                                                 size_t *out_insertions, size_t *out_modifications,
                                                 size_t *out_moves);

/** The flags of the change set (each out-pointer may be NULL): the initial
 *  call, the collection was cleared, its owner was deleted (lists, sets,
 *  maps).
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_collection_changes_get_flags(const fief_collection_changes_t *changes, bool *out_initial,
                                                bool *out_cleared, bool *out_root_deleted);

/** Copy the indices, ascending, into the arrays given (each may be NULL,
 *  then its capacity is ignored): at most `capacity` of each kind (the
 *  counts above say how many there are); `modifications` in old indices,
 *  `modifications_new` in new ones; moves as pairs `moves_from[i]` to
 *  `moves_to[i]` (both or neither given).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (one of `moves_from`, `moves_to`
 *  without the other), FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_collection_changes_get_indices(const fief_collection_changes_t *changes, size_t capacity,
                                                  size_t *deletions, size_t *insertions, size_t *modifications,
                                                  size_t *modifications_new, size_t *moves_from, size_t *moves_to);

/** How many ranges each index set has (each out-pointer may be NULL).
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_collection_changes_get_num_ranges(const fief_collection_changes_t *changes, size_t *out_deletions,
                                                     size_t *out_insertions, size_t *out_modifications,
                                                     size_t *out_modifications_new);

/** Copy the index sets as ranges, ascending and disjoint, into the arrays
 *  given (each may be NULL): at most `capacity` of each.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_collection_changes_get_ranges(const fief_collection_changes_t *changes, size_t capacity,
                                                 fief_index_range_t *deletions, fief_index_range_t *insertions,
                                                 fief_index_range_t *modifications,
                                                 fief_index_range_t *modifications_new);

/** Whether the results failed (`*out_failed`), and then the error into
 *  `*out_error` (may be NULL; its strings valid during the callback).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL `out_failed`),
 *  FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_collection_changes_get_error(const fief_collection_changes_t *changes, bool *out_failed,
                                                fief_error_t *out_error);

/* --------------------------------------------------------------------------
 * Object callbacks (RealmSwift's Object.observe)
 *
 * An object callback is told, at a delivery (fief_realm_deliver_notifications;
 * also for the realm's own commits, never inside fief_realm_commit, as
 * results callbacks), that its object was deleted
 * (then never again: its token stays valid but is silent), or which of its
 * properties changed since the callback was last called, several commits
 * coalesced into one call.  With no key paths, the properties are the
 * object's own (a list, set or map property is changed when its elements
 * are; a change inside a linked object is not a change of this one), as
 * realm-core's object notifier.  Key paths ("name", "dog.name", "dogs",
 * "*", "dogs.*") restrict it to the properties they name, and through
 * links and collections of objects also report the first property of a
 * path (e.g. "dogs" for "dogs.name") when an object it reaches changed in a
 * named property, to a depth of 4.  Objects have no initial call.
 *
 * Old values: given when the commits were made elsewhere (another realm,
 * thread or process); not when the observing realm made one of them itself
 * (RealmSwift gives none then), and never for collection properties.
 * -------------------------------------------------------------------------- */

/** What an object callback is told; valid during the callback only (a use
 *  after it returns is FIEF_ERR_INVALID_HANDLE).  Not released by the host. */
typedef struct fief_object_changes fief_object_changes_t;

/** An object callback: on the thread that delivers. */
typedef void (*fief_object_notification_fn)(void *userdata, const fief_object_changes_t *changes);

/** Register `callback` for changes of `object`, filtered by `key_paths`
 *  (`num_key_paths` UTF-8 strings; NULL and 0 for the default, see above);
 *  returns a new token, or NULL.  The token keeps the object's realm open.
 *  Key paths are resolved as results' (one resolver): the same errors.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL `callback`, NULL `key_paths`
 *  with a count, a NULL or empty key path or step, a step after a
 *  property that is not a link, "*" before the end, a key path starting
 *  with a linking-objects property), FIEF_ERR_INVALID_UTF8,
 *  FIEF_ERR_NO_SUCH_PROPERTY (a key path naming no property: "Invalid
 *  property name: property 'x' not found in object of type 'C'", as
 *  RealmSwift), FIEF_ERR_INVALIDATED_OBJECT (the object was deleted),
 *  FIEF_ERR_FROZEN (an object of a frozen realm), FIEF_ERR_READ_ONLY,
 *  FIEF_ERR_ALREADY_IN_TRANSACTION (inside a write transaction, as
 *  RealmSwift), FIEF_ERR_CLOSED, FIEF_ERR_WRONG_THREAD,
 *  FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE.  Any thread. */
FIEF_API fief_notification_token_t *fief_object_add_notification_callback(fief_object_t *object,
                                                                         const char *const *key_paths,
                                                                         size_t num_key_paths,
                                                                         fief_object_notification_fn callback,
                                                                         void *userdata,
                                                                         fief_free_fn free_userdata);

/** Whether the object was deleted into `*out_deleted`.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL `out_deleted`),
 *  FIEF_ERR_INVALID_HANDLE (also after the callback returned),
 *  FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_object_changes_is_deleted(const fief_object_changes_t *changes, bool *out_deleted);

/** The number of changed properties into `*out_count` (0 when deleted).
 *  Errors: as fief_object_changes_is_deleted (NULL `out_count`). */
FIEF_API bool fief_object_changes_get_count(const fief_object_changes_t *changes, size_t *out_count);

/** The keys of the changed properties, ascending, into `out_properties`
 *  (room for `capacity`); `*out_count` (may be NULL): how many were
 *  written.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL `out_properties` with a
 *  capacity), FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_object_changes_get_properties(const fief_object_changes_t *changes,
                                                 fief_property_key_t *out_properties, size_t capacity,
                                                 size_t *out_count);

/** The value changed property `property` had before the change into
 *  `*out_value`, and whether there is one into `*out_has_value` (false,
 *  with FIEF_TYPE_NULL, when the observing realm made one of the commits,
 *  and for collection properties; see above).  Strings and binaries are
 *  views valid during the callback.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL `out_value` or `out_has_value`),
 *  FIEF_ERR_NO_SUCH_PROPERTY (not a changed property),
 *  FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_object_changes_get_old_value(const fief_object_changes_t *changes, fief_property_key_t property,
                                                fief_value_t *out_value, bool *out_has_value);

/** The value changed property `property` has after the change, as
 *  fief_object_changes_get_old_value (`*out_has_value` false only for
 *  collection properties).
 *  Errors: as fief_object_changes_get_old_value. */
FIEF_API bool fief_object_changes_get_new_value(const fief_object_changes_t *changes, fief_property_key_t property,
                                                fief_value_t *out_value, bool *out_has_value);

/* --------------------------------------------------------------------------
 * Commit without notifying (RealmSwift's write(withoutNotifying:))
 *
 * The commit is not reported to the given tokens' callbacks: their next
 * change set leaves out this commit's changes and has those of earlier and
 * later commits (realm-core's skip version).  Results, object and
 * collection callbacks can be skipped; realm callbacks are told of every
 * commit (their tokens are accepted and change nothing).  Skipped
 * callbacks that must stay in step with the data apply the commit's
 * changes themselves (RealmSwift's use: a UI that already shows them).
 * -------------------------------------------------------------------------- */

/** fief_realm_commit, leaving the commit out of the callbacks of `tokens`
 *  (`num_tokens` of them; NULL and 0: a plain commit), which must have been
 *  registered through this realm handle's realm.  When the commit's own
 *  version cannot be read alone (another writer committed at once after
 *  it; rare), nothing is skipped.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL `tokens` with a count, a token
 *  registered through another realm; nothing is committed),
 *  FIEF_ERR_INVALID_HANDLE (a released token), FIEF_ERR_WRONG_HANDLE_TYPE,
 *  and those of fief_realm_commit. */
FIEF_API bool fief_realm_commit_without_notifying(fief_realm_t *realm, fief_notification_token_t *const *tokens,
                                                  size_t num_tokens);

/* --------------------------------------------------------------------------
 * Sectioned results changes (RealmSwift's SectionedResultsChange)
 *
 * Sectioned results are sorted results split into sections by a key of
 * each row (the overlay's SectionedResults; realm-core's rules: sections
 * in the order in which the rows first give each key, a row in the
 * section of its key).  The host computes the keys; the library regroups
 * the results' change set: observe the sorted results
 * (fief_results_add_notification_callback) and, in the callback, give
 * each row's section before and after as an id (one int64 per key, the
 * same before and after) to fief_collection_changes_by_section.  Sections
 * inserted and deleted are found by id; rows of a deleted section are not
 * listed; a modified row that changed section or place is a deletion
 * (old index path) and an insertion (new one), else a modification (old
 * index path, as RealmSwift reports it).
 * -------------------------------------------------------------------------- */

/** Section changes: a handle of its own, released with fief_release
 *  (usable after the callback that made it). */
typedef struct fief_section_changes fief_section_changes_t;

/** A row of sectioned results: its section and its place in it. */
typedef struct fief_index_path {
    size_t section;
    size_t item;
} fief_index_path_t;

/** Regroup `changes` by section: `old_sections[i]` is the section id of
 *  row i before the change (`old_count` rows), `new_sections[j]` of row j
 *  after (`new_count` rows).  `only_section` (may be NULL): the changes of
 *  the section with that id alone (RealmSwift's ResultsSection.observe;
 *  positions still those of the whole layout).  An initial or failed
 *  change set gives an empty one.  Returns a new handle, or NULL.
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL `old_sections` or
 *  `new_sections` with a count; an index of the change set beyond the rows
 *  given), FIEF_ERR_INVALID_HANDLE (also after the callback returned),
 *  FIEF_ERR_WRONG_HANDLE_TYPE, FIEF_ERR_OUT_OF_MEMORY. */
FIEF_API fief_section_changes_t *fief_collection_changes_by_section(const fief_collection_changes_t *changes,
                                                                    const int64_t *old_sections, size_t old_count,
                                                                    const int64_t *new_sections, size_t new_count,
                                                                    const int64_t *only_section);

/** How many index paths each part has (each out-pointer may be NULL):
 *  rows deleted, inserted, modified; sections inserted, deleted.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_section_changes_get_counts(const fief_section_changes_t *changes, size_t *out_deletions,
                                              size_t *out_insertions, size_t *out_modifications,
                                              size_t *out_sections_inserted, size_t *out_sections_deleted);

/** Copy the index paths, by section then item, into the arrays given
 *  (each may be NULL): at most `capacity` of each.  Deletions and
 *  modifications in the old sections, insertions in the new ones.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_section_changes_get_index_paths(const fief_section_changes_t *changes, size_t capacity,
                                                   fief_index_path_t *deletions, fief_index_path_t *insertions,
                                                   fief_index_path_t *modifications);

/** Copy the sections inserted (new section indices) and deleted (old
 *  ones), ascending, into the arrays given (each may be NULL): at most
 *  `capacity` of each.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_section_changes_get_sections(const fief_section_changes_t *changes, size_t capacity,
                                                size_t *inserted, size_t *deleted);

/* --------------------------------------------------------------------------
 * List, set and map notifications (RealmSwift's List.observe,
 * MutableSet.observe, Map.observe)
 *
 * As results callbacks: first the initial call (fief_collection_changes_get_flags
 * / fief_map_changes_get_flags report `initial`, counts 0) at the first
 * delivery, then a call per delivery that changed the collection, several
 * commits coalesced.  Lists report what their operations did, from the
 * change records (nothing is read to know it): insertions, deletions,
 * modifications (an element set, or, for lists of objects, an element
 * whose object has a write the key paths count) and moves (fief_list_move
 * and fief_list_swap); removing every element sets `cleared`.  Sets and
 * maps report positions in their order (sets by element, maps by key).
 * A map callback is given a fief_map_changes_t: the keys deleted, inserted
 * and modified (a value set again).  An element that is an object is
 * modified by default when the object, or an object it reaches through
 * links to a depth of 4, is written; `key_paths` as for results.  When the
 * collection's owner is deleted the callback is called once more with
 * every old element deleted (every old key, for maps) and `root_deleted`,
 * then never again.
 *
 * Collections nested in mixed values: a nested list or map
 * handle registers through the same calls.  Its changes are found by
 * comparing its contents when a commit wrote its owner's mixed property:
 * a nested list reports the elements kept in order, an element replaced in
 * place as modified, other elements deleted and inserted (an element
 * deleted at one place and inserted at another also as a move); a nested
 * map reports keys.  A write inside a collection an element holds
 * (at any depth) is a modification of that element.  When the value
 * holding it is replaced or removed, or its owner deleted, the callback is
 * called once more with every old element (key) deleted and
 * `root_deleted`, then never again; registering on a gone one fails with
 * FIEF_ERR_INVALIDATED_OBJECT.
 *
 * Results of values (fief_list_to_results and the like) are observed with
 * fief_results_add_notification_callback through their collection: as
 * they are, with its change sets; filtered, sorted, distinct or limited,
 * with the change of their rows (a row is an element; a row whose element
 * was set is modified; rows are deleted and inserted, never moved).
 * -------------------------------------------------------------------------- */

/** Register `callback` on a list (of objects or of values); returns a new
 *  token, or NULL.  `key_paths` (`num_key_paths`; NULL and 0: the default)
 *  only for lists of objects.
 *  Errors: FIEF_ERR_NO_SUCH_PROPERTY (a key path naming no property; the
 *  message names the key path), FIEF_ERR_INVALID_ARGUMENT (NULL
 *  `callback`, NULL `key_paths` with a count, a NULL or empty key path,
 *  key paths on a list of values or a nested list), FIEF_ERR_INVALID_UTF8,
 *  FIEF_ERR_FROZEN (a frozen list never changes),
 *  FIEF_ERR_ALREADY_IN_TRANSACTION (inside a write transaction),
 *  FIEF_ERR_INVALIDATED_OBJECT (the owner was deleted; a nested list
 *  whose value was replaced or removed), FIEF_ERR_READ_ONLY,
 *  FIEF_ERR_CLOSED, FIEF_ERR_WRONG_THREAD, FIEF_ERR_INVALID_HANDLE,
 *  FIEF_ERR_WRONG_HANDLE_TYPE.  Any thread. */
FIEF_API fief_notification_token_t *fief_list_add_notification_callback(fief_list_t *list,
                                                                       const char *const *key_paths,
                                                                       size_t num_key_paths,
                                                                       fief_collection_changes_fn callback,
                                                                       void *userdata,
                                                                       fief_free_fn free_userdata);

/** Register `callback` on a set, as fief_list_add_notification_callback
 *  (no moves).
 *  Errors: as fief_list_add_notification_callback. */
FIEF_API fief_notification_token_t *fief_set_add_notification_callback(fief_set_t *set,
                                                                      const char *const *key_paths,
                                                                      size_t num_key_paths,
                                                                      fief_collection_changes_fn callback,
                                                                      void *userdata,
                                                                      fief_free_fn free_userdata);

/** The changes a map callback is given: valid during the callback only (a
 *  use after it returns fails with FIEF_ERR_INVALID_HANDLE); do not release
 *  it. */
typedef struct fief_map_changes fief_map_changes_t;

/** A map callback: on the thread that delivers. */
typedef void (*fief_map_changes_fn)(void *userdata, const fief_map_changes_t *changes);

/** Register `callback` on a map, as fief_list_add_notification_callback.
 *  Errors: as fief_list_add_notification_callback. */
FIEF_API fief_notification_token_t *fief_map_add_notification_callback(fief_map_t *map,
                                                                      const char *const *key_paths,
                                                                      size_t num_key_paths,
                                                                      fief_map_changes_fn callback,
                                                                      void *userdata,
                                                                      fief_free_fn free_userdata);

/** How many keys were deleted, inserted and modified (each out-pointer may
 *  be NULL).
 *  Errors: FIEF_ERR_INVALID_HANDLE (also after the callback returned),
 *  FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_map_changes_get_counts(const fief_map_changes_t *changes, size_t *out_deletions,
                                          size_t *out_insertions, size_t *out_modifications);

/** The flags (each out-pointer may be NULL): the initial call, the map was
 *  cleared, its owner was deleted.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_map_changes_get_flags(const fief_map_changes_t *changes, bool *out_initial, bool *out_cleared,
                                         bool *out_root_deleted);

/** Copy the keys, in the map's order (UTF-8 bytes), into the arrays given
 *  (each may be NULL): at most `capacity` of each; views valid during the
 *  callback.
 *  Errors: FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_map_changes_get_keys(const fief_map_changes_t *changes, size_t capacity,
                                        fief_string_t *deletions, fief_string_t *insertions,
                                        fief_string_t *modifications);

/** Whether the map's notifier failed (`*out_failed`), and then the error
 *  into `*out_error` (may be NULL; its strings valid during the callback).
 *  Errors: FIEF_ERR_INVALID_ARGUMENT (NULL `out_failed`),
 *  FIEF_ERR_INVALID_HANDLE, FIEF_ERR_WRONG_HANDLE_TYPE. */
FIEF_API bool fief_map_changes_get_error(const fief_map_changes_t *changes, bool *out_failed,
                                         fief_error_t *out_error);

#ifdef __cplusplus
}
#endif

#endif /* FIEF_H */
