/* Aggregates and results of values through the C API: min, max, sum and
 * average over every numeric type and timestamps, on class results,
 * filtered, sorted, list-of-links and backlink results, and on lists of
 * values; empty inputs and nulls; lists of values as live results (count,
 * values, filters over self, sorts by self, find); and every bad input
 * refused with an error code and message, changing nothing. */
#include "fief_test.h"

#include <math.h>
#include <stdlib.h>

/* Item: i int, oi int?, f float, od double?, dec decimal128, odec decimal128?,
 *       ts timestamp, s string, b bool, friend link Item, tags list of string
 * Bag:  ints list of int?, strs list of string?, dbls list of double,
 *       flts list of float?, decs list of decimal128, times list of timestamp?,
 *       bools list of bool, items list of Item */
enum { ITEM_PROPS = 11, BAG_PROPS = 8 };

static fief_schema_t *agg_schema(void) {
    fief_class_info_t classes[2];
    memset(classes, 0, sizeof classes);
    classes[0].name = "Item";
    classes[0].num_properties = ITEM_PROPS;
    classes[1].name = "Bag";
    classes[1].num_properties = BAG_PROPS;
    fief_property_info_t item[ITEM_PROPS] = {
        t_prop_info("i", FIEF_TYPE_INT, 0),          t_prop_info("oi", FIEF_TYPE_INT, FIEF_PROPERTY_NULLABLE),
        t_prop_info("f", FIEF_TYPE_FLOAT, 0),        t_prop_info("od", FIEF_TYPE_DOUBLE, FIEF_PROPERTY_NULLABLE),
        t_prop_info("dec", FIEF_TYPE_DECIMAL128, 0), t_prop_info("odec", FIEF_TYPE_DECIMAL128, FIEF_PROPERTY_NULLABLE),
        t_prop_info("ts", FIEF_TYPE_TIMESTAMP, 0),   t_prop_info("s", FIEF_TYPE_STRING, 0),
        t_prop_info("b", FIEF_TYPE_BOOL, 0),         t_prop_info("friend", FIEF_TYPE_LINK, FIEF_PROPERTY_NULLABLE),
        t_prop_info("tags", FIEF_TYPE_STRING, 0)};
    item[9].link_target = "Item";
    item[10].collection_type = FIEF_COLLECTION_LIST;
    fief_property_info_t bag[BAG_PROPS] = {
        t_prop_info("ints", FIEF_TYPE_INT, FIEF_PROPERTY_NULLABLE),
        t_prop_info("strs", FIEF_TYPE_STRING, FIEF_PROPERTY_NULLABLE),
        t_prop_info("dbls", FIEF_TYPE_DOUBLE, 0),
        t_prop_info("flts", FIEF_TYPE_FLOAT, FIEF_PROPERTY_NULLABLE),
        t_prop_info("decs", FIEF_TYPE_DECIMAL128, 0),
        t_prop_info("times", FIEF_TYPE_TIMESTAMP, FIEF_PROPERTY_NULLABLE),
        t_prop_info("bools", FIEF_TYPE_BOOL, 0),
        t_prop_info("items", FIEF_TYPE_LINK, 0)};
    for (int i = 0; i < BAG_PROPS; i++) bag[i].collection_type = FIEF_COLLECTION_LIST;
    bag[7].link_target = "Item";
    const fief_property_info_t *props[2] = {item, bag};
    return fief_schema_new(classes, 2, props);
}

static fief_realm_t *open_agg(void) {
    fief_schema_t *s = agg_schema();
    if (!s) return NULL;
    fief_realm_t *r = t_open(t_path("agg.fief"), s, 0);
    fief_release(s);
    return r;
}

/* A decimal128 of coefficient * 10^exponent (|coefficient| < 2^63). */
static fief_value_t vdecimal(int64_t coefficient, int exponent) {
    uint64_t sign = coefficient < 0 ? (uint64_t)1 << 63 : 0;
    uint64_t magnitude = coefficient < 0 ? (uint64_t)(-coefficient) : (uint64_t)coefficient;
    return vdec(magnitude, sign | ((uint64_t)(exponent + 6176) << 49));
}

static fief_value_t agg(const fief_results_t *results, fief_property_key_t property, fief_aggregate_t op) {
    fief_value_t out = vs("untouched");
    E(fief_results_aggregate(results, property, op, &out));
    return out;
}

static fief_value_t lagg(const fief_list_t *list, fief_property_key_t property, fief_aggregate_t op) {
    fief_value_t out = vs("untouched");
    E(fief_list_aggregate(list, property, op, &out));
    return out;
}

typedef struct items_fixture {
    fief_realm_t *r;
    fief_class_key_t item, bag;
    fief_property_key_t i, oi, f, od, dec, odec, ts, s, b, friend_, tags;
    fief_property_key_t ints, strs, dbls, flts, decs, times, bools, items;
    fief_object_key_t keys[4];
    fief_object_t *bag_object;
} items_fixture;

/* Four items:
 *   i:   3, -1, 10, 4        oi:  5, null, 7, null     f: 1.5 0.25 -2 4
 *   od:  null 2.5 null -0.5  dec: 1.5 2.25 3 -0.75     odec: null null 10 null
 *   ts:  (10,5) (-3,0) (10,7) (2,0)   s: "b" "a" "c" "d"   b: true false true false
 * and a bag whose `items` lists items 0, 2, 2 (item 2 twice). */
static bool make_items(items_fixture *x) {
    memset(x, 0, sizeof *x);
    x->r = open_agg();
    if (!x->r) return false;
    x->item = t_class(x->r, "Item");
    x->bag = t_class(x->r, "Bag");
    x->i = t_prop(x->r, "Item", "i");
    x->oi = t_prop(x->r, "Item", "oi");
    x->f = t_prop(x->r, "Item", "f");
    x->od = t_prop(x->r, "Item", "od");
    x->dec = t_prop(x->r, "Item", "dec");
    x->odec = t_prop(x->r, "Item", "odec");
    x->ts = t_prop(x->r, "Item", "ts");
    x->s = t_prop(x->r, "Item", "s");
    x->b = t_prop(x->r, "Item", "b");
    x->friend_ = t_prop(x->r, "Item", "friend");
    x->tags = t_prop(x->r, "Item", "tags");
    x->ints = t_prop(x->r, "Bag", "ints");
    x->strs = t_prop(x->r, "Bag", "strs");
    x->dbls = t_prop(x->r, "Bag", "dbls");
    x->flts = t_prop(x->r, "Bag", "flts");
    x->decs = t_prop(x->r, "Bag", "decs");
    x->times = t_prop(x->r, "Bag", "times");
    x->bools = t_prop(x->r, "Bag", "bools");
    x->items = t_prop(x->r, "Bag", "items");
    fief_property_key_t props[9] = {x->i, x->oi, x->f, x->od, x->dec, x->odec, x->ts, x->s, x->b};
    fief_value_t rows[4 * 9] = {
        vi(3),  vi(5),   vf(1.5f),  vnull(), vdecimal(15, -1),  vnull(),          vts(10, 5), vs("b"), vb(true),
        vi(-1), vnull(), vf(0.25f), vd(2.5), vdecimal(225, -2), vnull(),          vts(-3, 0), vs("a"), vb(false),
        vi(10), vi(7),   vf(-2.0f), vnull(), vdecimal(3, 0),    vdecimal(10, 0),  vts(10, 7), vs("c"), vb(true),
        vi(4),  vnull(), vf(4.0f),  vd(-0.5), vdecimal(-75, -2), vnull(),         vts(2, 0),  vs("d"), vb(false)};
    if (!fief_realm_begin_write(x->r)) return false;
    bool ok = fief_object_create_many(x->r, x->item, props, 9, rows, 4, FIEF_UPDATE_POLICY_ERROR, x->keys);
    x->bag_object = ok ? fief_object_create(x->r, x->bag, NULL, NULL, 0, FIEF_UPDATE_POLICY_ERROR) : NULL;
    ok = x->bag_object != NULL;
    if (ok) {
        fief_list_t *items = fief_object_get_list(x->bag_object, x->items);
        fief_value_t links[3] = {vlink(x->item, x->keys[0]), vlink(x->item, x->keys[2]), vlink(x->item, x->keys[2])};
        ok = items && fief_list_append(items, links, 3);
        fief_release(items);
    }
    return fief_realm_commit(x->r) && ok;
}

static void release_items(items_fixture *x) {
    fief_release(x->bag_object);
    fief_release(x->r);
}

TEST(aggregates_over_class_results) {
    items_fixture x;
    R(make_items(&x));
    fief_results_t *all = fief_realm_get_objects(x.r, x.item);
    R(all != NULL);
    /* ints */
    EQV(agg(all, x.i, FIEF_AGGREGATE_MIN), vi(-1));
    EQV(agg(all, x.i, FIEF_AGGREGATE_MAX), vi(10));
    EQV(agg(all, x.i, FIEF_AGGREGATE_SUM), vi(16));
    EQV(agg(all, x.i, FIEF_AGGREGATE_AVERAGE), vd(4.0));
    /* optional ints: nulls skipped */
    EQV(agg(all, x.oi, FIEF_AGGREGATE_MIN), vi(5));
    EQV(agg(all, x.oi, FIEF_AGGREGATE_MAX), vi(7));
    EQV(agg(all, x.oi, FIEF_AGGREGATE_SUM), vi(12));
    EQV(agg(all, x.oi, FIEF_AGGREGATE_AVERAGE), vd(6.0));
    /* floats: min/max are floats, sum and average doubles */
    EQV(agg(all, x.f, FIEF_AGGREGATE_MIN), vf(-2.0f));
    EQV(agg(all, x.f, FIEF_AGGREGATE_MAX), vf(4.0f));
    EQV(agg(all, x.f, FIEF_AGGREGATE_SUM), vd(3.75));
    EQV(agg(all, x.f, FIEF_AGGREGATE_AVERAGE), vd(0.9375));
    /* optional doubles */
    EQV(agg(all, x.od, FIEF_AGGREGATE_MIN), vd(-0.5));
    EQV(agg(all, x.od, FIEF_AGGREGATE_MAX), vd(2.5));
    EQV(agg(all, x.od, FIEF_AGGREGATE_SUM), vd(2.0));
    EQV(agg(all, x.od, FIEF_AGGREGATE_AVERAGE), vd(1.0));
    /* decimals: exact */
    EQV(agg(all, x.dec, FIEF_AGGREGATE_MIN), vdecimal(-75, -2));
    EQV(agg(all, x.dec, FIEF_AGGREGATE_MAX), vdecimal(3, 0));
    EQV(agg(all, x.dec, FIEF_AGGREGATE_SUM), vdecimal(600, -2));
    EQV(agg(all, x.dec, FIEF_AGGREGATE_AVERAGE), vdecimal(150, -2));
    EQV(agg(all, x.odec, FIEF_AGGREGATE_SUM), vdecimal(10, 0));
    EQV(agg(all, x.odec, FIEF_AGGREGATE_AVERAGE), vdecimal(10, 0));
    /* timestamps: min and max */
    EQV(agg(all, x.ts, FIEF_AGGREGATE_MIN), vts(-3, 0));
    EQV(agg(all, x.ts, FIEF_AGGREGATE_MAX), vts(10, 7));

    /* Filtered, then sorted: the same objects, the same aggregates. */
    fief_results_t *big = fief_results_filter(all, "i >= 3", NULL, 0);
    R(big != NULL);
    EQV(agg(big, x.i, FIEF_AGGREGATE_SUM), vi(17));
    EQV(agg(big, x.oi, FIEF_AGGREGATE_AVERAGE), vd(6.0));
    fief_sort_descriptor_t by_s = {"s", false};
    fief_results_t *sorted = fief_results_sort(big, &by_s, 1);
    R(sorted != NULL);
    EQV(agg(sorted, x.i, FIEF_AGGREGATE_MIN), vi(3));
    EQV(agg(sorted, x.f, FIEF_AGGREGATE_MAX), vf(4.0f));
    fief_results_t *none = fief_results_filter(all, "i > 100", NULL, 0);
    R(none != NULL);
    EQV(agg(none, x.i, FIEF_AGGREGATE_MIN), vnull());
    EQV(agg(none, x.i, FIEF_AGGREGATE_SUM), vi(0));

    /* Live: a write changes the next aggregate. */
    R(fief_realm_begin_write(x.r));
    fief_object_t *first = fief_object_get(x.r, x.item, x.keys[0]);
    R(first != NULL);
    E(fief_object_set_value(first, x.i, vi(100)));
    EQV(agg(all, x.i, FIEF_AGGREGATE_MAX), vi(100));
    EQV(agg(big, x.i, FIEF_AGGREGATE_SUM), vi(114));
    R(fief_realm_commit(x.r));
    EQV(agg(sorted, x.i, FIEF_AGGREGATE_SUM), vi(114));
    fief_release(first);

    fief_release(none);
    fief_release(sorted);
    fief_release(big);
    fief_release(all);
    release_items(&x);
}

TEST(aggregates_over_links_and_backlinks) {
    items_fixture x;
    R(make_items(&x));
    fief_list_t *items = fief_object_get_list(x.bag_object, x.items);
    R(items != NULL);
    /* Items 0, 2, 2: item 2 counts twice. */
    EQV(lagg(items, x.i, FIEF_AGGREGATE_SUM), vi(23));
    EQV(lagg(items, x.i, FIEF_AGGREGATE_MIN), vi(3));
    EQV(lagg(items, x.oi, FIEF_AGGREGATE_AVERAGE), vd(19.0 / 3.0));
    fief_results_t *listed = fief_list_to_results(items);
    R(listed != NULL);
    EQV(agg(listed, x.i, FIEF_AGGREGATE_SUM), vi(23));
    EQV(agg(listed, x.dec, FIEF_AGGREGATE_SUM), vdecimal(75, -1));
    fief_results_t *filtered = fief_results_filter(listed, "i > 5", NULL, 0);
    R(filtered != NULL);
    EQV(agg(filtered, x.i, FIEF_AGGREGATE_SUM), vi(20));
    EQV(agg(filtered, x.i, FIEF_AGGREGATE_AVERAGE), vd(10.0));

    /* Backlinks: the items whose friend is item 1. */
    R(fief_realm_begin_write(x.r));
    for (int k = 0; k < 4; k += 2) {
        fief_object_t *o = fief_object_get(x.r, x.item, x.keys[k]);
        R(o != NULL);
        E(fief_object_set_value(o, x.friend_, vlink(x.item, x.keys[1])));
        fief_release(o);
    }
    R(fief_realm_commit(x.r));
    fief_object_t *one = fief_object_get(x.r, x.item, x.keys[1]);
    R(one != NULL);
    fief_results_t *friends = fief_object_get_backlinks(one, x.item, x.friend_);
    R(friends != NULL);
    EQV(agg(friends, x.i, FIEF_AGGREGATE_SUM), vi(13));
    EQV(agg(friends, x.ts, FIEF_AGGREGATE_MAX), vts(10, 7));
    EQV(agg(friends, x.od, FIEF_AGGREGATE_AVERAGE), vnull());

    fief_release(friends);
    fief_release(one);
    fief_release(filtered);
    fief_release(listed);
    fief_release(items);
    release_items(&x);
}

TEST(aggregates_of_empty_class) {
    items_fixture x;
    R(make_items(&x));
    R(fief_realm_begin_write(x.r));
    fief_results_t *all = fief_realm_get_objects(x.r, x.item);
    R(all != NULL);
    E(fief_results_delete_all(all));
    R(fief_realm_commit(x.r));
    fief_aggregate_t ops[3] = {FIEF_AGGREGATE_MIN, FIEF_AGGREGATE_MAX, FIEF_AGGREGATE_AVERAGE};
    fief_property_key_t numeric[6] = {x.i, x.oi, x.f, x.od, x.dec, x.odec};
    for (int p = 0; p < 6; p++)
        for (int o = 0; o < 3; o++) EQV(agg(all, numeric[p], ops[o]), vnull());
    EQV(agg(all, x.ts, FIEF_AGGREGATE_MIN), vnull());
    EQV(agg(all, x.i, FIEF_AGGREGATE_SUM), vi(0));
    EQV(agg(all, x.oi, FIEF_AGGREGATE_SUM), vi(0));
    EQV(agg(all, x.f, FIEF_AGGREGATE_SUM), vd(0));
    EQV(agg(all, x.od, FIEF_AGGREGATE_SUM), vd(0));
    EQV(agg(all, x.dec, FIEF_AGGREGATE_SUM), vdecimal(0, 0));
    fief_release(all);
    release_items(&x);
}

TEST(aggregates_refuse_bad_input) {
    items_fixture x;
    R(make_items(&x));
    fief_results_t *all = fief_realm_get_objects(x.r, x.item);
    R(all != NULL);
    fief_value_t out = vi(42);
    /* Types an aggregate does not take: the message names property and type. */
    EERRM(fief_results_aggregate(all, x.s, FIEF_AGGREGATE_MIN, &out), FIEF_ERR_TYPE_MISMATCH, "'Item.s'");
    EMSG("string");
    EERRM(fief_results_aggregate(all, x.s, FIEF_AGGREGATE_SUM, &out), FIEF_ERR_TYPE_MISMATCH, "string");
    EERRM(fief_results_aggregate(all, x.b, FIEF_AGGREGATE_MAX, &out), FIEF_ERR_TYPE_MISMATCH, "bool");
    EERRM(fief_results_aggregate(all, x.ts, FIEF_AGGREGATE_SUM, &out), FIEF_ERR_TYPE_MISMATCH, "timestamp");
    EERRM(fief_results_aggregate(all, x.ts, FIEF_AGGREGATE_AVERAGE, &out), FIEF_ERR_TYPE_MISMATCH, "'Item.ts'");
    /* Lists and links are not single values. */
    EERRM(fief_results_aggregate(all, x.tags, FIEF_AGGREGATE_MIN, &out), FIEF_ERR_INVALID_ARGUMENT, "list");
    EERRM(fief_results_aggregate(all, x.friend_, FIEF_AGGREGATE_SUM, &out), FIEF_ERR_INVALID_ARGUMENT, "link");
    /* Unknown properties and operations, NULL out-pointers. */
    EERR(fief_results_aggregate(all, 9999, FIEF_AGGREGATE_MIN, &out), FIEF_ERR_NO_SUCH_PROPERTY);
    EERRM(fief_results_aggregate(all, x.i, 0, &out), FIEF_ERR_INVALID_ARGUMENT, "op is 0");
    EERRM(fief_results_aggregate(all, x.i, 5, &out), FIEF_ERR_INVALID_ARGUMENT, "op is 5");
    EERRM(fief_results_aggregate(all, x.i, FIEF_AGGREGATE_SUM, NULL), FIEF_ERR_INVALID_ARGUMENT, "out_value");
    /* Handles: NULL, another kind, released. */
    EERR(fief_results_aggregate(NULL, x.i, FIEF_AGGREGATE_SUM, &out), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_results_aggregate((const fief_results_t *)x.bag_object, x.i, FIEF_AGGREGATE_SUM, &out),
         FIEF_ERR_WRONG_HANDLE_TYPE);
    fief_results_t *gone = fief_results_filter(all, "i > 0", NULL, 0);
    R(gone != NULL);
    E(fief_release(gone));
    EERR(fief_results_aggregate(gone, x.i, FIEF_AGGREGATE_SUM, &out), FIEF_ERR_INVALID_HANDLE);
    fief_list_t *items = fief_object_get_list(x.bag_object, x.items);
    R(items != NULL);
    EERRM(fief_list_aggregate(items, x.s, FIEF_AGGREGATE_AVERAGE, &out), FIEF_ERR_TYPE_MISMATCH, "'Item.s'");
    EERRM(fief_list_aggregate(items, x.i, 77, &out), FIEF_ERR_INVALID_ARGUMENT, "op is 77");
    EERR(fief_list_aggregate(items, x.i, FIEF_AGGREGATE_MIN, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_list_aggregate(NULL, x.i, FIEF_AGGREGATE_MIN, &out), FIEF_ERR_INVALID_HANDLE);
    /* Nothing was written through the failures. */
    EQV(out, vi(42));
    /* A deleted owner. */
    R(fief_realm_begin_write(x.r));
    E(fief_object_delete(x.bag_object));
    EERR(fief_list_aggregate(items, x.i, FIEF_AGGREGATE_SUM, &out), FIEF_ERR_INVALIDATED_OBJECT);
    R(fief_realm_cancel(x.r));
    EQV(out, vi(42));
    EQV(lagg(items, x.i, FIEF_AGGREGATE_SUM), vi(23));
    /* A closed realm. */
    E(fief_realm_close(x.r));
    EERR(fief_results_aggregate(all, x.i, FIEF_AGGREGATE_SUM, &out), FIEF_ERR_CLOSED);
    EQV(out, vi(42));
    fief_release(items);
    fief_release(all);
    release_items(&x);
}

/* ---- lists of values ------------------------------------------------------ */

static fief_list_t *bag_list(items_fixture *x, fief_property_key_t property, const fief_value_t *values, size_t n) {
    fief_list_t *list = fief_object_get_list(x->bag_object, property);
    if (!list) return NULL;
    if (n > 0) {
        if (!fief_realm_begin_write(x->r)) return NULL;
        bool ok = fief_list_append(list, values, n);
        if (!fief_realm_commit(x->r) || !ok) return NULL;
    }
    return list;
}

static fief_value_t rget(const fief_results_t *results, size_t i) {
    fief_value_t v = vs("untouched");
    E(fief_results_get_value(results, i, &v));
    return v;
}

TEST(aggregates_over_lists_of_values) {
    items_fixture x;
    R(make_items(&x));
    fief_value_t ints[6] = {vi(4), vnull(), vi(-2), vi(9), vnull(), vi(1)};
    fief_list_t *li = bag_list(&x, x.ints, ints, 6);
    R(li != NULL);
    EQV(lagg(li, 0, FIEF_AGGREGATE_MIN), vi(-2));
    EQV(lagg(li, 0, FIEF_AGGREGATE_MAX), vi(9));
    EQV(lagg(li, 0, FIEF_AGGREGATE_SUM), vi(12));
    EQV(lagg(li, 0, FIEF_AGGREGATE_AVERAGE), vd(3.0));
    fief_value_t dbls[3] = {vd(0.5), vd(-1.25), vd(4.0)};
    fief_list_t *ld = bag_list(&x, x.dbls, dbls, 3);
    R(ld != NULL);
    EQV(lagg(ld, 0, FIEF_AGGREGATE_MIN), vd(-1.25));
    EQV(lagg(ld, 0, FIEF_AGGREGATE_MAX), vd(4.0));
    EQV(lagg(ld, 0, FIEF_AGGREGATE_SUM), vd(3.25));
    EQV(lagg(ld, 0, FIEF_AGGREGATE_AVERAGE), vd(3.25 / 3));
    fief_value_t flts[4] = {vf(2.5f), vnull(), vf(-1.0f), vnull()};
    fief_list_t *lf = bag_list(&x, x.flts, flts, 4);
    R(lf != NULL);
    EQV(lagg(lf, 0, FIEF_AGGREGATE_MIN), vf(-1.0f));
    EQV(lagg(lf, 0, FIEF_AGGREGATE_MAX), vf(2.5f));
    EQV(lagg(lf, 0, FIEF_AGGREGATE_SUM), vd(1.5));
    EQV(lagg(lf, 0, FIEF_AGGREGATE_AVERAGE), vd(0.75));
    fief_value_t decs[3] = {vdecimal(1, 0), vdecimal(2, 0), vdecimal(2, 0)};
    fief_list_t *ldec = bag_list(&x, x.decs, decs, 3);
    R(ldec != NULL);
    EQV(lagg(ldec, 0, FIEF_AGGREGATE_MIN), vdecimal(1, 0));
    EQV(lagg(ldec, 0, FIEF_AGGREGATE_MAX), vdecimal(2, 0));
    EQV(lagg(ldec, 0, FIEF_AGGREGATE_SUM), vdecimal(5, 0));
    /* 5/3 rounded to 34 digits. */
    fief_value_t avg = lagg(ldec, 0, FIEF_AGGREGATE_AVERAGE);
    EQI(avg.type, FIEF_TYPE_DECIMAL128);
    EQU(avg.u.decimal128.w[1] >> 49, 6176 - 33);
    fief_value_t times[3] = {vts(5, 1), vnull(), vts(5, 0)};
    fief_list_t *lt = bag_list(&x, x.times, times, 3);
    R(lt != NULL);
    EQV(lagg(lt, 0, FIEF_AGGREGATE_MIN), vts(5, 0));
    EQV(lagg(lt, 0, FIEF_AGGREGATE_MAX), vts(5, 1));

    /* Empty lists, and lists of nothing but nulls. */
    fief_list_t *lb = bag_list(&x, x.bools, NULL, 0);
    R(lb != NULL);
    fief_list_t *ls = bag_list(&x, x.strs, NULL, 0);
    R(ls != NULL);
    R(fief_realm_begin_write(x.r));
    E(fief_list_clear(li));
    fief_value_t two_nulls[2] = {vnull(), vnull()};
    E(fief_list_clear(lf));
    E(fief_list_append(lf, two_nulls, 2));
    R(fief_realm_commit(x.r));
    EQV(lagg(li, 0, FIEF_AGGREGATE_MIN), vnull());
    EQV(lagg(li, 0, FIEF_AGGREGATE_AVERAGE), vnull());
    EQV(lagg(li, 0, FIEF_AGGREGATE_SUM), vi(0));
    EQV(lagg(lf, 0, FIEF_AGGREGATE_MAX), vnull());
    EQV(lagg(lf, 0, FIEF_AGGREGATE_SUM), vd(0));

    /* Types that do not aggregate. */
    fief_value_t out = vi(42);
    EERRM(fief_list_aggregate(lb, 0, FIEF_AGGREGATE_MIN, &out), FIEF_ERR_TYPE_MISMATCH, "'Bag.bools'");
    EERRM(fief_list_aggregate(ls, 0, FIEF_AGGREGATE_SUM, &out), FIEF_ERR_TYPE_MISMATCH, "string");
    EERRM(fief_list_aggregate(lt, 0, FIEF_AGGREGATE_AVERAGE, &out), FIEF_ERR_TYPE_MISMATCH, "timestamp");
    EQV(out, vi(42));

    fief_list_t *lists[7] = {li, ld, lf, ldec, lt, lb, ls};
    for (int i = 0; i < 7; i++) fief_release(lists[i]);
    release_items(&x);
}

TEST(value_results_read_filter_sort) {
    items_fixture x;
    R(make_items(&x));
    fief_value_t ints[7] = {vi(4), vnull(), vi(-2), vi(9), vnull(), vi(1), vi(4)};
    fief_list_t *li = bag_list(&x, x.ints, ints, 7);
    R(li != NULL);
    fief_results_t *all = fief_list_to_results(li);
    R(all != NULL);
    EQU(t_count(all), 7);
    for (size_t i = 0; i < 7; i++) EQV(rget(all, i), ints[i]);
    fief_type_t type = 0;
    bool nullable = false;
    E(fief_results_get_element_type(all, &type, &nullable));
    EQI(type, FIEF_TYPE_INT);
    E(nullable);
    E(fief_results_get_element_type(all, &type, NULL));

    /* Filters over self. */
    fief_results_t *big = fief_results_filter(all, "self > 1", NULL, 0);
    R(big != NULL);
    EQU(t_count(big), 3);
    EQV(rget(big, 0), vi(4));
    EQV(rget(big, 1), vi(9));
    EQV(rget(big, 2), vi(4));
    fief_results_t *nulls = fief_results_filter(all, "self == nil", NULL, 0);
    R(nulls != NULL);
    EQU(t_count(nulls), 2);
    EQV(rget(nulls, 1), vnull());
    fief_value_t arg = vi(4);
    fief_query_arg_t args[1] = {{1, false, &arg}};
    fief_results_t *not_four = fief_results_filter(big, "NOT (self == $0)", args, 1);
    R(not_four != NULL);
    EQU(t_count(not_four), 1);
    EQV(rget(not_four, 0), vi(9));
    fief_results_t *between = fief_results_filter(all, "self >= -2 AND self < 4 OR self == 9", NULL, 0);
    R(between != NULL);
    EQU(t_count(between), 3);

    /* Sorts by self: nulls first ascending, last descending; stable. */
    fief_sort_descriptor_t up = {"self", true}, down = {"self", false};
    fief_results_t *asc = fief_results_sort(all, &up, 1);
    R(asc != NULL);
    fief_value_t want_asc[7] = {vnull(), vnull(), vi(-2), vi(1), vi(4), vi(4), vi(9)};
    for (size_t i = 0; i < 7; i++) EQV(rget(asc, i), want_asc[i]);
    fief_results_t *desc = fief_results_sort(big, &down, 1);
    R(desc != NULL);
    EQV(rget(desc, 0), vi(9));
    EQV(rget(desc, 2), vi(4));
    fief_results_t *desc_all = fief_results_sort(all, &down, 1);
    R(desc_all != NULL);
    EQV(rget(desc_all, 0), vi(9));
    EQV(rget(desc_all, 6), vnull());
    /* A filter of a sorted results stays sorted. */
    fief_results_t *sorted_big = fief_results_filter(asc, "self > 1", NULL, 0);
    R(sorted_big != NULL);
    EQV(rget(sorted_big, 0), vi(4));
    EQV(rget(sorted_big, 2), vi(9));

    /* Find. */
    size_t index = 99;
    bool found = false;
    E(fief_results_index_of_value(all, vi(9), &index, &found));
    E(found);
    EQU(index, 3);
    E(fief_results_index_of_value(asc, vnull(), &index, &found));
    E(found);
    EQU(index, 0);
    E(fief_results_index_of_value(desc, vi(4), &index, &found));
    E(found);
    EQU(index, 1);
    E(fief_results_index_of_value(big, vi(-2), &index, &found));
    E(!found);
    E(fief_results_index_of_value(all, vs("4"), &index, &found));
    E(!found);

    /* Aggregates through the results. */
    EQV(agg(big, 0, FIEF_AGGREGATE_SUM), vi(17));
    EQV(agg(asc, 0, FIEF_AGGREGATE_MIN), vi(-2));
    EQV(agg(nulls, 0, FIEF_AGGREGATE_MAX), vnull());
    EQV(agg(nulls, 0, FIEF_AGGREGATE_SUM), vi(0));

    /* Live: writes to the list show in every results. */
    R(fief_realm_begin_write(x.r));
    E(fief_list_append(li, &ints[3], 1));     /* another 9 */
    E(fief_list_set(li, 0, vi(100)));
    EQU(t_count(big), 4);
    EQV(rget(desc, 0), vi(100));
    EQV(rget(asc, 7), vi(100));
    R(fief_realm_commit(x.r));
    EQU(t_count(all), 8);
    EQV(agg(big, 0, FIEF_AGGREGATE_MAX), vi(100));
    R(fief_realm_begin_write(x.r));
    E(fief_list_clear(li));
    R(fief_realm_commit(x.r));
    EQU(t_count(all), 0);
    EQU(t_count(asc), 0);
    EQV(agg(all, 0, FIEF_AGGREGATE_AVERAGE), vnull());

    fief_results_t *list[10] = {all, big, nulls, not_four, between, asc, desc, desc_all, sorted_big, NULL};
    for (int i = 0; list[i]; i++) fief_release(list[i]);
    fief_release(li);
    release_items(&x);
}

TEST(value_results_of_strings_and_freeze) {
    items_fixture x;
    R(make_items(&x));
    fief_value_t strs[6] = {vs("beta"), vs("Alpha"), vnull(), vs("alpha"), vs("\xc3\xa9t\xc3\xa9"), vs("b")};
    fief_list_t *ls = bag_list(&x, x.strs, strs, 6);
    R(ls != NULL);
    fief_results_t *all = fief_list_to_results(ls);
    R(all != NULL);
    fief_results_t *a = fief_results_filter(all, "self BEGINSWITH[c] 'a'", NULL, 0);
    R(a != NULL);
    EQU(t_count(a), 2);
    EQSTR(rget(a, 0).u.string, "Alpha");
    EQSTR(rget(a, 1).u.string, "alpha");
    fief_results_t *b = fief_results_filter(all, "self LIKE 'b*' AND self != 'b'", NULL, 0);
    R(b != NULL);
    EQU(t_count(b), 1);
    fief_results_t *present = fief_results_filter(all, "self != nil", NULL, 0);
    R(present != NULL);
    EQU(t_count(present), 5);
    /* Strings sort by UTF-8 bytes: "Alpha" < "alpha" < "b" < "beta" < "été". */
    fief_sort_descriptor_t up = {"self", true};
    fief_results_t *sorted = fief_results_sort(all, &up, 1);
    R(sorted != NULL);
    EQV(rget(sorted, 0), vnull());
    EQSTR(rget(sorted, 1).u.string, "Alpha");
    EQSTR(rget(sorted, 2).u.string, "alpha");
    EQSTR(rget(sorted, 3).u.string, "b");
    EQSTR(rget(sorted, 4).u.string, "beta");
    EQSTR(rget(sorted, 5).u.string, "\xc3\xa9t\xc3\xa9");

    /* Frozen results of values keep the version they were frozen at. */
    fief_realm_t *frozen = fief_realm_freeze(x.r);
    R(frozen != NULL);
    fief_results_t *cold = fief_results_resolve_in(sorted, frozen);
    R(cold != NULL);
    R(fief_realm_begin_write(x.r));
    E(fief_list_remove(ls, 0));
    R(fief_realm_commit(x.r));
    EQU(t_count(sorted), 5);
    EQU(t_count(cold), 6);
    EQSTR(rget(cold, 4).u.string, "beta");
    E(fief_results_is_valid(cold));
    fief_realm_t *back = fief_results_get_realm(cold);
    R(back != NULL);
    fief_release(back);

    fief_release(cold);
    fief_release(frozen);
    fief_release(sorted);
    fief_release(present);
    fief_release(b);
    fief_release(a);
    fief_release(all);
    fief_release(ls);
    release_items(&x);
}

TEST(value_results_refuse_bad_input) {
    items_fixture x;
    R(make_items(&x));
    fief_value_t ints[3] = {vi(1), vi(2), vi(3)};
    fief_list_t *li = bag_list(&x, x.ints, ints, 3);
    R(li != NULL);
    fief_results_t *values = fief_list_to_results(li);
    R(values != NULL);
    fief_results_t *objects = fief_realm_get_objects(x.r, x.item);
    R(objects != NULL);

    /* Calls for objects refuse results of values, naming themselves. */
    fief_object_key_t key = 7;
    fief_class_key_t cls = 7;
    fief_value_t out = vi(42);
    fief_object_t *item = fief_object_get(x.r, x.item, x.keys[0]);
    R(item != NULL);
    size_t index = 5;
    bool found = true;
    EERRM(fief_results_get_object(values, 0) != NULL, FIEF_ERR_INVALID_ARGUMENT, "fief_results_get_object");
    EERRM(fief_results_get_key(values, 0, &key), FIEF_ERR_INVALID_ARGUMENT, "fief_results_get_key");
    EERRM(fief_results_get_values(values, 0, &x.i, 1, &out), FIEF_ERR_INVALID_ARGUMENT, "fief_results_get_values");
    EERRM(fief_results_index_of_object(values, item, &index, &found), FIEF_ERR_INVALID_ARGUMENT, "fief_results_index_of_object");
    EERRM(fief_results_get_class_key(values, &cls), FIEF_ERR_INVALID_ARGUMENT, "fief_results_get_class_key");
    R(fief_realm_begin_write(x.r));
    EERRM(fief_results_delete_all(values), FIEF_ERR_INVALID_ARGUMENT, "fief_results_delete_all");
    R(fief_realm_commit(x.r));
    EQI(key, 7);
    EQI(cls, 7);
    EQU(index, 5);
    E(found);
    EQV(out, vi(42));
    /* ... and calls for values refuse results of objects. */
    EERRM(fief_results_get_value(objects, 0, &out), FIEF_ERR_INVALID_ARGUMENT, "fief_results_get_value");
    EERRM(fief_results_index_of_value(objects, vi(3), &index, &found), FIEF_ERR_INVALID_ARGUMENT, "fief_results_index_of_value");
    EQV(out, vi(42));

    /* Indices, out-pointers, values. */
    EERR(fief_results_get_value(values, 3, &out), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_results_get_value(values, (size_t)-1, &out), FIEF_ERR_INDEX_OUT_OF_BOUNDS);
    EERR(fief_results_get_value(values, 0, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_index_of_value(values, vi(1), NULL, &found), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_index_of_value(values, vi(1), &index, NULL), FIEF_ERR_INVALID_ARGUMENT);
    fief_value_t bad;
    memset(&bad, 0, sizeof bad);
    bad.type = 99;
    EERR(fief_results_index_of_value(values, bad, &index, &found), FIEF_ERR_INVALID_ARGUMENT);
    EERR(fief_results_get_element_type(values, NULL, NULL), FIEF_ERR_INVALID_ARGUMENT);
    EQV(out, vi(42));

    /* Predicates and sorts that do not fit values. */
    EERRM(fief_results_filter(values, "i > 1", NULL, 0) != NULL, FIEF_ERR_QUERY_INVALID, "self");
    EERRM(fief_results_filter(values, "self BEGINSWITH 'a'", NULL, 0) != NULL, FIEF_ERR_QUERY_INVALID, "Bag.ints");
    EERR(fief_results_filter(values, "self >", NULL, 0) != NULL, FIEF_ERR_QUERY_SYNTAX);
    /* `self.` starts a key path (a property named "self", as in realm-core): values have no properties. */
    EERRM(fief_results_filter(values, "self.x > 1", NULL, 0) != NULL, FIEF_ERR_QUERY_INVALID, "compare 'self' instead");
    fief_value_t sarg = vs("x");
    fief_query_arg_t args[1] = {{1, false, &sarg}};
    EERR(fief_results_filter(values, "self == $0", args, 1) != NULL, FIEF_ERR_QUERY_ARGUMENT);
    EERRM(fief_results_filter(objects, "self > 1", NULL, 0) != NULL, FIEF_ERR_QUERY_INVALID, "'self'");
    fief_sort_descriptor_t by_i = {"i", true};
    EERRM(fief_results_sort(values, &by_i, 1) != NULL, FIEF_ERR_QUERY_INVALID, "'self'");
    fief_sort_descriptor_t twice[2] = {{"self", true}, {"self", false}};
    EERR(fief_results_sort(values, twice, 2) != NULL, FIEF_ERR_QUERY_INVALID);
    fief_sort_descriptor_t by_self = {"self", true};
    EERR(fief_results_sort(objects, &by_self, 1) != NULL, FIEF_ERR_QUERY_INVALID);

    /* The owner deleted: every read fails, nothing crashes. */
    fief_results_t *filtered = fief_results_filter(values, "self > 1", NULL, 0);
    R(filtered != NULL);
    EQU(t_count(filtered), 2);
    R(fief_realm_begin_write(x.r));
    E(fief_object_delete(x.bag_object));
    size_t n = 9;
    EERR(fief_results_count(values, &n), FIEF_ERR_INVALIDATED_OBJECT);
    EERR(fief_results_count(filtered, &n), FIEF_ERR_INVALIDATED_OBJECT);
    EERR(fief_results_get_value(filtered, 0, &out), FIEF_ERR_INVALIDATED_OBJECT);
    EERR(fief_results_aggregate(values, 0, FIEF_AGGREGATE_SUM, &out), FIEF_ERR_INVALIDATED_OBJECT);
    EERR(fief_results_index_of_value(values, vi(1), &index, &found), FIEF_ERR_INVALIDATED_OBJECT);
    EERR(fief_list_to_results(li) != NULL, FIEF_ERR_INVALIDATED_OBJECT);
    R(fief_realm_cancel(x.r));
    EQU(n, 9);
    EQV(out, vi(42));
    EQU(t_count(filtered), 2);

    /* Released handles. */
    E(fief_release(filtered));
    EERR(fief_results_count(filtered, &n), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_results_get_value(filtered, 0, &out), FIEF_ERR_INVALID_HANDLE);
    EERR(fief_results_filter(filtered, "self > 1", NULL, 0) != NULL, FIEF_ERR_INVALID_HANDLE);
    EERR(fief_release(filtered), FIEF_ERR_INVALID_HANDLE);
    E(!fief_results_is_valid(filtered));
    /* A list handle is not results. */
    EERR(fief_results_get_value((const fief_results_t *)li, 0, &out), FIEF_ERR_WRONG_HANDLE_TYPE);
    EQV(out, vi(42));

    /* The list itself is unchanged. */
    EQU(t_count(values), 3);
    EQV(rget(values, 2), vi(3));

    fief_release(item);
    fief_release(objects);
    fief_release(values);
    fief_release(li);
    release_items(&x);
}

static const t_case cases[] = {
    T(aggregates_over_class_results),
    T(aggregates_over_links_and_backlinks),
    T(aggregates_of_empty_class),
    T(aggregates_refuse_bad_input),
    T(aggregates_over_lists_of_values),
    T(value_results_read_filter_sort),
    T(value_results_of_strings_and_freeze),
    T(value_results_refuse_bad_input),
};

int main(int argc, char **argv) { return T_MAIN(argc, argv, cases); }
