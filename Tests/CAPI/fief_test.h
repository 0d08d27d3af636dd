/*
 * fief_test.h - a tiny test harness for the Fief C API tests.
 *
 * Every test file defines its tests with TEST(name) and lists them in a
 * table passed to t_main:
 *
 *     TEST(open_close) { ... }
 *     static const t_case cases[] = { T(open_close) };
 *     int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
 *
 * `prog NAME` runs one test in-process (CTest registers every TEST(...) line
 * of the source as its own test); `prog` alone runs them all, each in a
 * forked child so a crash fails only that test.
 *
 * Checks:
 *   E(expr)           expr must be true/non-NULL; on failure prints
 *                     file:line, the expression and the last Fief error.
 *   R(expr)           as E, but aborts the current test on failure.
 *   EERR(expr, code)  expr must fail (false/NULL) with last error `code`
 *                     (and the category bit that code belongs to).  The
 *                     last error is cleared just before `expr` runs, so
 *                     `expr` must be the failing Fief call itself.
 *   EQI(a, b) / EQU / EQD / EQSTR(view, "text") / EQV(value, value)
 */
#ifndef FIEF_TEST_H
#define FIEF_TEST_H

#include "fief.h"

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct t_case {
    const char *name;
    void (*fn)(void);
} t_case;

#define TEST(name) static void test_##name(void)
#define T(name) { #name, test_##name }
#define T_MAIN(argc, argv, cases) t_main((argc), (argv), (cases), sizeof(cases) / sizeof((cases)[0]))

int t_main(int argc, char **argv, const t_case *cases, size_t num_cases);

/* ---- checks ---------------------------------------------------------------- */

extern int t_failures;
extern jmp_buf t_abort_jmp;
extern const char *t_current_test;

void t_fail(const char *file, int line, const char *expr, const char *detail);
void t_check_error(const char *file, int line, const char *expr, bool succeeded,
                   fief_error_code_t expected);
/* The category bit documented for `code`. */
uint32_t t_category_of(fief_error_code_t code);
/* Name of an error code (for messages). */
const char *t_code_name(fief_error_code_t code);

#define E(expr)                                                                  \
    do {                                                                         \
        if (!(expr)) t_fail(__FILE__, __LINE__, #expr, NULL);                    \
    } while (0)
#define R(expr)                                                                  \
    do {                                                                         \
        if (!(expr)) {                                                           \
            t_fail(__FILE__, __LINE__, #expr, "(required; test aborted)");       \
            longjmp(t_abort_jmp, 1);                                             \
        }                                                                        \
    } while (0)
#define EERR(expr, code)                                                         \
    do {                                                                         \
        fief_clear_last_error();                                                 \
        bool t_ok_ = (expr) ? true : false;                                      \
        t_check_error(__FILE__, __LINE__, #expr, t_ok_, (code));                 \
    } while (0)

/* The last error's message must contain `needle` (after a failure or EERR). */
void t_expect_message(const char *file, int line, const char *expr, const char *needle);
#define EMSG(needle) t_expect_message(__FILE__, __LINE__, "error message", (needle))
/* expr must fail with `code` and a message that contains `needle`. */
#define EERRM(expr, code, needle)                                                \
    do {                                                                         \
        EERR(expr, code);                                                        \
        t_expect_message(__FILE__, __LINE__, #expr, needle);                     \
    } while (0)

void t_eq_int(const char *file, int line, const char *expr, int64_t a, int64_t b);
void t_eq_uint(const char *file, int line, const char *expr, uint64_t a, uint64_t b);
void t_eq_double(const char *file, int line, const char *expr, double a, double b);
void t_eq_str(const char *file, int line, const char *expr, fief_string_t a, const char *b);
void t_eq_value(const char *file, int line, const char *expr, fief_value_t a, fief_value_t b);
#define EQI(a, b) t_eq_int(__FILE__, __LINE__, #a " == " #b, (int64_t)(a), (int64_t)(b))
#define EQU(a, b) t_eq_uint(__FILE__, __LINE__, #a " == " #b, (uint64_t)(a), (uint64_t)(b))
#define EQD(a, b) t_eq_double(__FILE__, __LINE__, #a " == " #b, (double)(a), (double)(b))
#define EQSTR(a, b) t_eq_str(__FILE__, __LINE__, #a " == " #b, (a), (b))
#define EQV(a, b) t_eq_value(__FILE__, __LINE__, #a " == " #b, (a), (b))

/* ---- scratch files ----------------------------------------------------------- */

/* The current test's scratch directory (created on first use; removed after
 * the test unless FIEF_TEST_KEEP is set).  Under $FIEF_TEST_TMPDIR or /tmp. */
const char *t_dir(void);
/* t_dir()/name, in a buffer that lives until the test ends. */
const char *t_path(const char *name);
void t_rm_rf(const char *path);

/* ---- values ---------------------------------------------------------------- */

fief_value_t vnull(void);
fief_value_t vi(int64_t x);
fief_value_t vb(bool x);
fief_value_t vs(const char *zstr);
fief_value_t vsn(const char *data, size_t size);
fief_value_t vbin(const void *data, size_t size);
fief_value_t vts(int64_t seconds, int32_t nanoseconds);
fief_value_t vf(float x);
fief_value_t vd(double x);
fief_value_t vdec(uint64_t low, uint64_t high);
fief_value_t void12(const char *hex24);  /* object id from 24 hex digits */
fief_value_t vuuid(const char *hex32);   /* uuid from 32 hex digits */
fief_value_t vlink(fief_class_key_t cls, fief_object_key_t key);
fief_value_t vtype(fief_type_t type);    /* a value of `type` with a zero payload */
bool t_value_eq(fief_value_t a, fief_value_t b);
/* Prints a value into buf (for messages). */
const char *t_value_str(fief_value_t v, char *buf, size_t size);
/* A string view of a zero-terminated string. */
fief_string_t t_str(const char *z);

/* ---- schema and realm helpers ------------------------------------------------ */

/* A property description for schema definitions. */
fief_property_info_t t_prop_info(const char *name, fief_type_t type, uint32_t flags);

/* The standard test schema:
 *   AllTypes (pk int "id"): i b s bin ts f d dec oid uuid (non-optional) and
 *            oi ob os obin ots of od odec ooid ouuid (optional), "idx" (indexed int)
 *   StrPk    (pk string "name"): value int
 *   OidPk    (pk object id "oid"): value int
 *   UuidPk   (pk uuid "uuid"): value int
 *   NoPk     (no pk): value int, label optional string
 */
fief_schema_t *t_std_schema(void);

/* Open `path` (a file) with `schema` (may be NULL) at `version`. */
fief_realm_t *t_open(const char *path, const fief_schema_t *schema, uint64_t version);
/* Open with the standard schema at t_path("std.fief"). */
fief_realm_t *t_open_std(void);
/* Class and property keys by name, 0 (and a failure) if missing. */
fief_class_key_t t_class(fief_realm_t *realm, const char *cls);
fief_property_key_t t_prop(fief_realm_t *realm, const char *cls, const char *prop);
/* Read one property (fails the test and returns a NULL value on error). */
fief_value_t t_get(const fief_object_t *obj, fief_property_key_t prop);
int64_t t_get_int(const fief_object_t *obj, fief_property_key_t prop);
size_t t_count(const fief_results_t *results);
/* Count of all objects of a class. */
size_t t_count_class(fief_realm_t *realm, fief_class_key_t cls);
/* Run `fn` on a new thread and wait for it. */
void t_run_thread(void *(*fn)(void *), void *arg);
/* Whether `fd` becomes readable within `ms` milliseconds. */
bool t_fd_readable(int fd, int ms);
/* Deliver `realm`'s notifications on this thread, waiting on its
 * notification fd, until `*calls` (a callback's count) reaches `target`
 * (at most 60 s: a liveness bound); fails the test unless it is exactly
 * `target` then. */
void t_deliver_until(fief_realm_t *realm, const int *calls, int target);
/* The version `realm` reads (fails the test and returns 0 on error). */
uint64_t t_version(fief_realm_t *realm);
/* Run this test program again as a child process with the arguments
 * `a`, `b`, `c` (each may be NULL, ending the list) and wait for it:
 * its exit status, or -1 if it did not exit normally. */
int t_run_self(const char *a, const char *b, const char *c);
/* Write `size` bytes of `data` to a new file at `path`. */
bool t_write_file(const char *path, const void *data, size_t size);
bool t_file_exists(const char *path);
/* Monotonic seconds. */
double t_now(void);
/* The string values of `property` of `res`'s objects, in order, joined by
 * ',' (in a static buffer of 256 bytes, so for short lists); "<count
 * failed>" or "<get_values failed>" when reading them fails. */
const char *t_result_strings(const fief_results_t *res, fief_property_key_t property);

#endif
