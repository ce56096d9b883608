/* Shared helpers of the part/ucx tests: every value moved depends on the
 * sender, the epoch, the partition and the element, so stale or misplaced
 * data is caught. */
#ifndef TUTIL_H
#define TUTIL_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int t_failures = 0;

#define T_CHECK(cond, ...)                                                     \
    do {                                                                       \
        if (!(cond)) {                                                         \
            int _r;                                                            \
            MPI_Comm_rank(MPI_COMM_WORLD, &_r);                                \
            fprintf(stderr, "[rank %d] %s:%d: check failed: %s: ", _r,         \
                    __FILE__, __LINE__, #cond);                                \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
            ++t_failures;                                                      \
        }                                                                      \
    } while (0)

#define T_MPI(call)                                                            \
    do {                                                                       \
        int _rc = (call);                                                      \
        if (MPI_SUCCESS != _rc) {                                              \
            char _s[MPI_MAX_ERROR_STRING];                                     \
            int _l;                                                            \
            MPI_Error_string(_rc, _s, &_l);                                    \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,      \
                    #call, _s);                                                \
            MPI_Abort(MPI_COMM_WORLD, 2);                                      \
        }                                                                      \
    } while (0)

/* The error class of a return code (MPI_SUCCESS stays itself). */
static inline int t_class(int rc)
{
    int c = rc;
    if (MPI_SUCCESS != rc) MPI_Error_class(rc, &c);
    return c;
}

/* A call that must fail with (or succeed as) class `want`. */
#define T_EXPECT(call, want)                                                   \
    do {                                                                       \
        int _c = t_class(call);                                                \
        T_CHECK(_c == (want), "%s gave class %d, expected %s (%d)", #call, _c, \
                #want, (int) (want));                                          \
    } while (0)

static inline int32_t t_value(int src, long epoch, long part, long idx)
{
    uint32_t v = (uint32_t) src * 2654435761u ^ (uint32_t) epoch * 40503u ^
                 (uint32_t) part * 977u ^ (uint32_t) idx * 13u;
    return (int32_t) (v ^ (v >> 15));
}

/* Deterministic per-rank shuffle, for random MPI_Pready orders. */
static inline void t_shuffle(int *a, int n, unsigned *seed)
{
    for (int i = n - 1; i > 0; --i) {
        int j = rand_r(seed) % (i + 1), t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

/* ints int32 as one element followed by gap ints: partitions of count 1
 * that are each contiguous but lie apart (gap 0: plain contiguous). */
static inline MPI_Datatype t_block_type(int ints, int gap)
{
    MPI_Datatype t, r;
    MPI_Type_contiguous(ints, MPI_INT32_T, &t);
    if (0 == gap) return t;
    MPI_Type_create_resized(t, 0, (MPI_Aint) (ints + gap) * 4, &r);
    MPI_Type_free(&t);
    return r;
}

/* Strided layout of t_block_type (partitions of `ints` ints, `gap` ints
 * apart): the values of sender `rank` in epoch e into buf; gaps untouched. */
static inline void t_strided_fill(int32_t *buf, int rank, int e, int parts, int ints, int gap)
{
    for (long k = 0; k < (long) parts * ints; ++k) {
        long p = k / ints;
        buf[p * (ints + gap) + k % ints] = t_value(rank, e, p, k);
    }
}

/* Receive partition q of `rints` ints (`rgap` apart, gaps filled with -5)
 * holds what sender src (`ints` per sender partition) sent in epoch e. */
static inline void t_strided_check(const int32_t *rbuf, int src, int e, int q, int ints,
                                   int rints, int rgap)
{
    for (long i = 0; i < rints; ++i) {
        long k = (long) q * rints + i;
        int32_t want = t_value(src, e, k / ints, k);
        if (rbuf[(long) q * (rints + rgap) + i] != want) {
            T_CHECK(0, "epoch %d: partition %d int %ld is %d, not %d", e, q, i,
                    rbuf[(long) q * (rints + rgap) + i], want);
            break;
        }
    }
    for (long g = 0; g < rgap; ++g) {
        T_CHECK(-5 == rbuf[(long) q * (rints + rgap) + rints + g],
                "epoch %d: gap after partition %d written", e, q);
    }
}

/* Every rank's failures decide the exit status of every rank. */
/* t_strided and g_strided: -p SENDER_PARTS -q RECEIVER_PARTS -n INTS per
 * sender partition -s SENDER_GAP -r RECEIVER_GAP -e EPOCHS; 0, or 2 on an
 * unknown option. */
typedef struct {
    int sparts, rparts, ints, sgap, rgap, epochs;
} t_strided_opts_t;

static inline int t_strided_options(int argc, char **argv, t_strided_opts_t *o)
{
    int opt;

    while ((opt = getopt(argc, argv, "p:q:n:s:r:e:")) != -1) {
        switch (opt) {
        case 'p': o->sparts = atoi(optarg); break;
        case 'q': o->rparts = atoi(optarg); break;
        case 'n': o->ints = atoi(optarg); break;
        case 's': o->sgap = atoi(optarg); break;
        case 'r': o->rgap = atoi(optarg); break;
        case 'e': o->epochs = atoi(optarg); break;
        default: return 2;
        }
    }
    return 0;
}

/* part/ucx's state dump (what tools/hangdump.c prints), exported by
 * libmpi, not part of any MPI interface. */
#ifdef __cplusplus
extern "C" void mca_part_ucx_dump(void);
#else
void mca_part_ucx_dump(void);
#endif

/* What mca_part_ucx_dump writes to stderr, as a string (caller frees). */
static inline char *t_dump_text(void)
{
    FILE *tmp = tmpfile();
    int saved;
    long len;
    char *out;

    fflush(stderr);
    saved = dup(2);
    if (NULL == tmp || saved < 0 || dup2(fileno(tmp), 2) < 0) {
        return NULL;
    }
    mca_part_ucx_dump();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    len = ftell(tmp);
    out = (char *) calloc(1, (size_t) len + 1);
    rewind(tmp);
    if (NULL != out && len > 0 && 1 != fread(out, (size_t) len, 1, tmp)) {
        out[0] = '\0';
    }
    fclose(tmp);
    return out;
}

static inline void t_dump_expect(const char *text, const char *want)
{
    T_CHECK(NULL != text && NULL != strstr(text, want), "\"%s\" not in the dump:\n%s", want,
            text ? text : "(none)");
}

/* -V NAME=VALUE: MCA variable NAME set to VALUE in the odd ranks of
 * MPI_COMM_WORLD only (before MPI_Init, through the environment, where it
 * overrides mpirun's --mca): settings that should be the same everywhere
 * but are not. */
static inline void t_mca_odd_ranks(const char *assign)
{
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    char name[256];
    const char *eq = strchr(assign, '=');

    if (NULL == rank || 0 == atoi(rank) % 2 || NULL == eq ||
        (size_t) (eq - assign) + 9 > sizeof(name)) {
        return;
    }
    snprintf(name, sizeof(name), "OMPI_MCA_%.*s", (int) (eq - assign), assign);
    setenv(name, eq + 1, 1);
}

static inline int t_finish(const char *name)
{
    int total = 0, rank;
    MPI_Allreduce(&t_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (0 == rank) {
        printf("%s: %s (%d failed checks)\n", name, total ? "FAIL" : "OK", total);
    }
    MPI_Finalize();
    return total ? 1 : 0;
}

#endif
