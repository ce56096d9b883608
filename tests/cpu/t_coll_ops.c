/* Every predefined reduction operation on every predefined datatype it is
 * defined for (MPI 4.0 §6.9.2), through MPIX_Pallreduce_init and
 * MPIX_Preduce_init on host buffers, compared with MPI_Allreduce and
 * MPI_Reduce on the same data; values change per rank, epoch, partition and
 * element, partitions are made ready in a random order. Then the
 * combinations the standard leaves undefined, and MPI_REPLACE / MPI_NO_OP
 * (accumulate operations only), must give MPI_ERR_OP.
 *   t_coll_ops [-p PARTITIONS] [-n COUNT] [-e EPOCHS] */
#include "../tutil.h"
#include <complex.h>
#include <mpix_part.h>
#include <stdbool.h>

typedef struct { int v, i; } t_2int;
typedef struct { short v; int i; } t_short_int;
typedef struct { long v; int i; } t_long_int;
typedef struct { float v; int i; } t_float_int;
typedef struct { double v; int i; } t_double_int;
typedef struct { long double v; int i; } t_long_double_int;

/* Small values: sums of 8 ranks fit a signed char, products (of 1 and 2)
 * too, floating point stays exact in any order. */
static int small(int rank, int e, int p, int j, int op_prod)
{
    int v = (int) ((uint32_t) t_value(rank, e, p, j) % 13u);
    return op_prod ? 1 + (v & 1) : v;
}

/* Element j of a buffer of C type T: set from an int, compare by value. */
#define T_EQ(NAME, T)                                                                  \
    static bool eq_##NAME(const void *a, const void *b, size_t j)                      \
    {                                                                                  \
        return ((const T *) a)[j] == ((const T *) b)[j];                               \
    }
#define T_SCALAR(NAME, T)                                                              \
    static void set_##NAME(void *b, size_t j, int v) { ((T *) b)[j] = (T) v; }         \
    T_EQ(NAME, T)
#define T_COMPLEX(NAME, T, R)                                                          \
    static void set_##NAME(void *b, size_t j, int v)                                   \
    {                                                                                  \
        ((T *) b)[j] = (R) (v % 3) + (R) (v / 5) * I;                                  \
    }                                                                                  \
    T_EQ(NAME, T)
/* Pairs for MAXLOC/MINLOC: the value, and the rank as the index. */
#define T_PAIR(NAME, T, V)                                                             \
    static void set_##NAME(void *b, size_t j, int v)                                   \
    {                                                                                  \
        int r;                                                                         \
        MPI_Comm_rank(MPI_COMM_WORLD, &r);                                             \
        ((T *) b)[j].v = (V) (v % 4);                                                  \
        ((T *) b)[j].i = r;                                                            \
    }                                                                                  \
    static bool eq_##NAME(const void *a, const void *b, size_t j)                      \
    {                                                                                  \
        return ((const T *) a)[j].v == ((const T *) b)[j].v &&                         \
               ((const T *) a)[j].i == ((const T *) b)[j].i;                           \
    }

T_SCALAR(schar, signed char)
T_SCALAR(uchar, unsigned char)
T_SCALAR(short, short)
T_SCALAR(ushort, unsigned short)
T_SCALAR(int, int)
T_SCALAR(uint, unsigned)
T_SCALAR(long, long)
T_SCALAR(ulong, unsigned long)
T_SCALAR(llong, long long)
T_SCALAR(ullong, unsigned long long)
T_SCALAR(i8, int8_t)
T_SCALAR(u8, uint8_t)
T_SCALAR(i16, int16_t)
T_SCALAR(u16, uint16_t)
T_SCALAR(i32, int32_t)
T_SCALAR(u32, uint32_t)
T_SCALAR(i64, int64_t)
T_SCALAR(u64, uint64_t)
T_SCALAR(float, float)
T_SCALAR(double, double)
T_SCALAR(ldouble, long double)
T_SCALAR(cbool, bool)
T_SCALAR(byte, unsigned char)
T_COMPLEX(fcomplex, float _Complex, float)
T_COMPLEX(dcomplex, double _Complex, double)
T_PAIR(two_int, t_2int, int)
T_PAIR(short_int, t_short_int, short)
T_PAIR(long_int, t_long_int, long)
T_PAIR(float_int, t_float_int, float)
T_PAIR(double_int, t_double_int, double)
T_PAIR(ldouble_int, t_long_double_int, long double)

/* Operation groups of MPI 4.0 §6.9.2 */
enum { G_INT = 1, G_FLOAT = 2, G_COMPLEX = 4, G_LOGICAL = 8, G_BYTE = 16, G_PAIR = 32 };

typedef struct {
    const char *name;
    MPI_Datatype type;
    size_t size;
    int group;
    void (*set)(void *, size_t, int);
    bool (*eq)(const void *, const void *, size_t);
} t_type;

#define T_TYPE(MPIT, NAME, T, G) {#MPIT, MPIT, sizeof(T), G, set_##NAME, eq_##NAME}

typedef struct {
    const char *name;
    MPI_Op op;
    int groups; /* the groups it is defined on */
} t_op;

int main(int argc, char **argv)
{
    int parts = 3, count = 5, epochs = 4, opt, rank, size, cases = 0;
    while ((opt = getopt(argc, argv, "p:n:e:")) != -1) {
        switch (opt) {
        case 'p': parts = atoi(optarg); break;
        case 'n': count = atoi(optarg); break;
        case 'e': epochs = atoi(optarg); break;
        default: return 2;
        }
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const t_type types[] = {
        T_TYPE(MPI_SIGNED_CHAR, schar, signed char, G_INT),
        T_TYPE(MPI_UNSIGNED_CHAR, uchar, unsigned char, G_INT),
        T_TYPE(MPI_SHORT, short, short, G_INT),
        T_TYPE(MPI_UNSIGNED_SHORT, ushort, unsigned short, G_INT),
        T_TYPE(MPI_INT, int, int, G_INT),
        T_TYPE(MPI_UNSIGNED, uint, unsigned, G_INT),
        T_TYPE(MPI_LONG, long, long, G_INT),
        T_TYPE(MPI_UNSIGNED_LONG, ulong, unsigned long, G_INT),
        T_TYPE(MPI_LONG_LONG, llong, long long, G_INT),
        T_TYPE(MPI_UNSIGNED_LONG_LONG, ullong, unsigned long long, G_INT),
        T_TYPE(MPI_INT8_T, i8, int8_t, G_INT),
        T_TYPE(MPI_UINT8_T, u8, uint8_t, G_INT),
        T_TYPE(MPI_INT16_T, i16, int16_t, G_INT),
        T_TYPE(MPI_UINT16_T, u16, uint16_t, G_INT),
        T_TYPE(MPI_INT32_T, i32, int32_t, G_INT),
        T_TYPE(MPI_UINT32_T, u32, uint32_t, G_INT),
        T_TYPE(MPI_INT64_T, i64, int64_t, G_INT),
        T_TYPE(MPI_UINT64_T, u64, uint64_t, G_INT),
        T_TYPE(MPI_FLOAT, float, float, G_FLOAT),
        T_TYPE(MPI_DOUBLE, double, double, G_FLOAT),
        T_TYPE(MPI_LONG_DOUBLE, ldouble, long double, G_FLOAT),
        T_TYPE(MPI_C_FLOAT_COMPLEX, fcomplex, float _Complex, G_COMPLEX),
        T_TYPE(MPI_C_DOUBLE_COMPLEX, dcomplex, double _Complex, G_COMPLEX),
        T_TYPE(MPI_C_BOOL, cbool, bool, G_LOGICAL),
        T_TYPE(MPI_BYTE, byte, unsigned char, G_BYTE),
        T_TYPE(MPI_2INT, two_int, t_2int, G_PAIR),
        T_TYPE(MPI_SHORT_INT, short_int, t_short_int, G_PAIR),
        T_TYPE(MPI_LONG_INT, long_int, t_long_int, G_PAIR),
        T_TYPE(MPI_FLOAT_INT, float_int, t_float_int, G_PAIR),
        T_TYPE(MPI_DOUBLE_INT, double_int, t_double_int, G_PAIR),
        T_TYPE(MPI_LONG_DOUBLE_INT, ldouble_int, t_long_double_int, G_PAIR),
    };
    const t_op ops[] = {
        {"MPI_MAX", MPI_MAX, G_INT | G_FLOAT},
        {"MPI_MIN", MPI_MIN, G_INT | G_FLOAT},
        {"MPI_SUM", MPI_SUM, G_INT | G_FLOAT | G_COMPLEX},
        {"MPI_PROD", MPI_PROD, G_INT | G_FLOAT | G_COMPLEX},
        {"MPI_LAND", MPI_LAND, G_INT | G_LOGICAL},
        {"MPI_LOR", MPI_LOR, G_INT | G_LOGICAL},
        {"MPI_LXOR", MPI_LXOR, G_INT | G_LOGICAL},
        {"MPI_BAND", MPI_BAND, G_INT | G_BYTE},
        {"MPI_BOR", MPI_BOR, G_INT | G_BYTE},
        {"MPI_BXOR", MPI_BXOR, G_INT | G_BYTE},
        {"MPI_MAXLOC", MPI_MAXLOC, G_PAIR},
        {"MPI_MINLOC", MPI_MINLOC, G_PAIR},
    };
    const size_t ntypes = sizeof(types) / sizeof(types[0]), nops = sizeof(ops) / sizeof(ops[0]);
    size_t n = (size_t) parts * count;
    int *order = malloc(sizeof(int) * parts);
    unsigned seed = 4321u + 31u * rank;
    int root = size - 1;

    for (size_t o = 0; o < nops; ++o) {
        for (size_t t = 0; t < ntypes; ++t) {
            const t_type *ty = &types[t];
            if (!(ops[o].groups & ty->group)) continue;
            for (int reduce = 0; reduce < 2; ++reduce) {
                char *sbuf = calloc(n, ty->size), *rbuf = calloc(n, ty->size);
                char *ref = calloc(n, ty->size);
                MPI_Request req;
                bool check = !reduce || rank == root;
                ++cases;
                if (reduce) {
                    T_MPI(MPIX_Preduce_init(sbuf, rbuf, parts, count, ty->type, ops[o].op, root,
                                            MPI_COMM_WORLD, MPI_INFO_NULL, &req));
                } else {
                    T_MPI(MPIX_Pallreduce_init(sbuf, rbuf, parts, count, ty->type, ops[o].op,
                                               MPI_COMM_WORLD, MPI_INFO_NULL, &req));
                }
                for (int e = 1; e <= epochs; ++e) {
                    for (size_t j = 0; j < n; ++j) {
                        ty->set(sbuf, j, small(rank, e, (int) (j / count), (int) j,
                                               MPI_PROD == ops[o].op));
                    }
                    memset(rbuf, 0x5a, n * ty->size);
                    if (reduce) {
                        T_MPI(MPI_Reduce(sbuf, ref, (int) n, ty->type, ops[o].op, root,
                                         MPI_COMM_WORLD));
                    } else {
                        T_MPI(MPI_Allreduce(sbuf, ref, (int) n, ty->type, ops[o].op,
                                            MPI_COMM_WORLD));
                    }
                    T_MPI(MPI_Start(&req));
                    for (int p = 0; p < parts; ++p) order[p] = p;
                    t_shuffle(order, parts, &seed);
                    for (int p = 0; p < parts; ++p) T_MPI(MPI_Pready(order[p], req));
                    T_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
                    for (size_t j = 0; check && j < n; ++j) {
                        if (!ty->eq(rbuf, ref, j)) {
                            T_CHECK(0, "%s %s on %s, epoch %d: element %zu differs",
                                    reduce ? "MPIX_Preduce_init" : "MPIX_Pallreduce_init",
                                    ops[o].name, ty->name, e, j);
                            break;
                        }
                    }
                }
                T_MPI(MPI_Request_free(&req));
                free(sbuf);
                free(rbuf);
                free(ref);
            }
        }
    }

    /* Undefined combinations: MPI_ERR_OP through the error handler. */
    const struct {
        MPI_Op op;
        MPI_Datatype type;
        const char *what;
    } bad[] = {
        {MPI_BAND, MPI_DOUBLE, "MPI_BAND on MPI_DOUBLE"},
        {MPI_MAXLOC, MPI_INT, "MPI_MAXLOC on MPI_INT"},
        {MPI_SUM, MPI_C_BOOL, "MPI_SUM on MPI_C_BOOL"},
        {MPI_MAX, MPI_C_DOUBLE_COMPLEX, "MPI_MAX on MPI_C_DOUBLE_COMPLEX"},
        {MPI_REPLACE, MPI_INT, "MPI_REPLACE"},
        {MPI_NO_OP, MPI_INT, "MPI_NO_OP"},
        {MPI_OP_NULL, MPI_INT, "MPI_OP_NULL"},
    };
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); ++b) {
        double buf[8], out[8];
        MPI_Request req = MPI_REQUEST_NULL;
        int rc = MPIX_Pallreduce_init(buf, out, 2, 2, bad[b].type, bad[b].op, MPI_COMM_WORLD,
                                      MPI_INFO_NULL, &req), cls = -1;
        MPI_Error_class(rc, &cls);
        T_CHECK(MPI_ERR_OP == cls, "MPIX_Pallreduce_init with %s gave class %d", bad[b].what,
                cls);
        if (MPI_SUCCESS == rc) MPI_Request_free(&req);
        req = MPI_REQUEST_NULL;
        rc = MPIX_Preduce_init(buf, out, 2, 2, bad[b].type, bad[b].op, 0, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &req);
        MPI_Error_class(rc, &cls);
        T_CHECK(MPI_ERR_OP == cls, "MPIX_Preduce_init with %s gave class %d", bad[b].what, cls);
        if (MPI_SUCCESS == rc) MPI_Request_free(&req);
    }
    if (0 == rank) printf("t_coll_ops: %d operation/datatype cases\n", cases);
    free(order);
    return t_finish("t_coll_ops");
}
