/* Crash safety: a child process runs a stream of write transactions and is
 * SIGKILLed at random moments; after every kill a fresh process reopens the
 * file and checks that it opens, that every transaction the child reported
 * as committed (after fief_realm_commit returned) is there, and that no
 * partial transaction is visible.
 *
 * Each transaction t: Meta.txn = t; every Account gets txn = t and new
 * balances summing to TOTAL, and its link `buddy` set to account
 * (id + t) % ACCOUNTS; one Log object with id t is added, linked to a new Tag
 * t, and Tag t - 1 is deleted (its Log's link becomes null).  Meta's list
 * `history` changes by a rule of t (append t; every 3rd remove the first,
 * every 5th move the last to the front, every 7th insert -t in the middle,
 * every 11th swap the ends), and its list of links `tags` gets Tag t twice
 * (Tag t - 1 leaves it when deleted).  Sets and maps change by a rule of t
 * too (see collections_step): a new Item t joins Meta's set of links
 * `items` and becomes the value of key "p<t % 10>" of the map `picks`; some
 * items leave the set, come back, or are deleted (leaving the set, their
 * map keys null); the map of ints `counts` gets key "k<t>" and loses or
 * changes others.  The verifier replays the rules and checks the links,
 * lists, sets and maps against the backlinks as well, then runs
 * fief_file_verify over the whole file.
 * This parent process never opens a realm itself (LMDB environments must
 * not cross fork()). */
#include "fief_test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ACCOUNTS 8
#define TOTAL 1000
#define ITERATIONS 40
#define TIME_BUDGET 60.0 /* seconds, for all iterations */

static fief_schema_t *crash_schema(void) {
    fief_property_info_t meta[] = {t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
                                   t_prop_info("txn", FIEF_TYPE_INT, 0), t_prop_info("history", FIEF_TYPE_INT, 0),
                                   t_prop_info("tags", FIEF_TYPE_LINK, 0)};
    meta[2].collection_type = FIEF_COLLECTION_LIST;
    meta[3].collection_type = FIEF_COLLECTION_LIST;
    meta[3].link_target = "Tag";
    fief_property_info_t acct[] = {t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
                                   t_prop_info("txn", FIEF_TYPE_INT, 0),
                                   t_prop_info("balance", FIEF_TYPE_INT, 0),
                                   t_prop_info("note", FIEF_TYPE_STRING, 0)};
    fief_property_info_t buddy = t_prop_info("buddy", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE);
    buddy.link_target = "Account";
    fief_property_info_t acct5[] = {acct[0], acct[1], acct[2], acct[3], buddy};
    fief_property_info_t log[] = {t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY),
                                  t_prop_info("tag", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE)};
    log[1].link_target = "Tag";
    fief_property_info_t tag[] = {t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY)};
    fief_property_info_t item[] = {t_prop_info("id", FIEF_TYPE_INT, FIEF_PROPERTY_PRIMARY_KEY)};
    fief_property_info_t items = t_prop_info("items", FIEF_TYPE_LINK, 0);
    items.collection_type = FIEF_COLLECTION_SET;
    items.link_target = "Item";
    fief_property_info_t picks = t_prop_info("picks", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE);
    picks.collection_type = FIEF_COLLECTION_MAP;
    picks.link_target = "Item";
    fief_property_info_t counts = t_prop_info("counts", FIEF_TYPE_INT, 0);
    counts.collection_type = FIEF_COLLECTION_MAP;
    fief_property_info_t meta7[] = {meta[0], meta[1], meta[2], meta[3], items, picks, counts};
    fief_class_info_t c[5];
    memset(c, 0, sizeof c);
    c[0].name = "Meta";
    c[0].num_properties = 7;
    c[1].name = "Account";
    c[1].num_properties = 5;
    c[2].name = "Log";
    c[2].num_properties = 2;
    c[3].name = "Tag";
    c[3].num_properties = 1;
    c[4].name = "Item";
    c[4].num_properties = 1;
    const fief_property_info_t *pp[5] = {meta7, acct5, log, tag, item};
    return fief_schema_new(c, 5, pp);
}

typedef struct crash_keys {
    fief_class_key_t meta, acct, log, tag, item;
    fief_property_key_t meta_id, meta_txn, meta_history, meta_tags, meta_items, meta_picks, meta_counts, acct_id, acct_txn, acct_bal,
        acct_note, acct_buddy, log_id, log_tag, tag_id, item_id;
} crash_keys;

static bool keys_for(fief_realm_t *r, crash_keys *k) {
    k->meta = t_class(r, "Meta");
    k->acct = t_class(r, "Account");
    k->log = t_class(r, "Log");
    k->meta_id = t_prop(r, "Meta", "id");
    k->meta_txn = t_prop(r, "Meta", "txn");
    k->meta_history = t_prop(r, "Meta", "history");
    k->meta_tags = t_prop(r, "Meta", "tags");
    k->acct_id = t_prop(r, "Account", "id");
    k->acct_txn = t_prop(r, "Account", "txn");
    k->acct_bal = t_prop(r, "Account", "balance");
    k->acct_note = t_prop(r, "Account", "note");
    k->log_id = t_prop(r, "Log", "id");
    k->tag = t_class(r, "Tag");
    k->acct_buddy = t_prop(r, "Account", "buddy");
    k->log_tag = t_prop(r, "Log", "tag");
    k->tag_id = t_prop(r, "Tag", "id");
    k->item = t_class(r, "Item");
    k->item_id = t_prop(r, "Item", "id");
    k->meta_items = t_prop(r, "Meta", "items");
    k->meta_picks = t_prop(r, "Meta", "picks");
    k->meta_counts = t_prop(r, "Meta", "counts");
    return k->meta && k->acct && k->log && k->tag && k->item && k->meta_txn && k->meta_history && k->meta_tags && k->meta_items &&
           k->meta_picks && k->meta_counts && k->acct_bal && k->log_id && k->acct_buddy && k->log_tag && k->tag_id && k->item_id;
}

static void die(const char *what) {
    fief_error_t e;
    memset(&e, 0, sizeof e);
    fief_get_last_error(&e);
    fprintf(stderr, "child %d: %s failed: %d %s\n", (int)getpid(), what, (int)e.code,
            e.message ? e.message : "");
    _exit(3);
}

/* The change transaction t makes to the history list, on a model (`n`
 * elements of `h`; returns the new count) or, with `list`, on the stored list. */
static size_t history_step(int64_t t, int64_t *h, size_t n, fief_list_t *list) {
    h[n++] = t;
    if (list && !fief_list_append(list, (fief_value_t[]){vi(t)}, 1)) die("history append");
    if (t % 3 == 0) {
        memmove(h, h + 1, (n - 1) * sizeof *h);
        n--;
        if (list && !fief_list_remove(list, 0)) die("history remove");
    }
    if (t % 5 == 0 && n > 1) {
        int64_t last = h[n - 1];
        memmove(h + 1, h, (n - 1) * sizeof *h);
        h[0] = last;
        if (list && !fief_list_move(list, n - 1, 0)) die("history move");
    }
    if (t % 7 == 0) {
        size_t at = n / 2;
        memmove(h + at + 1, h + at, (n - at) * sizeof *h);
        h[at] = -t;
        n++;
        if (list && !fief_list_insert(list, at, vi(-t))) die("history insert");
    }
    if (t % 11 == 0 && n > 1) {
        int64_t a = h[0];
        h[0] = h[n - 1];
        h[n - 1] = a;
        if (list && !fief_list_swap(list, 0, n - 1)) die("history swap");
    }
    return n;
}

/* What the sets and maps hold after some transaction, by id s = 1..t:
 * whether Item s exists and is in `items`, whether `counts` has "k<s>" and
 * its value; per key "p<j>" of `picks`, 0 (no key), -1 (null) or an item id. */
typedef struct collections_model {
    unsigned char *item_exists, *in_set, *has_count;
    int64_t *count;
    int64_t pick[10];
} collections_model;

static fief_value_t link_to(fief_class_key_t cls, fief_object_key_t key) {
    fief_value_t v = vnull();
    v.type = FIEF_TYPE_LINK;
    v.u.link.class_key = cls;
    v.u.link.object_key = key;
    return v;
}

/* Item `id` (NULL when it does not exist). */
static fief_object_t *item_object(fief_realm_t *r, const crash_keys *k, int64_t id) {
    bool found = false;
    return fief_object_find_by_primary_key(r, k->item, vi(id), &found);
}

static fief_value_t item_link(const crash_keys *k, fief_object_t *item) {
    fief_object_key_t key = 0;
    if (!fief_object_get_key(item, &key)) die("item key");
    return link_to(k->item, key);
}

/* The change transaction t makes to the sets and maps, on the model `m` or,
 * with `meta`, on the stored ones (`m` may then be NULL):
 *   Item t is created and inserted into `items`; picks["p<t % 10>"] = Item t;
 *   every 5th: Item t - 1 taken out of `items` (it stays);
 *   every 7th: Item t / 2 inserted again if it still exists;
 *   every 3rd (t > 2): Item t - 2 deleted (it leaves `items`, keys of
 *     `picks` holding it become null);
 *   counts["k<t>"] = t; every 4th: "k<t / 2>" removed; every 3rd: "k<t - 1>"
 *     set to 1000 + t. */
static void collections_step(int64_t t, collections_model *m, fief_realm_t *r, const crash_keys *k, fief_object_t *meta) {
    fief_set_t *items = NULL;
    fief_map_t *picks = NULL, *counts = NULL;
    if (meta) {
        items = fief_object_get_set(meta, k->meta_items);
        picks = fief_object_get_map(meta, k->meta_picks);
        counts = fief_object_get_map(meta, k->meta_counts);
        if (!items || !picks || !counts) die("get sets and maps");
    }
    char key[32];
    if (m) m->item_exists[t] = m->in_set[t] = 1;
    if (m) m->pick[t % 10] = t;
    if (meta) {
        fief_value_t id = vi(t);
        fief_object_t *item = fief_object_create(r, k->item, &k->item_id, &id, 1, FIEF_UPDATE_POLICY_ERROR);
        if (!item) die("create item");
        bool inserted = false;
        if (!fief_set_insert(items, item_link(k, item), &inserted) || !inserted) die("items insert");
        snprintf(key, sizeof key, "p%d", (int)(t % 10));
        if (!fief_map_set(picks, t_str(key), item_link(k, item))) die("picks set");
        fief_release(item);
    }
    if (t % 5 == 0) {
        if (m) m->in_set[t - 1] = 0;
        if (meta) {
            fief_object_t *item = item_object(r, k, t - 1);
            bool removed = false;
            if (!item || !fief_set_remove(items, item_link(k, item), &removed) || !removed) die("items remove");
            fief_release(item);
        }
    }
    if (t % 7 == 0) {
        if (m && m->item_exists[t / 2]) m->in_set[t / 2] = 1;
        fief_object_t *item = meta ? item_object(r, k, t / 2) : NULL;
        if (item) {
            if (!fief_set_insert(items, item_link(k, item), NULL)) die("items insert again");
            fief_release(item);
        }
    }
    if (t % 3 == 0 && t > 2) {
        if (m) {
            m->item_exists[t - 2] = m->in_set[t - 2] = 0;
            for (int j = 0; j < 10; j++)
                if (m->pick[j] == t - 2) m->pick[j] = -1;
        }
        if (meta) {
            fief_object_t *item = item_object(r, k, t - 2);
            if (!item || !fief_object_delete(item)) die("delete item");
            fief_release(item);
        }
    }
    if (m) {
        m->has_count[t] = 1;
        m->count[t] = t;
        if (t % 4 == 0) m->has_count[t / 2] = 0;
        if (t % 3 == 0) {
            m->has_count[t - 1] = 1;
            m->count[t - 1] = 1000 + t;
        }
    }
    if (meta) {
        snprintf(key, sizeof key, "k%lld", (long long)t);
        if (!fief_map_set(counts, t_str(key), vi(t))) die("counts set");
        if (t % 4 == 0) {
            snprintf(key, sizeof key, "k%lld", (long long)(t / 2));
            bool removed = false;
            if (!fief_map_remove(counts, t_str(key), &removed) || !removed) die("counts remove");
        }
        if (t % 3 == 0) {
            snprintf(key, sizeof key, "k%lld", (long long)(t - 1));
            if (!fief_map_set(counts, t_str(key), vi(1000 + t))) die("counts change");
        }
        fief_release(counts);
        fief_release(picks);
        fief_release(items);
    }
}

/* The writer: never returns. */
static void writer(const char *path, int fd, unsigned seed) {
    srand(seed);
    fief_schema_t *s = crash_schema();
    fief_realm_t *r = t_open(path, s, 0);
    if (!r) die("open");
    crash_keys k;
    if (!keys_for(r, &k)) die("keys");
    char note[256];
    for (;;) {
        if (!fief_realm_begin_write(r)) die("begin_write");
        bool found = false;
        int64_t t = 1;
        fief_object_t *m = fief_object_find_by_primary_key(r, k.meta, vi(0), &found);
        if (m) {
            fief_value_t v;
            if (!fief_object_get_value(m, k.meta_txn, &v)) die("get txn");
            t = v.u.integer + 1;
            if (!fief_object_set_value(m, k.meta_txn, vi(t))) die("set txn");
        } else {
            if (found) die("find meta");
            fief_property_key_t p[2] = {k.meta_id, k.meta_txn};
            fief_value_t v[2] = {vi(0), vi(t)};
            m = fief_object_create(r, k.meta, p, v, 2, FIEF_UPDATE_POLICY_ERROR);
            if (!m) die("create meta");
        }
        /* The history list, changed by the rule (the model's copy is scratch). */
        fief_list_t *history = fief_object_get_list(m, k.meta_history);
        size_t hn = 0;
        if (!history || !fief_list_count(history, &hn)) die("history");
        int64_t *scratch = calloc(hn + 4, sizeof *scratch);
        if (!scratch) die("calloc");
        history_step(t, scratch, hn, history);
        free(scratch);
        fief_release(history);
        int64_t rest = TOTAL;
        memset(note, 'a' + (int)(t % 26), sizeof note);
        fief_property_key_t ap[4] = {k.acct_id, k.acct_txn, k.acct_bal, k.acct_note};
        fief_value_t av[ACCOUNTS * 4];
        for (int i = 0; i < ACCOUNTS; i++) {
            int64_t b = i == ACCOUNTS - 1 ? rest : (int64_t)(rand() % 300) - 50;
            rest -= b;
            av[4 * i] = vi(i);
            av[4 * i + 1] = vi(t);
            av[4 * i + 2] = vi(b);
            av[4 * i + 3] = vsn(note, (size_t)(rand() % 200));
        }
        if (!fief_object_create_many(r, k.acct, ap, 4, av, ACCOUNTS, FIEF_UPDATE_POLICY_ALL, NULL))
            die("upsert accounts");
        /* Buddies: account i links to account (i + t) % ACCOUNTS. */
        fief_object_key_t keys[ACCOUNTS];
        fief_object_t *accounts[ACCOUNTS];
        for (int i = 0; i < ACCOUNTS; i++) {
            accounts[i] = fief_object_find_by_primary_key(r, k.acct, vi(i), &found);
            if (!accounts[i] || !fief_object_get_key(accounts[i], &keys[i])) die("find account");
        }
        for (int i = 0; i < ACCOUNTS; i++) {
            fief_value_t link;
            memset(&link, 0, sizeof link);
            link.type = FIEF_TYPE_LINK;
            link.u.link.class_key = k.acct;
            link.u.link.object_key = keys[(i + t) % ACCOUNTS];
            if (!fief_object_set_value(accounts[i], k.acct_buddy, link)) die("set buddy");
            fief_release(accounts[i]);
        }
        /* A new Tag t linked from Log t; Tag t - 1 deleted (Log t - 1's link goes null). */
        fief_value_t tv = vi(t);
        fief_object_t *tag = fief_object_create(r, k.tag, &k.tag_id, &tv, 1, FIEF_UPDATE_POLICY_ERROR);
        fief_object_key_t tag_key = 0;
        if (!tag || !fief_object_get_key(tag, &tag_key)) die("create tag");
        fief_release(tag);
        fief_list_t *tag_list = fief_object_get_list(m, k.meta_tags);
        fief_value_t tag_link;
        memset(&tag_link, 0, sizeof tag_link);
        tag_link.type = FIEF_TYPE_LINK;
        tag_link.u.link.class_key = k.tag;
        tag_link.u.link.object_key = tag_key;
        if (!tag_list || !fief_list_append(tag_list, (fief_value_t[]){tag_link, tag_link}, 2)) die("tags append");
        fief_release(tag_list);
        collections_step(t, NULL, r, &k, m);
        fief_release(m);
        fief_object_t *old_tag = fief_object_find_by_primary_key(r, k.tag, vi(t - 1), &found);
        if (old_tag) {
            if (!fief_object_delete(old_tag)) die("delete tag");
            fief_release(old_tag);
        }
        fief_value_t lv[2] = {vi(t), vnull()};
        lv[1].type = FIEF_TYPE_LINK;
        lv[1].u.link.class_key = k.tag;
        lv[1].u.link.object_key = tag_key;
        fief_property_key_t lp[2] = {k.log_id, k.log_tag};
        fief_object_t *l = fief_object_create(r, k.log, lp, lv, 2, FIEF_UPDATE_POLICY_ERROR);
        if (!l) die("create log");
        fief_release(l);
        if (!fief_realm_commit(r)) die("commit");
        if (write(fd, &t, sizeof t) != (ssize_t)sizeof t) _exit(4);
    }
}

/* The sets and maps of `meta` at transaction t against the rule replayed:
 * their contents, their order, and every Item's backlinks from them. */
static int verify_collections(fief_realm_t *r, const crash_keys *k, fief_object_t *meta, int64_t t) {
    collections_model m;
    memset(&m, 0, sizeof m);
    m.item_exists = calloc((size_t)t + 2, 1);
    m.in_set = calloc((size_t)t + 2, 1);
    m.has_count = calloc((size_t)t + 2, 1);
    m.count = calloc((size_t)t + 2, sizeof *m.count);
    if (!m.item_exists || !m.in_set || !m.has_count || !m.count) return 40;
    for (int64_t s = 1; s <= t; s++) collections_step(s, &m, NULL, k, NULL);
    size_t items_expected = 0, set_expected = 0, counts_expected = 0, picks_expected = 0;
    for (int64_t s = 1; s <= t; s++) {
        items_expected += m.item_exists[s];
        set_expected += m.in_set[s];
        counts_expected += m.has_count[s];
    }
    for (int j = 0; j < 10; j++) picks_expected += m.pick[j] != 0;
    int rc = 0;
    fief_set_t *items = fief_object_get_set(meta, k->meta_items);
    fief_map_t *picks = fief_object_get_map(meta, k->meta_picks);
    fief_map_t *counts = fief_object_get_map(meta, k->meta_counts);
    size_t n = 0;
    if (!items || !picks || !counts) return 41;
    /* items: as many elements as the model, each an Item it says is in the
     * set, in object-key order (so all of them, once each). */
    if (t_count_class(r, k->item) != items_expected || !fief_set_count(items, &n) || n != set_expected) {
        fprintf(stderr, "verify: %zu items, %zu in the set; %zu and %zu expected at transaction %lld\n",
                t_count_class(r, k->item), n, items_expected, set_expected, (long long)t);
        rc = 42;
        goto done;
    }
    fief_object_key_t previous = -1;
    for (size_t i = 0; i < n; i++) {
        fief_value_t v;
        if (!fief_set_get(items, i, &v) || v.type != FIEF_TYPE_LINK || v.u.link.object_key <= previous) { rc = 43; goto done; }
        previous = v.u.link.object_key;
        fief_object_t *item = fief_object_get(r, k->item, v.u.link.object_key);
        int64_t id = item ? t_get_int(item, k->item_id) : 0;
        fief_release(item);
        if (id < 1 || id > t || !m.in_set[id]) {
            fprintf(stderr, "verify: the set holds item %lld, which it should not at transaction %lld\n", (long long)id, (long long)t);
            rc = 44;
            goto done;
        }
    }
    /* picks: each key as the model says (absent, null or an Item). */
    if (!fief_map_count(picks, &n) || n != picks_expected) { rc = 45; goto done; }
    for (int j = 0; j < 10; j++) {
        char key[8];
        snprintf(key, sizeof key, "p%d", j);
        fief_value_t v;
        bool found = false;
        if (!fief_map_get(picks, t_str(key), &v, &found)) { rc = 46; goto done; }
        int64_t id = !found ? 0 : v.type == FIEF_TYPE_NULL ? -1 : 0;
        if (found && v.type == FIEF_TYPE_LINK) {
            fief_object_t *item = fief_object_get(r, k->item, v.u.link.object_key);
            id = item ? t_get_int(item, k->item_id) : -2;
            fief_release(item);
        }
        if (id != m.pick[j]) {
            fprintf(stderr, "verify: picks[%s] is %lld, %lld expected at transaction %lld\n", key, (long long)id, (long long)m.pick[j], (long long)t);
            rc = 47;
            goto done;
        }
    }
    /* counts: the model's keys and values, in key order (bytewise). */
    if (!fief_map_count(counts, &n) || n != counts_expected) {
        fprintf(stderr, "verify: counts has %zu keys, %zu expected at transaction %lld\n", n, counts_expected, (long long)t);
        rc = 48;
        goto done;
    }
    fief_string_t *keys = calloc(n + 1, sizeof *keys);
    fief_value_t *values = calloc(n + 1, sizeof *values);
    if (!keys || !values || !fief_map_get_entries(counts, 0, n, keys, values)) rc = 49;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char key[32];
        snprintf(key, sizeof key, "%.*s", (int)keys[i].size, keys[i].data);
        long long s = atoll(key + 1);
        bool ordered = i == 0 || memcmp(keys[i - 1].data, keys[i].data,
                                        keys[i - 1].size < keys[i].size ? keys[i - 1].size : keys[i].size) < 0 ||
                       (keys[i - 1].size < keys[i].size && memcmp(keys[i - 1].data, keys[i].data, keys[i - 1].size) == 0);
        if (!ordered || s < 1 || s > t || !m.has_count[s] || values[i].type != FIEF_TYPE_INT || values[i].u.integer != m.count[s]) {
            fprintf(stderr, "verify: counts[%s] = %lld is wrong or out of order at transaction %lld\n", key,
                    (long long)values[i].u.integer, (long long)t);
            rc = 50;
        }
    }
    free(keys);
    free(values);
    if (rc != 0) goto done;
    /* Every Item's backlinks: one from the set if it is in it, one per key of picks holding it. */
    for (int64_t s = 1; s <= t; s++) {
        if (!m.item_exists[s]) continue;
        fief_object_t *item = item_object(r, k, s);
        fief_results_t *from_set = item ? fief_object_get_backlinks(item, k->meta, k->meta_items) : NULL;
        fief_results_t *from_picks = item ? fief_object_get_backlinks(item, k->meta, k->meta_picks) : NULL;
        size_t picked = 0;
        for (int j = 0; j < 10; j++) picked += m.pick[j] == s;
        size_t a = 0, b = 0;
        if (!from_set || !from_picks || !fief_results_count(from_set, &a) || !fief_results_count(from_picks, &b) ||
            a != m.in_set[s] || b != picked) {
            fprintf(stderr, "verify: item %lld has %zu + %zu backlinks, %d + %zu expected at transaction %lld\n", (long long)s, a, b,
                    (int)m.in_set[s], picked, (long long)t);
            rc = 51;
        }
        fief_release(from_picks);
        fief_release(from_set);
        fief_release(item);
        if (rc != 0) goto done;
    }
done:
    fief_release(counts);
    fief_release(picks);
    fief_release(items);
    free(m.item_exists);
    free(m.in_set);
    free(m.has_count);
    free(m.count);
    return rc;
}

static void print_problem(void *userdata, fief_report_kind_t kind, const char *text) {
    (void)userdata;
    if (kind == FIEF_REPORT_PROBLEM) fprintf(stderr, "verify: %s\n", text);
}

/* The verifier (a fresh process): exit 0 if the file is consistent and holds
 * at least `committed` transactions. */
static int verify(const char *path, int64_t committed, int64_t *out_t) {
    fief_schema_t *s = crash_schema();
    fief_realm_t *r = t_open(path, s, 0);
    if (!r) {
        fief_error_t e;
        memset(&e, 0, sizeof e);
        fief_get_last_error(&e);
        fprintf(stderr, "verify: open failed: %d %s: %s\n", (int)e.code, t_code_name(e.code),
                e.message ? e.message : "");
        return 10;
    }
    crash_keys k;
    if (!keys_for(r, &k)) return 11;
    bool found = false;
    int64_t t = 0;
    fief_object_t *m = fief_object_find_by_primary_key(r, k.meta, vi(0), &found);
    if (m) {
        fief_value_t v;
        if (!fief_object_get_value(m, k.meta_txn, &v)) return 12;
        t = v.u.integer;
        /* The history list is the rule replayed up to t. */
        int64_t *model = calloc((size_t)t * 2 + 4, sizeof *model);
        size_t n = 0;
        for (int64_t s2 = 1; s2 <= t; s2++) n = history_step(s2, model, n, NULL);
        fief_list_t *history = fief_object_get_list(m, k.meta_history);
        size_t hn = 0;
        if (!history || !fief_list_count(history, &hn)) return 32;
        fief_value_t *stored = calloc(hn + 1, sizeof *stored);
        if (hn != n || !fief_list_get_range(history, 0, hn, stored)) {
            fprintf(stderr, "verify: history has %zu elements, %zu expected at transaction %lld\n", hn, n, (long long)t);
            return 33;
        }
        for (size_t i = 0; i < n; i++) {
            if (stored[i].u.integer != model[i]) {
                fprintf(stderr, "verify: history[%zu] = %lld, expected %lld\n", i, (long long)stored[i].u.integer,
                        (long long)model[i]);
                return 34;
            }
        }
        free(stored);
        free(model);
        fief_release(history);
        /* The tags list: Tag t twice, and Tag t's backlinks say so. */
        fief_list_t *tags = fief_object_get_list(m, k.meta_tags);
        size_t tn = 0;
        fief_value_t two[2];
        if (!tags || !fief_list_count(tags, &tn) || tn != 2 || !fief_list_get_range(tags, 0, 2, two)) {
            fprintf(stderr, "verify: the tags list has %zu elements at transaction %lld\n", tn, (long long)t);
            return 35;
        }
        fief_object_t *tag = fief_object_get(r, two[0].u.link.class_key, two[0].u.link.object_key);
        fief_value_t tag_id;
        if (!tag || two[1].u.link.object_key != two[0].u.link.object_key || !fief_object_get_value(tag, k.tag_id, &tag_id) ||
            tag_id.u.integer != t) {
            fprintf(stderr, "verify: the tags list does not hold Tag %lld twice\n", (long long)t);
            return 36;
        }
        fief_results_t *owners = fief_object_get_backlinks(tag, k.meta, k.meta_tags);
        size_t no = 0;
        if (!owners || !fief_results_count(owners, &no) || no != 1) return 37;
        fief_release(owners);
        fief_release(tag);
        fief_release(tags);
        int rc = verify_collections(r, &k, m, t);
        if (rc != 0) return rc;
        fief_release(m);
    }
    *out_t = t;
    if (t < committed) {
        fprintf(stderr, "verify: file has transaction %lld, child reported %lld committed\n", (long long)t,
                (long long)committed);
        return 13;
    }
    /* Log: exactly 1..t */
    fief_results_t *logs = fief_realm_get_objects(r, k.log);
    size_t n = 0;
    if (!logs || !fief_results_count(logs, &n)) return 14;
    if ((int64_t)n != t) {
        fprintf(stderr, "verify: %zu log objects for transaction %lld\n", n, (long long)t);
        return 15;
    }
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        fief_value_t v;
        if (!fief_results_get_values(logs, i, &k.log_id, 1, &v)) return 16;
        sum += v.u.integer;
    }
    if (sum != t * (t + 1) / 2) {
        fprintf(stderr, "verify: log ids do not form 1..%lld\n", (long long)t);
        return 17;
    }
    /* Accounts: all from transaction t, balances summing to TOTAL */
    fief_results_t *accts = fief_realm_get_objects(r, k.acct);
    if (!accts || !fief_results_count(accts, &n)) return 18;
    if (t > 0 && n != ACCOUNTS) {
        fprintf(stderr, "verify: %zu accounts\n", n);
        return 19;
    }
    int64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        fief_property_key_t p[2] = {k.acct_txn, k.acct_bal};
        fief_value_t v[2];
        if (!fief_results_get_values(accts, i, p, 2, v)) return 20;
        if (v[0].u.integer != t) {
            fprintf(stderr, "verify: account %zu from transaction %lld, meta says %lld (partial commit)\n", i,
                    (long long)v[0].u.integer, (long long)t);
            return 21;
        }
        total += v[1].u.integer;
    }
    if (t > 0 && total != TOTAL) {
        fprintf(stderr, "verify: balances sum to %lld\n", (long long)total);
        return 22;
    }
    /* Links: account i's buddy is account (i + t) % ACCOUNTS, and each
     * account is the buddy of exactly one (its backlinks). */
    for (int i = 0; t > 0 && i < ACCOUNTS; i++) {
        fief_object_t *a = fief_object_find_by_primary_key(r, k.acct, vi(i), &found);
        if (!a) return 23;
        fief_value_t link;
        if (!fief_object_get_value(a, k.acct_buddy, &link) || link.type != FIEF_TYPE_LINK) return 24;
        fief_object_t *b = fief_object_get(r, link.u.link.class_key, link.u.link.object_key);
        fief_value_t id;
        if (!b || !fief_object_get_value(b, k.acct_id, &id)) return 25;
        if (id.u.integer != (i + t) % ACCOUNTS) {
            fprintf(stderr, "verify: account %d's buddy is %lld at transaction %lld\n", i, (long long)id.u.integer,
                    (long long)t);
            return 26;
        }
        fief_results_t *back = fief_object_get_backlinks(a, k.acct, k.acct_buddy);
        size_t nb = 0;
        if (!back || !fief_results_count(back, &nb) || nb != 1) {
            fprintf(stderr, "verify: account %d has %zu backlinks\n", i, nb);
            return 27;
        }
        fief_release(back);
        fief_release(b);
        fief_release(a);
    }
    /* Tags: only Tag t, linked from Log t alone. */
    fief_results_t *tags = fief_realm_get_objects(r, k.tag);
    fief_results_t *all_logs = fief_realm_get_objects(r, k.log);
    fief_results_t *tagged = all_logs ? fief_results_filter(all_logs, "tag != nil", NULL, 0) : NULL;
    size_t ntags = 0, ntagged = 0;
    if (!tags || !tagged || !fief_results_count(tags, &ntags) || !fief_results_count(tagged, &ntagged)) return 28;
    if (t > 0 && (ntags != 1 || ntagged != 1)) {
        fprintf(stderr, "verify: %zu tags, %zu tagged logs at transaction %lld\n", ntags, ntagged, (long long)t);
        return 29;
    }
    if (t > 0) {
        fief_value_t id;
        if (!fief_results_get_values(tagged, 0, &k.log_id, 1, &id) || id.u.integer != t) return 31;
    }
    fief_release(tagged);
    fief_release(all_logs);
    fief_release(tags);
    fief_release(accts);
    fief_release(logs);
    fief_release(r);
    fief_release(s);
    /* And fief verify: every list, set and map against its size, every
     * link against the backlinks. */
    size_t problems = 0;
    if (!fief_file_verify(path, print_problem, NULL, &problems) || problems != 0) {
        fprintf(stderr, "verify: fief_file_verify found %zu problems at transaction %lld\n", problems, (long long)t);
        return 52;
    }
    return 0;
}

TEST(crash_kill_writer) {
    const char *path = t_path("crash.fief");
    srand((unsigned)time(NULL) ^ (unsigned)getpid());
    int64_t committed = 0, file_t = 0;
    int kills_mid_stream = 0;
    double start = t_now();
    int it;
    for (it = 0; it < ITERATIONS && t_now() - start < TIME_BUDGET; it++) {
        int fds[2];
        R(pipe(fds) == 0);
        fflush(NULL);
        pid_t pid = fork();
        R(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            alarm(30);
            writer(path, fds[1], (unsigned)rand() + (unsigned)it);
        }
        close(fds[1]);
        /* Let it run 2..60 ms (longer the first time, to create the file). */
        int ms = it == 0 ? 300 : 2 + rand() % 58;
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
            fprintf(stderr, "writer exited by itself (status 0x%x)\n", status);
            t_fail(__FILE__, __LINE__, "writer killed by SIGKILL", NULL);
        }
        int64_t t, before = committed;
        ssize_t got;
        while ((got = read(fds[0], &t, sizeof t)) == (ssize_t)sizeof t) committed = t;
        close(fds[0]);
        if (committed > before) kills_mid_stream++;

        /* Verify in a fresh process. */
        int vp[2];
        R(pipe(vp) == 0);
        pid_t v = fork();
        R(v >= 0);
        if (v == 0) {
            close(vp[0]);
            alarm(30);
            int64_t ft = -1;
            int rc = verify(path, committed, &ft);
            if (write(vp[1], &ft, sizeof ft) != (ssize_t)sizeof ft) rc = 30;
            _exit(rc);
        }
        close(vp[1]);
        int64_t ft = -1;
        if (read(vp[0], &ft, sizeof ft) == (ssize_t)sizeof ft) file_t = ft;
        close(vp[0]);
        waitpid(v, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "iteration %d: verification failed (status 0x%x), %lld reported committed\n", it,
                    status, (long long)committed);
            t_fail(__FILE__, __LINE__, "verify after SIGKILL", NULL);
            break;
        }
        if (file_t > committed) committed = file_t; /* committed but not yet reported */
    }
    printf("%d kills, %lld transactions in the file, %d kills after at least one commit\n", it,
           (long long)committed, kills_mid_stream);
    E(committed > 0);
    E(kills_mid_stream >= it / 5);
}

static const t_case cases[] = {T(crash_kill_writer)};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
