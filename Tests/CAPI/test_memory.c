/* A write transaction's working memory goes back to the system when it
 * ends: after a large commit or cancel the process's private memory
 * (RssAnon) stays close to where it was.  (It broke: about 119 MiB taken
 * by a 1,000,000-object insert stayed with the process after the commit.)
 * The bound, 10 MiB for 200,000 objects, allows for LMDB's own pool of
 * single pages, which it keeps for the next transaction (measured: 8 MiB
 * after the commit, 2 MiB after the cancel); without giving memory back
 * the growth was 18 and 12.5 MiB. */
#include "fief_test.h"

#include <stdlib.h>

#define N 200000

static long anon_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "RssAnon:", 8) == 0) kib = atol(line + 8);
    }
    if (f) fclose(f);
    return kib;
}

static void insert(fief_realm_t *r, bool commit) {
    fief_class_key_t cls = t_class(r, "AllTypes");
    fief_property_key_t k[4] = {t_prop(r, "AllTypes", "id"), t_prop(r, "AllTypes", "s"), t_prop(r, "AllTypes", "i"),
                                t_prop(r, "AllTypes", "os")};
    fief_value_t *v = calloc((size_t)N * 4, sizeof *v);
    char *names = malloc((size_t)N * 8);
    E(v != NULL && names != NULL);
    for (size_t i = 0; i < N; i++) {
        for (int b = 0; b < 8; b++) names[i * 8 + b] = (char)('a' + (i * 7 + (size_t)b * 13) % 26);
        v[i * 4] = vi((int64_t)i + 1);
        v[i * 4 + 1] = vsn(names + i * 8, 8);
        v[i * 4 + 2] = vi((int64_t)(i % 20));
        v[i * 4 + 3] = vs("brown");
    }
    long before = anon_kib();
    E(fief_realm_begin_write(r));
    E(fief_object_create_many(r, cls, k, 4, v, N, FIEF_UPDATE_POLICY_ERROR, NULL));
    long during = anon_kib();
    if (commit) {
        E(fief_realm_commit(r));
    } else {
        E(fief_realm_cancel(r));
    }
    long after = anon_kib();
    printf("%s: RssAnon %ld KiB before, %ld during, %ld after (growth %ld KiB)\n", commit ? "commit" : "cancel", before,
           during, after, after - before);
    E(before > 0 && after > 0);
    E(during - before > 8 * 1024); /* the transaction did use memory */
    E(after - before < 10 * 1024);
    free(names);
    free(v);
}

TEST(large_commit_returns_memory) {
    fief_realm_t *r = t_open_std();
    E(r != NULL);
    insert(r, true);
    EQI(t_count_class(r, t_class(r, "AllTypes")), N);
    fief_release(r);
}

TEST(large_cancel_returns_memory) {
    fief_realm_t *r = t_open_std();
    E(r != NULL);
    insert(r, false);
    EQI(t_count_class(r, t_class(r, "AllTypes")), 0);
    fief_release(r);
}

int main(int argc, char **argv) {
    static const t_case cases[] = {T(large_commit_returns_memory), T(large_cancel_returns_memory)};
    return T_MAIN(argc, argv, cases);
}
