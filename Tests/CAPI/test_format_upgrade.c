/* Files of format 4 (backlinks one LMDB entry per record) against this
 * library's format (backlinks in runs since format 5): Tests/CAPI/data/format4_links.fief
 * (see format4_links.h) is refused by a read-only open with directions,
 * verified and copied as it is, and upgraded in place by a writable open,
 * after which every object's backlinks through every kind of link are
 * exact and deleting the linked objects keeps them so. */
#include "fief_test.h"
#include "format4_links.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef FIEF_TEST_DATA
#error FIEF_TEST_DATA (the directory of the test files) must be defined
#endif

static const char *const PROPS[4] = {"dog", "dogs", "pals", "byName"};

/* A fresh copy of the format-4 file at `name` in the test directory. */
static const char *fixture(const char *name) {
    static char path[4096];
    snprintf(path, sizeof path, "%s", t_path(name));
    FILE *in = fopen(FIEF_TEST_DATA "/format4_links.fief", "rb");
    if (!in) return NULL;
    static unsigned char buffer[1 << 20];
    size_t n = fread(buffer, 1, sizeof buffer, in);
    fclose(in);
    return n > 0 && n < sizeof buffer && t_write_file(path, buffer, n) ? path : NULL;
}

/* How many people link dog d through property `prop` (0 dog, 1 dogs, 2 pals,
 * 3 byName), each person counted once; -1 for `removed` dogs gone. */
static int expected_linking(int prop, int d, const bool *removed) {
    if (removed && removed[d]) return -1;
    int n = 0;
    for (int p = 0; p < FORMAT4_PEOPLE; p++) {
        bool links = false;
        switch (prop) {
        case 0: links = format4_dog(p) == d; break;
        case 1: for (int i = 0; i < FORMAT4_LIST_LEN; i++) links |= format4_list(p, i) == d; break;
        case 2: for (int i = 0; i < FORMAT4_SET_LEN; i++) links |= format4_set(p, i) == d; break;
        default: for (int i = 0; i < FORMAT4_MAP_LEN; i++) links |= format4_map(p, i) == d; break;
        }
        n += links;
    }
    return n;
}

/* Every dog's linking people through every property, against the data. */
static void check_backlinks(fief_realm_t *r, const bool *removed) {
    fief_class_key_t dog = t_class(r, "Dog"), person = t_class(r, "Person");
    for (int k = 0; k < 4; k++) {
        fief_property_key_t prop = t_prop(r, "Person", PROPS[k]);
        for (int d = 0; d < FORMAT4_DOGS; d++) {
            int want = expected_linking(k, d, removed);
            fief_object_t *o = fief_object_get(r, dog, d);
            if (want < 0) {
                E(o == NULL);
                continue;
            }
            R(o != NULL);
            fief_results_t *linking = fief_object_get_backlinks(o, person, prop);
            R(linking != NULL);
            if ((int)t_count(linking) != want) {
                char detail[128];
                snprintf(detail, sizeof detail, "dog %d via %s: %zu linking, expected %d", d, PROPS[k], t_count(linking), want);
                t_fail(__FILE__, __LINE__, "backlinks", detail);
            }
            E(fief_release(linking));
            E(fief_release(o));
        }
    }
}

static void count_problem(void *userdata, fief_report_kind_t kind, const char *line) {
    if (kind == FIEF_REPORT_PROBLEM) {
        ++*(int *)userdata;
        fprintf(stderr, "problem: %s\n", line);
    }
}

static size_t verify(const char *path) {
    int seen = 0;
    size_t problems = 99;
    E(fief_file_verify(path, count_problem, &seen, &problems));
    return problems;
}

static fief_realm_t *open_path(const char *path, bool read_only) {
    fief_config_t *c = fief_config_new();
    if (!c || !fief_config_set_path(c, path) || !fief_config_set_read_only(c, read_only)) return NULL;
    fief_realm_t *r = fief_realm_open(c);
    fief_release(c);
    return r;
}

TEST(read_only_open_of_format_4_says_how_to_upgrade) {
    const char *path = fixture("ro.fief");
    R(path != NULL);
    EERRM(open_path(path, true) != NULL, FIEF_ERR_FILE_FORMAT, "format 4");
    EMSG("fief copy");
    /* Verified as it is (its own layout), and nothing written. */
    EQU(verify(path), 0);
    EERRM(open_path(path, true) != NULL, FIEF_ERR_FILE_FORMAT, "format 4");
}

TEST(copy_of_format_4_is_current) {
    const char *path = fixture("copied.fief");
    R(path != NULL);
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", t_path("copy.fief"));
    size_t problems = 99;
    E(fief_file_copy(path, copy, NULL, NULL, &problems));
    EQU(problems, 0);
    EQU(verify(copy), 0);
    fief_realm_t *r = open_path(copy, true);
    R(r != NULL);
    check_backlinks(r, NULL);
    E(fief_release(r));
}

TEST(writable_open_upgrades_format_4) {
    const char *path = fixture("upgraded.fief");
    R(path != NULL);
    fief_realm_t *r = open_path(path, false);
    R(r != NULL);
    check_backlinks(r, NULL);
    E(fief_realm_close(r));
    E(fief_release(r));
    EQU(verify(path), 0);
    /* Now the current format: a read-only open works. */
    r = open_path(path, true);
    R(r != NULL);
    check_backlinks(r, NULL);
    E(fief_release(r));
    /* Deleting every third dog nulls, takes out or removes every link to it. */
    r = open_path(path, false);
    R(r != NULL);
    static bool removed[FORMAT4_DOGS];
    fief_class_key_t dog = t_class(r, "Dog");
    E(fief_realm_begin_write(r));
    for (int d = 0; d < FORMAT4_DOGS; d += 3) {
        fief_object_t *o = fief_object_get(r, dog, d);
        R(o != NULL);
        E(fief_object_delete(o));
        E(fief_release(o));
        removed[d] = true;
    }
    E(fief_realm_commit(r));
    check_backlinks(r, removed);
    fief_class_key_t person = t_class(r, "Person");
    fief_property_key_t dogs = t_prop(r, "Person", "dogs");
    for (int p = 0; p < FORMAT4_PEOPLE; p++) {
        fief_object_t *o = fief_object_get(r, person, p);
        R(o != NULL);
        fief_list_t *l = fief_object_get_list(o, dogs);
        R(l != NULL);
        size_t size = 0, k = 0;
        E(fief_list_count(l, &size));
        for (int i = 0; i < FORMAT4_LIST_LEN; i++) {
            int d = format4_list(p, i);
            if (removed[d]) continue;
            fief_value_t v;
            E(k < size && fief_list_get(l, k, &v) && v.type == FIEF_TYPE_LINK && v.u.link.object_key == d);
            k++;
        }
        EQU(size, k);
        E(fief_release(l));
        E(fief_release(o));
    }
    E(fief_realm_close(r));
    E(fief_release(r));
    EQU(verify(path), 0);
}

int main(int argc, char **argv) {
    static const t_case cases[] = {T(read_only_open_of_format_4_says_how_to_upgrade), T(copy_of_format_4_is_current),
                                   T(writable_open_upgrades_format_4)};
    return T_MAIN(argc, argv, cases);
}
