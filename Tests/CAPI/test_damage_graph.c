/* Damaged graph files: a realm of objects linked to each other, with lists,
 * sets and maps (of values and of links), backlinks, embedded objects,
 * mixed values holding nested lists and dictionaries and a full-text index,
 * copied with flipped bits, zeroed pages, truncation, garbage ranges,
 * garbage pages and stale pages.  For each damaged copy a child process
 * (with an alarm: a hang is a failure like a crash) opens it, reads every
 * value, every collection element, every backlink and the results of
 * queries through links, collections, nested collections and TEXT; another
 * child verifies it, copies it, verifies the copy and reads it whole.
 *
 * Rules, as docs/design.md ("Damaged files") states them:
 *  - no crash, no hang;
 *  - a value read without an error equals the original's, exactly: every
 *    read is recorded under a label (Person#7.pets[3]) and compared with
 *    the label's value in the undamaged file;
 *  - every error is FIEF_ERR_FILE_CORRUPT.  When opening (the realm, or
 *    the file for verify or copy) FIEF_ERR_FILE_NOT_FIEF and
 *    FIEF_ERR_FILE_FORMAT are allowed too: damage to LMDB's meta pages,
 *    a file cut short before its first pages, or a damaged format number
 *    leaves a file that is no longer recognisable as a Fief file of a
 *    known format, and that is what those codes say;
 *  - verify and copy run on every copy; the copy they write verifies with
 *    no problems and reads whole without any error, and every scalar value
 *    it holds is the original's or (data lost) the property's default.
 *
 * Failures print the seed, the case number and the damage kind, so one case
 * can be run again (FIEF_DAMAGE_SEED=<seed> FIEF_DAMAGE_FIRST=<case>
 * FIEF_DAMAGE_CASES=1).  Wrong values inside maps and nested collections are
 * told apart ("map/nested") from other wrong values; both fail the test.
 *
 * FIEF_DAMAGE_SEED, FIEF_DAMAGE_CASES, FIEF_DAMAGE_FIRST (defaults below,
 * DEFAULT_*), FIEF_DAMAGE_TIMEOUT (seconds per child, default 30).
 * A long run by hand: FIEF_DAMAGE_FIRST=0 FIEF_DAMAGE_CASES=3000
 * build/Tests/CAPI/test_damage_graph damaged_graph_files */
#include "fief_test.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the schema ------------------------------------------------------------------ */

enum { PERSONS = 240, DOGS = 400 };

static fief_schema_t *graph_schema(void) {
    fief_class_info_t classes[3];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Person";
    classes[0].num_properties = 15;
    classes[1].name = "Dog";
    classes[1].num_properties = 5;
    classes[2].name = "Address";
    classes[2].num_properties = 2;
    classes[2].flags = FIEF_CLASS_EMBEDDED;
    fief_property_info_t person[15] = {
        t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
        t_prop_info("name", FIEF_TYPE_STRING, FIEF_PROPERTY_INDEXED),
        t_prop_info("age", FIEF_TYPE_INT, 0),
        t_prop_info("bio", FIEF_TYPE_STRING, FIEF_PROPERTY_NULLABLE | FIEF_PROPERTY_FULLTEXT_INDEXED),
        t_prop_info("blob", FIEF_TYPE_BINARY, 0),
        t_prop_info("friend", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
        t_prop_info("pets", FIEF_TYPE_LINK, 0),
        t_prop_info("tags", FIEF_TYPE_STRING, 0),
        t_prop_info("scores", FIEF_TYPE_INT, FIEF_PROPERTY_NULLABLE),
        t_prop_info("home", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
        t_prop_info("places", FIEF_TYPE_LINK, 0),
        t_prop_info("mix", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
        t_prop_info("items", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
        t_prop_info("props", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
        t_prop_info("walkers", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
    };
    person[5].link_target = "Person";
    person[6].link_target = "Dog";
    person[6].collection_type = FIEF_COLLECTION_LIST;
    person[7].collection_type = FIEF_COLLECTION_SET;
    person[8].collection_type = FIEF_COLLECTION_MAP;
    person[9].link_target = "Address";
    person[10].link_target = "Address";
    person[10].collection_type = FIEF_COLLECTION_LIST;
    person[12].collection_type = FIEF_COLLECTION_LIST;
    person[13].collection_type = FIEF_COLLECTION_MAP;
    person[14].link_target = "Dog";
    person[14].collection_type = FIEF_COLLECTION_MAP;
    fief_property_info_t dog[5] = {
        t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
        t_prop_info("name", FIEF_TYPE_STRING, 0),
        t_prop_info("owner", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
        t_prop_info("toys", FIEF_TYPE_INT, 0),
        t_prop_info("seen", FIEF_TYPE_MIXED, FIEF_PROPERTY_NULLABLE),
    };
    dog[2].link_target = "Person";
    dog[3].collection_type = FIEF_COLLECTION_LIST;
    dog[4].collection_type = FIEF_COLLECTION_SET;
    fief_property_info_t address[2] = {t_prop_info("street", FIEF_TYPE_STRING, 0), t_prop_info("zip", FIEF_TYPE_INT, 0)};
    const fief_property_info_t *props[3] = {person, dog, address};
    return fief_schema_new(classes, 3, props);
}

static const char *const WORDS[] = {"river", "stone", "amber", "falcon", "meadow", "copper", "lantern", "harbor",
                                    "willow", "ember",  "quartz", "thistle", "orchard", "cobalt", "saffron", "juniper"};

static uint64_t fill_rng = 88172645463325252ull;
static uint64_t fill_next(void) {
    fill_rng ^= fill_rng << 13;
    fill_rng ^= fill_rng >> 7;
    fill_rng ^= fill_rng << 17;
    return fill_rng;
}

/* Fill `r`: persons linked to friends, dogs (lists and maps of links, a
 * link back), tags, scores, embedded addresses, mixed values with nested
 * lists and dictionaries three deep, texts for the full-text index. */
static void fill(fief_realm_t *r) {
    fief_class_key_t person = t_class(r, "Person"), dog = t_class(r, "Dog");
    fief_property_key_t pid = t_prop(r, "Person", "id"), did = t_prop(r, "Dog", "id");
    const char *pnames[] = {"name", "age", "bio", "blob", "friend", "mix"};
    fief_property_key_t pk[6];
    for (int i = 0; i < 6; i++) pk[i] = t_prop(r, "Person", pnames[i]);
    fief_property_key_t pets = t_prop(r, "Person", "pets"), tags = t_prop(r, "Person", "tags"),
                        scores = t_prop(r, "Person", "scores"), home = t_prop(r, "Person", "home"),
                        places = t_prop(r, "Person", "places"), items = t_prop(r, "Person", "items"),
                        propsk = t_prop(r, "Person", "props"), walkers = t_prop(r, "Person", "walkers");
    fief_property_key_t dname = t_prop(r, "Dog", "name"), owner = t_prop(r, "Dog", "owner"), toys = t_prop(r, "Dog", "toys"),
                        seen = t_prop(r, "Dog", "seen");
    fief_property_key_t street = t_prop(r, "Address", "street"), zip = t_prop(r, "Address", "zip");

    R(fief_realm_begin_write(r));
    fief_object_t *dogs[DOGS];
    for (int64_t i = 0; i < DOGS; i++) {
        char name[32];
        snprintf(name, sizeof name, "dog %lld", (long long)i);
        fief_value_t v[2] = {vi(i), vs(name)};
        fief_property_key_t k[2] = {did, dname};
        dogs[i] = fief_object_create(r, dog, k, v, 2, FIEF_UPDATE_POLICY_ERROR);
        R(dogs[i] != NULL);
        fief_list_t *l = fief_object_get_list(dogs[i], toys);
        R(l != NULL);
        for (int64_t t = 0; t < (int64_t)(fill_next() % 12); t++) E(fief_list_append(l, (fief_value_t[]){vi(i * 100 + t)}, 1));
        fief_release(l);
        fief_set_t *s = fief_object_get_set(dogs[i], seen);
        R(s != NULL);
        fief_value_t sv[4] = {vi(i % 7), vs(WORDS[i % 16]), vd((double)i / 4), vb(i % 2)};
        for (int j = 0; j < (int)(i % 5); j++) E(fief_set_insert(s, sv[j % 4], NULL));
        fief_release(s);
    }
    fief_object_t *persons[PERSONS];
    for (int64_t i = 0; i < PERSONS; i++) {
        char name[32], bio[200], blob[40];
        snprintf(name, sizeof name, "person %lld", (long long)i);
        snprintf(bio, sizeof bio, "%s %s %s and the %s of %s number%lld", WORDS[fill_next() % 16], WORDS[fill_next() % 16],
                 WORDS[i % 16], WORDS[(i / 16) % 16], WORDS[fill_next() % 16], (long long)i);
        for (int b = 0; b < 40; b++) blob[b] = (char)(i * 3 + b);
        fief_value_t v[7] = {vi(i), vs(name), vi(i % 90), i % 9 == 4 ? vnull() : vs(bio), vbin(blob, (size_t)(i % 41)),
                             vnull(), vnull()};
        fief_property_key_t k[7] = {pid, pk[0], pk[1], pk[2], pk[3], pk[4], pk[5]};
        persons[i] = fief_object_create(r, person, k, v, 6, FIEF_UPDATE_POLICY_ERROR);
        R(persons[i] != NULL);
    }
    for (int64_t i = 0; i < PERSONS; i++) {
        fief_object_t *p = persons[i];
        if (i % 5 != 3) {
            fief_object_key_t fk;
            E(fief_object_get_key(persons[(i * 7 + 1) % PERSONS], &fk));
            E(fief_object_set_value(p, pk[4], vlink(person, fk)));
        }
        fief_list_t *l = fief_object_get_list(p, pets);
        R(l != NULL);
        int npets = (int)(fill_next() % 9);
        for (int j = 0; j < npets; j++) {
            fief_object_key_t dk;
            int d = (int)(fill_next() % DOGS);
            E(fief_object_get_key(dogs[d], &dk));
            E(fief_list_append(l, (fief_value_t[]){vlink(dog, dk)}, 1));
            if (j == 0) {
                fief_object_key_t ok;
                E(fief_object_get_key(p, &ok));
                E(fief_object_set_value(dogs[d], owner, vlink(person, ok)));
            }
        }
        fief_release(l);
        fief_set_t *s = fief_object_get_set(p, tags);
        R(s != NULL);
        for (int j = 0; j < (int)(fill_next() % 6); j++) E(fief_set_insert(s, vs(WORDS[fill_next() % 16]), NULL));
        fief_release(s);
        fief_map_t *m = fief_object_get_map(p, scores);
        R(m != NULL);
        for (int j = 0; j < (int)(fill_next() % 8); j++) {
            char key[16];
            snprintf(key, sizeof key, "k%d", (int)(fill_next() % 20));
            E(fief_map_set(m, t_str(key), j == 3 ? vnull() : vi((int64_t)(fill_next() % 1000))));
        }
        fief_release(m);
        fief_map_t *w = fief_object_get_map(p, walkers);
        R(w != NULL);
        for (int j = 0; j < (int)(i % 4); j++) {
            fief_object_key_t dk;
            E(fief_object_get_key(dogs[(i * 3 + j) % DOGS], &dk));
            E(fief_map_set(w, t_str(WORDS[j]), vlink(dog, dk)));
        }
        fief_release(w);
        if (i % 4 != 1) {
            fief_object_t *a = fief_object_create_embedded(p, home);
            R(a != NULL);
            char st[40];
            snprintf(st, sizeof st, "%lld %s street", (long long)i, WORDS[i % 16]);
            E(fief_object_set_value(a, street, vs(st)));
            E(fief_object_set_value(a, zip, vi(10000 + i)));
            fief_release(a);
        }
        fief_list_t *pl = fief_object_get_list(p, places);
        R(pl != NULL);
        for (int j = 0; j < (int)(i % 3); j++) {
            fief_object_t *a = fief_list_insert_embedded(pl, (size_t)j);
            R(a != NULL);
            E(fief_object_set_value(a, street, vs(WORDS[(i + j) % 16])));
            E(fief_object_set_value(a, zip, vi(i * 10 + j)));
            fief_release(a);
        }
        fief_release(pl);
        /* any: a scalar, a nested list or a nested dictionary. */
        if (i % 3 == 0) {
            E(fief_object_set_value(p, pk[5], vi(i * 11)));
        } else if (i % 3 == 1) {
            E(fief_object_set_value(p, pk[5], vtype(FIEF_TYPE_LIST)));
            fief_list_t *nl = fief_object_get_list(p, pk[5]);
            R(nl != NULL);
            fief_value_t vals[4] = {vi(i), vs(WORDS[i % 16]), vtype(FIEF_TYPE_MAP), vd(i / 3.0)};
            E(fief_list_append(nl, vals, 4));
            fief_map_t *nd = fief_list_get_map(nl, 2);
            R(nd != NULL);
            E(fief_map_set(nd, t_str("depth"), vi(2)));
            E(fief_map_set(nd, t_str("deeper"), vtype(FIEF_TYPE_LIST)));
            fief_list_t *dl = fief_map_get_list(nd, t_str("deeper"));
            R(dl != NULL);
            for (int j = 0; j < (int)(i % 6); j++) E(fief_list_append(dl, (fief_value_t[]){vi(j * j)}, 1));
            fief_release(dl);
            fief_release(nd);
            fief_release(nl);
        } else {
            E(fief_object_set_value(p, pk[5], vtype(FIEF_TYPE_MAP)));
            fief_map_t *nd = fief_object_get_map(p, pk[5]);
            R(nd != NULL);
            for (int j = 0; j < (int)(i % 7); j++) E(fief_map_set(nd, t_str(WORDS[j]), vi(i + j)));
            fief_release(nd);
        }
        /* items: mixed values, links and nested collections. */
        fief_list_t *il = fief_object_get_list(p, items);
        R(il != NULL);
        int nitems = (int)(fill_next() % 7);
        for (int j = 0; j < nitems; j++) {
            fief_object_key_t dk;
            E(fief_object_get_key(dogs[(i + j) % DOGS], &dk));
            fief_value_t choices[5] = {vi(j), vs(WORDS[(i + j) % 16]), vlink(dog, dk), vtype(FIEF_TYPE_LIST), vnull()};
            fief_value_t v = choices[fill_next() % 5];
            E(fief_list_append(il, &v, 1));
            if (v.type == FIEF_TYPE_LIST) {
                fief_list_t *nl = fief_list_get_list(il, (size_t)j);
                R(nl != NULL);
                for (int k = 0; k < 3; k++) E(fief_list_append(nl, (fief_value_t[]){vi(i * 1000 + k)}, 1));
                fief_release(nl);
            }
        }
        fief_release(il);
        /* props: a map of mixed values holding nested collections. */
        fief_map_t *pm = fief_object_get_map(p, propsk);
        R(pm != NULL);
        if (i % 2 == 0) {
            E(fief_map_set(pm, t_str("n"), vi(i)));
            E(fief_map_set(pm, t_str("s"), vs(WORDS[(i * 5) % 16])));
            E(fief_map_set(pm, t_str("list"), vtype(FIEF_TYPE_LIST)));
            fief_list_t *nl = fief_map_get_list(pm, t_str("list"));
            R(nl != NULL);
            for (int j = 0; j < (int)(i % 5); j++) E(fief_list_append(nl, (fief_value_t[]){vs(WORDS[j])}, 1));
            fief_release(nl);
            E(fief_map_set(pm, t_str("dict"), vtype(FIEF_TYPE_MAP)));
            fief_map_t *nd = fief_map_get_map(pm, t_str("dict"));
            R(nd != NULL);
            E(fief_map_set(nd, t_str("x"), vd(i * 0.5)));
            E(fief_map_set(nd, t_str("y"), vtype(FIEF_TYPE_MAP)));
            fief_map_t *nn = fief_map_get_map(nd, t_str("y"));
            R(nn != NULL);
            E(fief_map_set(nn, t_str("z"), vi(-i)));
            fief_release(nn);
            fief_release(nd);
        }
        fief_release(pm);
    }
    for (int i = 0; i < DOGS; i++) fief_release(dogs[i]);
    for (int i = 0; i < PERSONS; i++) fief_release(persons[i]);
    R(fief_realm_commit(r));
    /* Deletes leave holes and free pages, and the backlinks change. */
    R(fief_realm_begin_write(r));
    for (int64_t i = 0; i < PERSONS; i += 11) {
        fief_object_t *o = fief_object_find_by_primary_key(r, person, vi(i), NULL);
        R(o != NULL);
        E(fief_object_delete(o));
        fief_release(o);
    }
    for (int64_t i = 5; i < DOGS; i += 13) {
        fief_object_t *o = fief_object_find_by_primary_key(r, dog, vi(i), NULL);
        R(o != NULL);
        E(fief_object_delete(o));
        fief_release(o);
    }
    R(fief_realm_commit(r));
}

/* ---- labelled values: what was read, and where ---------------------------------------- */

/* Exact text of a value: strings and binaries in full. */
static void value_text(fief_value_t v, char *buf, size_t size) {
    size_t n = 0;
    switch (v.type) {
    case FIEF_TYPE_STRING:
    case FIEF_TYPE_BINARY: {
        const unsigned char *d = v.type == FIEF_TYPE_STRING ? (const unsigned char *)v.u.string.data : v.u.binary.data;
        size_t len = v.type == FIEF_TYPE_STRING ? v.u.string.size : v.u.binary.size;
        n = (size_t)snprintf(buf, size, "%s[%zu]", v.type == FIEF_TYPE_STRING ? "s" : "b", len);
        for (size_t i = 0; i < len && n + 3 < size; i++) n += (size_t)snprintf(buf + n, size - n, "%02x", d[i]);
        if (len && n + 3 >= size) snprintf(buf + size - 4, 4, "...");
        return;
    }
    case FIEF_TYPE_LINK:
        snprintf(buf, size, "link %u:%lld", v.u.link.class_key, (long long)v.u.link.object_key);
        return;
    case FIEF_TYPE_DOUBLE: snprintf(buf, size, "d %a", v.u.double_value); return;
    case FIEF_TYPE_FLOAT: snprintf(buf, size, "f %a", (double)v.u.float_value); return;
    case FIEF_TYPE_LIST: snprintf(buf, size, "list"); return;
    case FIEF_TYPE_MAP: snprintf(buf, size, "dictionary"); return;
    default: t_value_str(v, buf, size); return;
    }
}

typedef struct entry {
    char *label, *value;
} entry;

/* The undamaged file's values, by label (open addressing). */
static entry *g_table;
static size_t g_table_size, g_table_used;

static uint64_t hash_str(const char *s) {
    uint64_t h = 1469598103934665603ull;
    while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static entry *slot(const char *label) {
    size_t i = (size_t)(hash_str(label) & (g_table_size - 1));
    while (g_table[i].label && strcmp(g_table[i].label, label) != 0) i = (i + 1) & (g_table_size - 1);
    return &g_table[i];
}

static void table_put(const char *label, const char *value) {
    if (2 * (g_table_used + 1) > g_table_size) {
        entry *old = g_table;
        size_t old_size = g_table_size;
        g_table_size = old_size ? old_size * 2 : 1 << 16;
        g_table = calloc(g_table_size, sizeof(entry));
        for (size_t i = 0; i < old_size; i++)
            if (old[i].label) *slot(old[i].label) = old[i];
        free(old);
    }
    entry *e = slot(label);
    R(e->label == NULL); /* every label once */
    e->label = strdup(label);
    e->value = strdup(value);
    g_table_used++;
}

/* Modes of a read: recording the original, checking a damaged copy
 * against it, reading a salvaged copy (scalars: the original or the
 * default), or reading the rest of a salvaged copy (no error, no
 * comparison: salvage may lose collection elements). */
enum mode { RECORD, CHECK, SALVAGED, READ_ONLY };

/* Exit codes of the children. */
enum outcome {
    ALL_SAME = 0,
    SOME_REFUSED = 10,
    DIFFERENT = 20,
    WRONG_CODE = 21,
    DIFFERENT_MAP_NESTED = 23,
    COPY_NOT_SOUND = 24,
    COPY_UNREADABLE = 25,
    VERIFY_MISSED = 26,
};

typedef struct reader {
    enum mode mode;
    fief_realm_t *realm;
    int map_nested; /* > 0 inside a map or a nested collection */
    int refused;    /* errors (all FIEF_ERR_FILE_CORRUPT) met */
    const char *step;
} reader;

/* A value read under `label` (printf format). */
static void put(reader *rd, fief_value_t v, const char *fmt, ...) {
    char label[256], value[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(label, sizeof label, fmt, ap);
    va_end(ap);
    value_text(v, value, sizeof value);
    if (rd->mode == READ_ONLY) return;
    if (rd->mode == RECORD) {
        table_put(label, value);
        return;
    }
    entry *e = slot(label);
    if (rd->mode == SALVAGED) {
        /* A salvaged copy keeps a value or loses it (the default). */
        if (!e->label || strcmp(e->value, value) == 0) return;
        if (v.type == FIEF_TYPE_NULL || (v.type == FIEF_TYPE_INT && v.u.integer == 0) ||
            (v.type == FIEF_TYPE_STRING && v.u.string.size == 0) || (v.type == FIEF_TYPE_BINARY && v.u.binary.size == 0))
            return;
        fprintf(stderr, "  salvaged copy: %s is %s, originally %s\n", label, value, e->value);
        _exit(COPY_UNREADABLE);
    }
    if (!e->label || strcmp(e->value, value) != 0) {
        fprintf(stderr, "  %s: %s read %s, originally %s%s\n", rd->step, label, value, e->label ? e->value : "(nothing)",
                rd->map_nested ? " (in a map or nested collection)" : "");
        _exit(rd->map_nested ? DIFFERENT_MAP_NESTED : DIFFERENT);
    }
}

/* A read failed: fine when it says the file is damaged (FIEF_ERR_FILE_CORRUPT),
 * or (`opening`) that it is not a Fief file of a known format; the child
 * exits otherwise.  In the original and in a salvaged copy nothing fails. */
static void refused(reader *rd, const char *what, bool opening) {
    fief_error_t e;
    memset(&e, 0, sizeof e);
    fief_get_last_error(&e);
    bool allowed = e.code == FIEF_ERR_FILE_CORRUPT ||
                   (opening && (e.code == FIEF_ERR_FILE_NOT_FIEF || e.code == FIEF_ERR_FILE_FORMAT));
    if (rd->mode == CHECK && allowed) {
        rd->refused++;
        return;
    }
    fprintf(stderr, "  %s: %s failed with %s (%d): %s\n", rd->step, what, t_code_name(e.code), (int)e.code,
            e.message ? e.message : "");
    _exit(rd->mode == RECORD ? 99 : rd->mode == CHECK ? WRONG_CODE : COPY_UNREADABLE);
}

/* ---- reading everything ------------------------------------------------------------------ */

static void read_list(reader *rd, fief_list_t *l, const char *label);
static void read_map(reader *rd, fief_map_t *m, const char *label);

/* A nested collection just opened (a list when `type` is FIEF_TYPE_LIST,
 * else a map; NULL: the open was refused), read under `label`, released. */
static void read_opened(reader *rd, fief_type_t type, void *opened, const char *label) {
    if (!opened) return refused(rd, label, false);
    if (type == FIEF_TYPE_LIST) read_list(rd, opened, label);
    else read_map(rd, opened, label);
    fief_release(opened);
}

/* The nested collection a mixed value `v` names, read under `label`. */
static void read_nested_of_list(reader *rd, fief_list_t *l, size_t i, fief_value_t v, const char *label) {
    char sub[256];
    snprintf(sub, sizeof sub, "%s[%zu]", label, i);
    rd->map_nested++;
    if (v.type == FIEF_TYPE_LIST) read_opened(rd, v.type, fief_list_get_list(l, i), sub);
    else if (v.type == FIEF_TYPE_MAP) read_opened(rd, v.type, fief_list_get_map(l, i), sub);
    rd->map_nested--;
}

static void read_list(reader *rd, fief_list_t *l, const char *label) {
    size_t n;
    if (!fief_list_count(l, &n)) return refused(rd, label, false);
    put(rd, vi((int64_t)n), "%s.size", label);
    for (size_t i = 0; i < n; i++) {
        fief_value_t v;
        if (!fief_list_get(l, i, &v)) {
            refused(rd, label, false);
            continue;
        }
        put(rd, v, "%s[%zu]", label, i);
        read_nested_of_list(rd, l, i, v, label);
    }
    /* The same values in one call. */
    if (n > 0 && n <= 64) {
        fief_value_t vs_[64];
        if (!fief_list_get_range(l, 0, n, vs_)) return refused(rd, label, false);
        for (size_t i = 0; i < n; i++) put(rd, vs_[i], "%s[%zu].range", label, i);
    }
}

static void read_map(reader *rd, fief_map_t *m, const char *label) {
    size_t n;
    rd->map_nested++;
    if (!fief_map_count(m, &n)) {
        refused(rd, label, false);
        rd->map_nested--;
        return;
    }
    put(rd, vi((int64_t)n), "%s.size", label);
    for (size_t i = 0; i < n; i++) {
        fief_string_t key;
        fief_value_t v;
        if (!fief_map_get_entry(m, i, &key, &v)) {
            refused(rd, label, false);
            continue;
        }
        char k[128];
        snprintf(k, sizeof k, "%.*s", (int)(key.size > 100 ? 100 : key.size), key.data ? key.data : "");
        put(rd, vsn(key.data, key.size), "%s#%zu.key", label, i);
        put(rd, v, "%s{%s}", label, k);
        char sub[256];
        snprintf(sub, sizeof sub, "%s{%s}", label, k);
        if (v.type == FIEF_TYPE_LIST) read_opened(rd, v.type, fief_map_get_list(m, key), sub);
        else if (v.type == FIEF_TYPE_MAP) read_opened(rd, v.type, fief_map_get_map(m, key), sub);
        /* Looked up by key, the same value. */
        fief_value_t again;
        bool found = false;
        if (!fief_map_get(m, key, &again, &found)) refused(rd, sub, false);
        else if (!found) put(rd, vs("(missing)"), "%s{%s}.get", label, k);
        else put(rd, again, "%s{%s}.get", label, k);
    }
    rd->map_nested--;
}

static void read_set(reader *rd, fief_set_t *s, const char *label) {
    size_t n;
    if (!fief_set_count(s, &n)) return refused(rd, label, false);
    put(rd, vi((int64_t)n), "%s.size", label);
    for (size_t i = 0; i < n; i++) {
        fief_value_t v;
        if (!fief_set_get(s, i, &v)) {
            refused(rd, label, false);
            continue;
        }
        put(rd, v, "%s[%zu]", label, i);
        bool in = false;
        if (!fief_set_contains(s, v, &in)) refused(rd, label, false);
        else put(rd, vb(in), "%s[%zu].contained", label, i);
    }
}

/* The keys of `res` (objects), under `label`. */
static void read_keys(reader *rd, fief_results_t *res, const char *label) {
    size_t n;
    if (!res) return refused(rd, label, false);
    if (!fief_results_count(res, &n)) return refused(rd, label, false);
    put(rd, vi((int64_t)n), "%s.count", label);
    for (size_t i = 0; i < n; i++) {
        fief_object_key_t k;
        if (!fief_results_get_key(res, i, &k)) {
            refused(rd, label, false);
            continue;
        }
        put(rd, vi(k), "%s[%zu]", label, i);
    }
}

/* An embedded Address by key. */
static void read_address(reader *rd, fief_value_t link, const char *label) {
    if (link.type != FIEF_TYPE_LINK) return;
    fief_property_key_t k[2] = {t_prop(rd->realm, "Address", "street"), t_prop(rd->realm, "Address", "zip")};
    fief_value_t v[2];
    if (!fief_object_get_values_by_key(rd->realm, link.u.link.class_key, link.u.link.object_key, k, 2, v))
        return refused(rd, label, false);
    put(rd, v[0], "%s.street", label);
    put(rd, v[1], "%s.zip", label);
}

static const char *const PERSON_SCALARS[] = {"id", "name", "age", "bio", "blob", "friend", "home", "mix"};
static const char *const DOG_SCALARS[] = {"id", "name", "owner"};

static void read_person(reader *rd, fief_results_t *all, size_t i) {
    fief_realm_t *r = rd->realm;
    fief_property_key_t k[8];
    for (int p = 0; p < 8; p++) k[p] = t_prop(r, "Person", PERSON_SCALARS[p]);
    fief_value_t v[8];
    char label[256];
    snprintf(label, sizeof label, "Person[%zu]", i);
    if (!fief_results_get_values(all, i, k, 8, v)) return refused(rd, label, false);
    if (rd->mode != SALVAGED) put(rd, v[0], "%s.id", label);
    if (v[0].type != FIEF_TYPE_INT) return;
    snprintf(label, sizeof label, "Person#%lld", (long long)v[0].u.integer);
    for (int p = 1; p < 8; p++) put(rd, v[p], "%s.%s", label, PERSON_SCALARS[p]);
    char sub[300];
    snprintf(sub, sizeof sub, "%s.home", label);
    read_address(rd, v[6], sub);
    fief_object_t *o = fief_results_get_object(all, i);
    if (!o) return refused(rd, label, false);
    enum mode saved = rd->mode;
    if (saved == SALVAGED) rd->mode = READ_ONLY;
    static const char *const LISTS[] = {"pets", "places", "items"};
    for (int j = 0; j < 3; j++) {
        snprintf(sub, sizeof sub, "%s.%s", label, LISTS[j]);
        fief_list_t *l = fief_object_get_list(o, t_prop(r, "Person", LISTS[j]));
        if (!l) {
            refused(rd, sub, false);
            continue;
        }
        read_list(rd, l, sub);
        if (j == 1) {
            size_t n = 0;
            if (fief_list_count(l, &n))
                for (size_t e = 0; e < n; e++) {
                    fief_value_t a;
                    char el[400];
                    snprintf(el, sizeof el, "%s[%zu]", sub, e);
                    if (!fief_list_get(l, e, &a)) refused(rd, el, false);
                    else read_address(rd, a, el);
                }
        }
        if (j == 0) {
            fief_results_t *res = fief_list_to_results(l);
            char rl[400];
            snprintf(rl, sizeof rl, "%s.results", sub);
            read_keys(rd, res, rl);
            fief_release(res);
        }
        fief_release(l);
    }
    snprintf(sub, sizeof sub, "%s.tags", label);
    fief_set_t *s = fief_object_get_set(o, t_prop(r, "Person", "tags"));
    if (!s) refused(rd, sub, false);
    else read_set(rd, s, sub);
    fief_release(s);
    static const char *const MAPS[] = {"scores", "props", "walkers"};
    for (int j = 0; j < 3; j++) {
        snprintf(sub, sizeof sub, "%s.%s", label, MAPS[j]);
        fief_map_t *m = fief_object_get_map(o, t_prop(r, "Person", MAPS[j]));
        if (!m) {
            rd->map_nested++;
            refused(rd, sub, false);
            rd->map_nested--;
            continue;
        }
        read_map(rd, m, sub);
        fief_release(m);
    }
    /* any: a nested list or dictionary. */
    snprintf(sub, sizeof sub, "%s.mix", label);
    rd->map_nested++;
    if (v[7].type == FIEF_TYPE_LIST) {
        fief_list_t *l = fief_object_get_list(o, k[7]);
        if (!l) refused(rd, sub, false);
        else read_list(rd, l, sub);
        fief_release(l);
    } else if (v[7].type == FIEF_TYPE_MAP) {
        fief_map_t *m = fief_object_get_map(o, k[7]);
        if (!m) refused(rd, sub, false);
        else read_map(rd, m, sub);
        fief_release(m);
    }
    rd->map_nested--;
    /* Backlinks: dogs owned, persons befriending. */
    snprintf(sub, sizeof sub, "%s.@owner", label);
    fief_results_t *b = fief_object_get_backlinks(o, t_class(r, "Dog"), t_prop(r, "Dog", "owner"));
    read_keys(rd, b, sub);
    fief_release(b);
    snprintf(sub, sizeof sub, "%s.@friend", label);
    b = fief_object_get_backlinks(o, t_class(r, "Person"), t_prop(r, "Person", "friend"));
    read_keys(rd, b, sub);
    fief_release(b);
    rd->mode = saved;
    fief_release(o);
}

static void read_dog(reader *rd, fief_results_t *all, size_t i) {
    fief_realm_t *r = rd->realm;
    fief_property_key_t k[3];
    for (int p = 0; p < 3; p++) k[p] = t_prop(r, "Dog", DOG_SCALARS[p]);
    fief_value_t v[3];
    char label[256], sub[300];
    snprintf(label, sizeof label, "Dog[%zu]", i);
    if (!fief_results_get_values(all, i, k, 3, v)) return refused(rd, label, false);
    if (rd->mode != SALVAGED) put(rd, v[0], "%s.id", label);
    if (v[0].type != FIEF_TYPE_INT) return;
    snprintf(label, sizeof label, "Dog#%lld", (long long)v[0].u.integer);
    for (int p = 1; p < 3; p++) put(rd, v[p], "%s.%s", label, DOG_SCALARS[p]);
    fief_object_t *o = fief_results_get_object(all, i);
    if (!o) return refused(rd, label, false);
    enum mode saved = rd->mode;
    if (saved == SALVAGED) rd->mode = READ_ONLY;
    snprintf(sub, sizeof sub, "%s.toys", label);
    fief_list_t *l = fief_object_get_list(o, t_prop(r, "Dog", "toys"));
    if (!l) refused(rd, sub, false);
    else read_list(rd, l, sub);
    fief_release(l);
    snprintf(sub, sizeof sub, "%s.seen", label);
    fief_set_t *s = fief_object_get_set(o, t_prop(r, "Dog", "seen"));
    if (!s) refused(rd, sub, false);
    else read_set(rd, s, sub);
    fief_release(s);
    static const char *const ORIGINS[] = {"pets", "walkers"};
    for (int j = 0; j < 2; j++) {
        snprintf(sub, sizeof sub, "%s.@%s", label, ORIGINS[j]);
        fief_results_t *b = fief_object_get_backlinks(o, t_class(r, "Person"), t_prop(r, "Person", ORIGINS[j]));
        read_keys(rd, b, sub);
        fief_release(b);
    }
    rd->mode = saved;
    fief_release(o);
}

/* Queries through links, collections, nested collections and TEXT; a third
 * column "m" marks those reading maps or nested collections. */
static const char *const QUERIES[][3] = {
    {"Dog", "owner.age > 30"},
    {"Dog", "owner.friend.name BEGINSWITH 'person 1'"},
    {"Dog", "toys.@count > 5"},
    {"Dog", "ANY seen == 'river'"},
    {"Dog", "@links.Person.pets.@count >= 2"},
    {"Person", "ANY pets.name == 'dog 7'"},
    {"Person", "ANY pets.owner.age < 10"},
    {"Person", "bio TEXT 'river'"},
    {"Person", "bio TEXT 'sto* -amber'"},
    {"Person", "bio TEXT 'number17'"},
    {"Person", "friend.friend.age < 20"},
    {"Person", "ANY tags == 'ember'"},
    {"Person", "scores['k3'] > 100", "m"},
    {"Person", "ANY scores > 900", "m"},
    {"Person", "ANY items == 3"},
    {"Person", "mix[0] > 50", "m"},
    {"Person", "mix['willow'] != nil", "m"},
    {"Person", "props['dict']['y']['z'] < -100", "m"},
    {"Person", "ANY props['list'][*] == 'amber'", "m"},
    {"Person", "home.zip > 10100"},
    {"Person", "ANY places.street == 'river'"},
    {"Person", "walkers.@count == 3", "m"},
    {"Person", "@links.Dog.owner.@count > 0"},
    {"Person", "name == 'person 77'"},
};

static void read_all(reader *rd) {
    fief_realm_t *r = rd->realm;
    static const char *const CLASSES[] = {"Person", "Dog"};
    for (int c = 0; c < 2; c++) {
        fief_results_t *all = fief_realm_get_objects(r, t_class(r, CLASSES[c]));
        size_t n;
        if (!all || !fief_results_count(all, &n)) {
            refused(rd, CLASSES[c], false);
            fief_release(all);
            continue;
        }
        if (rd->mode != SALVAGED) put(rd, vi((int64_t)n), "%s.count", CLASSES[c]);
        for (size_t i = 0; i < n; i++) {
            if (c == 0) read_person(rd, all, i);
            else read_dog(rd, all, i);
        }
        fief_release(all);
    }
    if (rd->mode == SALVAGED) return;
    for (size_t q = 0; q < sizeof QUERIES / sizeof QUERIES[0]; q++) {
        fief_results_t *all = fief_realm_get_objects(r, t_class(r, QUERIES[q][0]));
        if (!all) {
            refused(rd, QUERIES[q][1], false);
            continue;
        }
        fief_results_t *res = fief_results_filter(all, QUERIES[q][1], NULL, 0);
        char label[256];
        snprintf(label, sizeof label, "query %s: %s", QUERIES[q][0], QUERIES[q][1]);
        if (QUERIES[q][2]) rd->map_nested++;
        read_keys(rd, res, label);
        if (QUERIES[q][2]) rd->map_nested--;
        fief_release(res);
        fief_release(all);
    }
    /* Primary-key lookups. */
    for (int64_t i = 0; i < PERSONS; i += 17) {
        fief_object_t *o = fief_object_find_by_primary_key(r, t_class(r, "Person"), vi(i), NULL);
        fief_error_t e;
        memset(&e, 0, sizeof e);
        if (!o && fief_get_last_error(&e) && e.code != FIEF_ERR_NO_SUCH_OBJECT) {
            refused(rd, "find", false);
            continue;
        }
        fief_value_t name = vnull();
        if (o && !fief_object_get_value(o, t_prop(r, "Person", "name"), &name)) {
            refused(rd, "find", false);
            fief_release(o);
            continue;
        }
        put(rd, name, "find Person %lld", (long long)i);
        fief_release(o);
    }
}

/* ---- damage ------------------------------------------------------------------------------ */

static uint64_t rng_state;
static uint64_t rng(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

enum { KINDS = 6, PAGE = 4096 };

/* The default run: seed 19, cases 0 ... 299: 66 s on a busy 2-core machine,
 * 3 minutes when it is loaded (20 s of CPU).  Every case passes.  Cases 1 18 39 54 55 63 65 67 102 111
 * 118 121 155 162 163 209 221 253 259 264 281 failed before the page check
 * checked key order (a page found in another page's place), a query's walk
 * over a set or map counted its entries, set elements were read only under
 * their own key, and copy deleted a nulled chunk's old parts (issue 19's
 * note): they are the regression of those fixes. */
#define DEFAULT_SEED 19
#define DEFAULT_FIRST 0
#define DEFAULT_CASES 300
/* (seed, case) */
#define REGRESSION_CASES                                                                                              \
    {19, 30}, {19, 48}, {19, 49}, {19, 58}, {19, 95}, {19, 114}, {19, 159}, {19, 265}, {19, 294}, {19, 330}, {19, 348}, \
        {19, 383}, {19, 385}, {19, 402}, {19, 408}, {19, 414}, {19, 423}, {19, 481}, {19, 509}, {19, 517}, {19, 522},   \
        {19, 564}, {19, 595}
static const char *const KIND_NAMES[KINDS] = {"flipped bits", "zeroed page", "cut short", "garbage range", "garbage page",
                                              "stale page"};

/* Damage `data` (of `size` bytes) in place, as `kind`; returns its new size. */
static size_t damage(unsigned char *data, size_t size, int kind) {
    size_t pages = size / PAGE;
    switch (kind) {
    case 0: { /* flipped bits */
        int n = 1 + (int)(rng() % 8);
        for (int i = 0; i < n; i++) data[rng() % size] ^= (unsigned char)(1u << (rng() % 8));
        return size;
    }
    case 1: /* a zeroed page */
        memset(data + (size_t)(rng() % pages) * PAGE, 0, PAGE);
        return size;
    case 2: /* cut short (not to nothing: an empty file is a new realm) */
        return 1 + (size_t)(rng() % (size - 1));
    case 3: { /* garbage over a range */
        size_t len = 1 + (size_t)(rng() % 4096);
        size_t at = (size_t)(rng() % size);
        if (at + len > size) len = size - at;
        for (size_t i = 0; i < len; i++) data[at + i] = (unsigned char)rng();
        return size;
    }
    case 4: { /* a page of garbage, keeping its page number */
        size_t page = 2 + (size_t)(rng() % (pages - 2));
        for (size_t i = 8; i < PAGE; i++) data[page * PAGE + i] = (unsigned char)rng();
        return size;
    }
    default: { /* a page holding another page's content under its own number (a lost write) */
        size_t page = 2 + (size_t)(rng() % (pages - 2)), from = 2 + (size_t)(rng() % (pages - 2));
        memcpy(data + page * PAGE + 8, data + from * PAGE + 8, PAGE - 8);
        return size;
    }
    }
}

/* ---- the children --------------------------------------------------------------------------- */

static const char *g_path, *g_copy;
static int g_timeout = 30;

static int child_read(void) {
    alarm((unsigned)g_timeout);
    reader rd = {CHECK, NULL, 0, 0, "read"};
    rd.realm = t_open(g_path, NULL, 0);
    if (!rd.realm) {
        refused(&rd, "open", true);
        return SOME_REFUSED;
    }
    read_all(&rd);
    fief_release(rd.realm);
    return rd.refused ? SOME_REFUSED : ALL_SAME;
}

static void count_report(void *userdata, fief_report_kind_t kind, const char *line) {
    (void)line;
    if (kind == FIEF_REPORT_PROBLEM) ++*(size_t *)userdata;
}

/* 0: verify found nothing; 1: it found problems; 2: it refused the file. */
static int child_check(void) {
    alarm((unsigned)g_timeout);
    reader rd = {CHECK, NULL, 0, 0, "verify"};
    size_t problems = 0, reported = 0;
    if (!fief_file_verify(g_path, count_report, &reported, &problems)) {
        refused(&rd, "fief_file_verify", true);
        return 2;
    }
    if (problems != reported) {
        fprintf(stderr, "  verify counted %zu problems but reported %zu\n", problems, reported);
        return WRONG_CODE;
    }
    rd.step = "copy";
    size_t lost = 0;
    if (!fief_file_copy(g_path, g_copy, NULL, NULL, &lost)) {
        refused(&rd, "fief_file_copy", true);
        return problems ? 1 : 2;
    }
    size_t copy_problems = 1;
    if (!fief_file_verify(g_copy, NULL, NULL, &copy_problems) || copy_problems != 0) {
        fprintf(stderr, "  the salvaged copy is not sound (%zu problems)\n", copy_problems);
        return COPY_NOT_SOUND;
    }
    reader cp = {SALVAGED, NULL, 0, 0, "salvaged copy"};
    cp.realm = t_open(g_copy, NULL, 0);
    if (!cp.realm) refused(&cp, "open", true);
    read_all(&cp);
    fief_release(cp.realm);
    return problems ? 1 : 0;
}

static int run_child(int (*body)(void)) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) _exit(body());
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFSIGNALED(status)) return 1000 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

static unsigned char *read_whole(const char *path, size_t *size) {
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc((size_t)n);
    if (fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

static long env_long(const char *name, long fallback) {
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : fallback;
}

static const char *outcome_name(int code) {
    if (code == 1000 + SIGALRM) return "HUNG (alarm)";
    if (code >= 1000) return "CRASHED";
    switch (code) {
    case DIFFERENT: return "read a DIFFERENT value";
    case DIFFERENT_MAP_NESTED: return "read a DIFFERENT value in a map or nested collection";
    case WRONG_CODE: return "failed with a WRONG error code";
    case COPY_NOT_SOUND: return "wrote a copy that does not verify";
    case COPY_UNREADABLE: return "wrote a copy that does not read back";
    case VERIFY_MISSED: return "read refused, verify found nothing";
    default: return "failed unexpectedly";
    }
}

/* Make the original file (once per process) and record everything read
 * from it; its bytes into *size. */
static unsigned char *make_original(size_t *size) {
    const char *original = t_path("graph.fief");
    fief_schema_t *s = graph_schema();
    R(s != NULL);
    {
        fief_realm_t *r = t_open(original, s, 0);
        R(r != NULL);
        fill(r);
        fief_release(r);
    }
    fief_release(s);
    {
        /* The original, recorded (in a fresh open, as the children do). */
        reader rd = {RECORD, NULL, 0, 0, "original"};
        rd.realm = t_open(original, NULL, 0);
        R(rd.realm != NULL);
        read_all(&rd);
        fief_release(rd.realm);
        printf("the original: %zu values recorded\n", g_table_used);
        size_t problems = 1;
        E(fief_file_verify(original, NULL, NULL, &problems));
        EQU(problems, 0);
    }
    unsigned char *pristine = read_whole(original, size);
    R(pristine != NULL && *size > 16 * PAGE);
    printf("the original: %zu bytes, %zu pages\n", *size, *size / PAGE);
    return pristine;
}

/* Per damage kind: reads all the same, reads refused somewhere; then
 * failures by kind of failure. */
enum { SAME, REFUSED_, CRASH, HANG, WRONGVAL, WRONGVAL_MN, WRONGCODE, OTHER, COLS };

/* Damage case `i` of `seed` (its kind is i % KINDS): read it, verify and
 * copy it, each in a child.  Returns the number of failures (printed). */
static int run_case(const unsigned char *pristine, size_t size, uint64_t seed, long i, int stats[KINDS][COLS], bool strict) {
    char path[4096], salvaged[4096], lock[4200];
    int kind = (int)(i % KINDS), bad = 0;
    rng_state = seed * 0x100000001B3ull + (uint64_t)i;
    unsigned char *copy = malloc(size);
    memcpy(copy, pristine, size);
    size_t n = damage(copy, size, kind);
    snprintf(path, sizeof path, "%s/damaged-%ld.fief", t_dir(), i);
    snprintf(salvaged, sizeof salvaged, "%s/salvaged-%ld.fief", t_dir(), i);
    R(t_write_file(path, copy, n));
    free(copy);
    g_path = path;
    g_copy = salvaged;
    int results[2] = {run_child(child_read), run_child(child_check)};
    for (int step = 0; step < 2; step++) {
        int res = results[step];
        if (step == 0 && (res == ALL_SAME || res == SOME_REFUSED)) {
            stats[kind][res == ALL_SAME ? SAME : REFUSED_]++;
            continue;
        }
        if (step == 1 && res <= 2) {
            /* A read that refused something: verify must have found it. */
            if (results[0] == SOME_REFUSED && res == 0) res = VERIFY_MISSED;
            else continue;
        }
        int col = res == 1000 + SIGALRM ? HANG : res >= 1000 ? CRASH : res == DIFFERENT ? WRONGVAL
                : res == DIFFERENT_MAP_NESTED ? WRONGVAL_MN : res == WRONG_CODE ? WRONGCODE : OTHER;
        stats[kind][col]++;
        if (!strict && col != CRASH && col != HANG && col != WRONGCODE) {
            fprintf(stderr, "noted (not checked here) seed %llu case %ld (%s): %s %s\n", (unsigned long long)seed, i,
                    KIND_NAMES[kind], step == 0 ? "reading" : "verify/copy", outcome_name(res));
            continue;
        }
        bad++;
        fprintf(stderr, "FAIL seed %llu case %ld (%s): %s %s\n", (unsigned long long)seed, i, KIND_NAMES[kind],
                step == 0 ? "reading" : "verify/copy", outcome_name(res));
        if (res >= 1000) fprintf(stderr, "  signal %d\n", res - 1000);
    }
    if (!getenv("FIEF_TEST_KEEP")) {
        unlink(path);
        snprintf(lock, sizeof lock, "%s-lock", path);
        unlink(lock);
        unlink(salvaged);
        snprintf(lock, sizeof lock, "%s-lock", salvaged);
        unlink(lock);
    }
    return bad;
}

static void print_stats(int stats[KINDS][COLS]) {
    printf("%-14s %6s %8s %6s %5s %9s %12s %9s %6s\n", "damage", "same", "refused", "crash", "hang", "wrongval",
           "wrongval-m/n", "wrongcode", "other");
    for (int k = 0; k < KINDS; k++)
        printf("%-14s %6d %8d %6d %5d %9d %12d %9d %6d\n", KIND_NAMES[k], stats[k][SAME], stats[k][REFUSED_], stats[k][CRASH],
               stats[k][HANG], stats[k][WRONGVAL], stats[k][WRONGVAL_MN], stats[k][WRONGCODE], stats[k][OTHER]);
}

/* FIEF_DAMAGE_CASES cases of FIEF_DAMAGE_SEED from FIEF_DAMAGE_FIRST. */
TEST(damaged_graph_files) {
    size_t size;
    unsigned char *pristine = make_original(&size);
    uint64_t seed = (uint64_t)env_long("FIEF_DAMAGE_SEED", DEFAULT_SEED);
    long cases = env_long("FIEF_DAMAGE_CASES", DEFAULT_CASES), first = env_long("FIEF_DAMAGE_FIRST", DEFAULT_FIRST);
    g_timeout = (int)env_long("FIEF_DAMAGE_TIMEOUT", 30);
    int stats[KINDS][COLS];
    memset(stats, 0, sizeof stats);
    int bad = 0;
    for (long i = first; i < first + cases; i++) bad += run_case(pristine, size, seed, i, stats, true);
    printf("seed %llu, cases %ld..%ld\n", (unsigned long long)seed, first, first + cases - 1);
    print_stats(stats);
    free(pristine);
    EQI(bad, 0);
}

/* Cases that crashed (copy and verify on LMDB's IS_LEAF assertion or a
 * SIGSEGV, TEXT on a bitmap allocation) or failed with another code than
 * FIEF_ERR_FILE_CORRUPT (INDEX_OUT_OF_BOUNDS, INVALIDATED_OBJECT) before
 * the fixes of issue 19 items 5, 6 and 9, each run again: no crash, no
 * hang, no wrong code.  (Wrong values and unsound copies are the main
 * test's to find; they are printed here, not counted.) */
static const long REGRESSIONS[][2] = {
    REGRESSION_CASES
};

TEST(damaged_graph_regressions) {
    size_t size;
    unsigned char *pristine = make_original(&size);
    g_timeout = (int)env_long("FIEF_DAMAGE_TIMEOUT", 30);
    int stats[KINDS][COLS];
    memset(stats, 0, sizeof stats);
    int bad = 0;
    for (size_t i = 0; i < sizeof REGRESSIONS / sizeof REGRESSIONS[0]; i++)
        bad += run_case(pristine, size, (uint64_t)REGRESSIONS[i][0], REGRESSIONS[i][1], stats, false);
    print_stats(stats);
    free(pristine);
    EQI(bad, 0);
}

/* Cases of long runs that read a different value, checked strictly as the
 * main test checks its cases: seed 19 case 533 (a page of a nested-collection
 * database in the place of a class's data page, whose longer keys the page
 * check did not compare as integers: a dog's presence read as absent, so a
 * person's linking objects counted 0), seed 7 case 228 (a flipped bit in the
 * stored schema changed a property key, and every value of the property read
 * as its default: the record is sealed from format 8), seed 7 case 413 (an
 * older copy of a map's page brought back a link to a deleted dog), seed 23
 * case 689 (an empty leaf in the place of a backlinks tree's root: a query
 * through links found no linking objects; the page check now counts every
 * tree's entries against its record). */
static const long LONG_RUN_CASES[][2] = {{19, 533}, {7, 228}, {7, 413}, {23, 689}};

TEST(damaged_graph_long_run_cases) {
    size_t size;
    unsigned char *pristine = make_original(&size);
    g_timeout = (int)env_long("FIEF_DAMAGE_TIMEOUT", 30);
    int stats[KINDS][COLS];
    memset(stats, 0, sizeof stats);
    int bad = 0;
    for (size_t i = 0; i < sizeof LONG_RUN_CASES / sizeof LONG_RUN_CASES[0]; i++)
        bad += run_case(pristine, size, (uint64_t)LONG_RUN_CASES[i][0], LONG_RUN_CASES[i][1], stats, true);
    print_stats(stats);
    free(pristine);
    EQI(bad, 0);
}

/* ---- a damaged full-text index ------------------------------------------------------ */

static const char *g_query;

/* Run the TEXT query g_query on g_path: 0 when it fails with
 * FIEF_ERR_FILE_CORRUPT, 1 when it succeeds, 2 on another error. */
static int child_text_query(void) {
    alarm((unsigned)g_timeout);
    fief_realm_t *r = t_open(g_path, NULL, 0);
    if (!r) return 2;
    fief_results_t *all = fief_realm_get_objects(r, t_class(r, "Doc"));
    fief_results_t *q = all ? fief_results_filter(all, g_query, NULL, 0) : NULL;
    size_t n = 0;
    if (q && fief_results_count(q, &n)) return 1;
    fief_error_t e;
    memset(&e, 0, sizeof e);
    fief_get_last_error(&e);
    if (e.code == FIEF_ERR_FILE_CORRUPT) return 0;
    fprintf(stderr, "  TEXT failed with %s: %s\n", t_code_name(e.code), e.message ? e.message : "");
    return 2;
}

/* The object key stored for a token held by one object (the 8 bytes after
 * the token in its leaf node) set to a huge and to a negative key: a TEXT
 * query fails with FIEF_ERR_FILE_CORRUPT (it aborted on allocating a bitmap
 * of that size, or indexing before its start). */
TEST(damaged_fulltext_posting) {
    fief_class_info_t c;
    memset(&c, 0, sizeof c);
    c.name = "Doc";
    c.num_properties = 1;
    fief_property_info_t text = t_prop_info("text", FIEF_TYPE_STRING, FIEF_PROPERTY_FULLTEXT_INDEXED);
    const fief_property_info_t *pp[1] = {&text};
    fief_schema_t *s = fief_schema_new(&c, 1, pp);
    R(s != NULL);
    const char *original = t_path("text.fief");
    fief_realm_t *r = t_open(original, s, 0);
    R(r != NULL);
    R(fief_realm_begin_write(r));
    fief_property_key_t tk = t_prop(r, "Doc", "text");
    for (int i = 0; i < 50; i++) {
        fief_value_t v = vs(i == 7 ? "Zebraword and others" : "plain words only");
        fief_object_t *o = fief_object_create(r, t_class(r, "Doc"), &tk, &v, 1, FIEF_UPDATE_POLICY_ERROR);
        R(o != NULL);
        fief_release(o);
    }
    R(fief_realm_commit(r));
    fief_release(r);
    fief_release(s);
    size_t size;
    unsigned char *data = read_whole(original, &size);
    R(data != NULL);
    /* The token (lower case; the stored text has "Zebraword"). */
    size_t at = 0;
    while (at + 9 + 8 <= size && memcmp(data + at, "zebraword", 9) != 0) at++;
    R(at + 9 + 8 <= size);
    uint64_t key;
    memcpy(&key, data + at + 9, 8);
    E(key < 50);
    static const uint64_t bad[] = {0x7FFFFFFFFFFFFF00ull, 0xFFFFFFFFFFFFFFFFull, 1ull << 40};
    for (int i = 0; i < 3; i++) {
        memcpy(data + at + 9, &bad[i], 8);
        char path[64];
        snprintf(path, sizeof path, "text-%d.fief", i);
        g_path = t_path(path);
        R(t_write_file(g_path, data, size));
        g_query = "text TEXT 'zebraword'";
        EQI(run_child(child_text_query), 0);
        g_query = "text TEXT 'zebra*'";
        EQI(run_child(child_text_query), 0);
        g_query = "text TEXT 'plain -zebraword'";
        EQI(run_child(child_text_query), 0);
    }
    free(data);
}

int main(int argc, char **argv) {
    static const t_case cases[] = {T(damaged_graph_files), T(damaged_graph_regressions), T(damaged_graph_long_run_cases),
                                   T(damaged_fulltext_posting)};
    return T_MAIN(argc, argv, cases);
}
