/* The MPI extension "part" (MPIX_ bindings in <mpi-ext.h>): which error
 * handler reports what, the profiling names, the layout check of device
 * requests, and, with -x (run with --mca part persist), that every call
 * fails cleanly with MPI_ERR_UNSUPPORTED_OPERATION where the selected part
 * component lacks it. Errors without a handle go where Open MPI sends
 * those of its own bindings: MPI_COMM_WORLD's handler in its MPI-3
 * compatibility mode (MCA mpi_compat_mpi3, default 1 in Open MPI 5.0),
 * MPI_COMM_SELF's (MPI 4.1 §9.3) with -s (run with mpi_compat_mpi3 0). */
#include "../tutil.h"
#include <mpi-ext.h>

#if !defined(OMPI_HAVE_MPI_EXT_PART) || !OMPI_HAVE_MPI_EXT_PART
#error "mpi-ext.h does not declare the MPI extension part"
#endif
#ifndef MPIX_PREQUEST_LAYOUT
#error "mpi-ext.h lacks MPIX_PREQUEST_LAYOUT"
#endif

/* Which handler saw how many errors, and the class of the last one. */
enum { H_WORLD, H_SELF, H_COMM, H_N };
static int h_count[H_N], h_class[H_N];

static void h_record(int h, int *code)
{
    ++h_count[h];
    MPI_Error_class(*code, &h_class[h]);
}
static void h_world(MPI_Comm *c, int *code, ...) { (void) c; h_record(H_WORLD, code); }
static void h_self(MPI_Comm *c, int *code, ...) { (void) c; h_record(H_SELF, code); }
static void h_comm(MPI_Comm *c, int *code, ...) { (void) c; h_record(H_COMM, code); }

/* `call` must fail with class `want`, reported once, through handler `h`
 * only. */
#define T_HANDLER(call, want, h)                                                     \
    do {                                                                             \
        int _before[H_N];                                                            \
        memcpy(_before, h_count, sizeof(_before));                                   \
        int _c = t_class(call);                                                      \
        T_CHECK(_c == (want), "%s gave class %d, expected %s (%d)", #call, _c, #want, \
                (int) (want));                                                       \
        for (int _h = 0; _h < H_N; ++_h) {                                           \
            int _n = h_count[_h] - _before[_h], _w = (_h == (h)) ? 1 : 0;             \
            T_CHECK(_n == _w, "%s: handler %d called %d times, expected %d", #call, _h, \
                    _n, _w);                                                         \
        }                                                                            \
        T_CHECK(h_class[h] == (want), "%s: handler %d saw class %d", #call, (h),     \
                h_class[h]);                                                         \
    } while (0)

/* A tool's wrapper: the program's MPIX_Pbuf_prepare takes the place of
 * libmpi's, and reaches the implementation through PMPIX_Pbuf_prepare. */
static int wrapped;
int MPIX_Pbuf_prepare(MPI_Request *request)
{
    ++wrapped;
    return PMPIX_Pbuf_prepare(request);
}

int main(int argc, char **argv)
{
    int other = 0, noh = H_WORLD;
    int unsupported = MPI_ERR_UNSUPPORTED_OPERATION;
    int rank, size, buf[8], rbuf[8], one = 1, sum = 0;
    MPI_Errhandler eh[H_N];
    MPI_Request req[2], r = MPI_REQUEST_NULL;
    MPIX_Prequest preq = NULL, stale = (MPIX_Prequest) (uintptr_t) 4096;
    MPI_Comm comm;

    for (int i = 1; i < argc; ++i) {
        other |= (0 == strcmp(argv[i], "-x"));
        if (0 == strcmp(argv[i], "-s")) noh = H_SELF;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    T_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    T_MPI(MPI_Comm_create_errhandler(h_world, &eh[H_WORLD]));
    T_MPI(MPI_Comm_create_errhandler(h_self, &eh[H_SELF]));
    T_MPI(MPI_Comm_create_errhandler(h_comm, &eh[H_COMM]));
    T_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh[H_WORLD]));
    T_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, eh[H_SELF]));
    T_MPI(MPI_Comm_set_errhandler(comm, eh[H_COMM]));

    /* Errors without a handle, whichever part component is selected:
     * where MPI_Psend_init's go. */
    T_HANDLER(MPI_Psend_init(buf, 1, 1, MPI_INT, 0, 0, MPI_COMM_NULL, MPI_INFO_NULL, &r),
              MPI_ERR_COMM, noh);
    T_HANDLER(MPIX_Pbuf_prepareall(-1, NULL), MPI_ERR_ARG, noh);
    T_HANDLER(MPIX_Pbuf_prepareall(2, NULL), MPI_ERR_ARG, noh);
    T_HANDLER(MPIX_Pbuf_prepare(NULL), MPI_ERR_ARG, noh);
    T_HANDLER(MPIX_Pbuf_prepare(&r), MPI_ERR_REQUEST, noh);
    T_HANDLER(MPIX_Prequest_free(NULL), MPI_ERR_ARG, noh);
    T_HANDLER(MPIX_Prequest_free(&preq), MPI_ERR_ARG, noh); /* NULL handle */
    T_HANDLER(MPIX_Prequest_create(MPI_REQUEST_NULL, &preq), MPI_ERR_REQUEST, noh);
    T_HANDLER(MPIX_Pallreduce_init(buf, rbuf, 1, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL,
                                   MPI_INFO_NULL, &r), MPI_ERR_COMM, noh);
    /* A handle no device request has: the component cannot name its
     * request (part/persist has no device requests at all). */
    T_HANDLER(MPIX_Prequest_free(&stale), other ? unsupported : MPI_ERR_ARG, noh);
    T_CHECK((MPIX_Prequest) (uintptr_t) 4096 == stale, "a failed free changed the handle");

    /* Errors of a collective init: the communicator's handler on every
     * rank (a count one rank alone gets wrong fails them all, with its class). */
    T_HANDLER(MPIX_Pallreduce_init(buf, rbuf, 1, 0 == rank ? -1 : 1, MPI_INT, MPI_SUM, comm,
                                   MPI_INFO_NULL, &r),
              other ? unsupported : MPI_ERR_COUNT, H_COMM);
    T_HANDLER(MPIX_Pbcast_init(buf, 1, 1, MPI_INT, size, comm, MPI_INFO_NULL, &r),
              other ? unsupported : MPI_ERR_ROOT, H_COMM);
    if (other) {
        T_HANDLER(MPIX_Preduce_init(buf, rbuf, 1, 1, MPI_INT, MPI_SUM, 0, comm, MPI_INFO_NULL,
                                    &r), unsupported, H_COMM);
        T_HANDLER(MPIX_Pallgather_init(buf, rbuf, 1, 1, MPI_INT, comm, MPI_INFO_NULL, &r),
                  unsupported, H_COMM);
        T_HANDLER(MPIX_Palltoall_init(buf, rbuf, 1, 1, MPI_INT, comm, MPI_INFO_NULL, &r),
                  unsupported, H_COMM);
        T_CHECK(MPI_REQUEST_NULL == r, "a failed init set its request");
    } else {
        /* through the profiling name: a collective that works */
        T_MPI(PMPIX_Pallreduce_init(&one, &sum, 1, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r));
        T_MPI(MPI_Start(&r));
        T_MPI(MPI_Pready(0, r));
        T_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        T_CHECK(size == sum, "allreduce of ones: %d, not %d", sum, size);
        T_MPI(MPI_Request_free(&r));
    }

    /* Errors about a partitioned request: its communicator's handler. */
    int dst = (rank + 1) % size, src = (rank - 1 + size) % size;
    T_MPI(MPI_Psend_init(buf, 2, 4, MPI_INT, dst, 7, comm, MPI_INFO_NULL, &req[0]));
    T_MPI(MPI_Precv_init(rbuf, 2, 4, MPI_INT, src, 7, comm, MPI_INFO_NULL, &req[1]));
    T_MPI(MPI_Startall(2, req));
    T_HANDLER(MPIX_Prequest_create(req[0], NULL), MPI_ERR_ARG, H_COMM);
    /* a program compiled against another layout of the device request */
    T_HANDLER(MPIX_Prequest_create_layout(req[0], &preq, MPIX_PREQUEST_LAYOUT + 1), unsupported,
              H_COMM);
    T_CHECK(NULL == preq, "a refused MPIX_Prequest_create set its handle");
    if (other) {
        T_HANDLER(MPIX_Pbuf_prepare(&req[0]), unsupported, H_COMM);
        T_HANDLER(MPIX_Pbuf_prepareall(2, req), unsupported, H_COMM);
        T_HANDLER(MPIX_Prequest_create(req[1], &preq), unsupported, H_COMM);
    } else {
        T_MPI(MPIX_Pbuf_prepareall(2, req));
        int w = wrapped;
        T_MPI(MPIX_Pbuf_prepare(&req[0]));
        T_CHECK(w + 1 == wrapped, "MPIX_Pbuf_prepare passed the program's wrapper %d times",
                wrapped - w);
    }
    for (int i = 0; i < 8; ++i) buf[i] = t_value(rank, 1, i / 4, i);
    T_MPI(MPI_Pready_range(0, 1, req[0]));
    T_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 8; ++i) {
        T_CHECK(rbuf[i] == t_value(src, 1, i / 4, i), "elem %d: %d", i, rbuf[i]);
    }
    T_MPI(MPI_Request_free(&req[0]));
    T_MPI(MPI_Request_free(&req[1]));
    T_CHECK(H_SELF != noh || 0 == h_count[H_WORLD], "MPI_COMM_WORLD's handler saw %d errors",
            h_count[H_WORLD]);

    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    for (int h = 0; h < H_N; ++h) MPI_Errhandler_free(&eh[h]);
    MPI_Comm_free(&comm);
    return t_finish(other ? "t_mpiext -x" : "t_mpiext");
}
