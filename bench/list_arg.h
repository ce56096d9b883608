/* Comma-separated number lists on the command line of the benchmarks that
 * run without MPI (b_lines, b_links). */
#ifndef BENCH_LIST_ARG_H
#define BENCH_LIST_ARG_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Up to `max` numbers of `arg` ("1,4,0x10") into v; how many. */
static inline int bench_list_arg(const char *arg, uint64_t *v, int max)
{
    int k = 0;
    char *copy = strdup(arg), *tok, *save = NULL;

    for (tok = strtok_r(copy, ",", &save); tok && k < max; tok = strtok_r(NULL, ",", &save)) {
        v[k++] = strtoull(tok, NULL, 0);
    }
    free(copy);
    return k;
}

#endif /* BENCH_LIST_ARG_H */
