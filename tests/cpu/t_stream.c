/* Streams of the MPI extension "part" on a node without a GPU:
 * MPIX_Info_set_hex's encoding, MPIX_Stream_create/free with good and bad
 * info, stream communicators (MPIX_Stream_comm_create) that carry
 * partitioned epochs on the host with their data checked (point-to-point
 * and a collective), a stream kept alive by its communicator after
 * MPIX_Stream_free, and every argument error of MPIX_Start(all)_enqueue /
 * MPIX_Wait(all)_enqueue with its class and the handler that reports it. The enqueue calls that pass the
 * binding's checks fail with MPI_ERR_UNSUPPORTED_OPERATION: here part/ucx
 * has no usable GPU, and part/persist (-x, run with --mca part persist)
 * has no entry for them.
 *
 * The CUDA streams are fake, well-formed cudaStream_t values (addresses
 * of this program's bytes): nothing dereferences them without a GPU.
 *
 * Errors are checked twice: with MPI_ERRORS_RETURN everywhere (the return
 * class), then with handlers that record the class (which handler saw it:
 * the request's communicator, or the one of errors without a handle). */
#include "../tutil.h"
#include <mpi-ext.h>

#define PARTS 4
#define COUNT 8
#define EPOCHS 5

/* Which handler saw how many errors, and the class of the last one. NOH:
 * errors without a handle (MPI_COMM_WORLD's and MPI_COMM_SELF's handlers:
 * which of the two depends on mpi_compat_mpi3). */
enum { H_NOH, H_PLAIN, H_S, H_S2, H_S3, H_LOCAL, H_NULL, H_DUP, H_N };
static int h_count[H_N], h_class[H_N];
static int recording;

static void h_record(int h, int *code)
{
    ++h_count[h];
    MPI_Error_class(*code, &h_class[h]);
}
#define HANDLER(name, h) \
    static void name(MPI_Comm *c, int *code, ...) { (void) c; h_record((h), code); }
HANDLER(h_noh, H_NOH)
HANDLER(h_plain, H_PLAIN)
HANDLER(h_s, H_S)
HANDLER(h_s2, H_S2)
HANDLER(h_s3, H_S3)
HANDLER(h_local, H_LOCAL)
HANDLER(h_null, H_NULL)
HANDLER(h_dup, H_DUP)

/* `call` gives class `want`; with recording handlers, reported once,
 * through handler `h` only. */
#define T_ERR(call, want, h)                                                         \
    do {                                                                             \
        int _before[H_N];                                                            \
        memcpy(_before, h_count, sizeof(_before));                                   \
        int _c = t_class(call);                                                      \
        T_CHECK(_c == (want), "%s gave class %d, expected %s (%d)", #call, _c, #want, \
                (int) (want));                                                       \
        for (int _h = 0; _h < H_N; ++_h) {                                           \
            int _n = h_count[_h] - _before[_h];                                      \
            int _w = (recording && _h == (h) && MPI_SUCCESS != (want)) ? 1 : 0;      \
            T_CHECK(_n == _w, "%s: handler %d called %d times, expected %d", #call, _h, \
                    _n, _w);                                                         \
        }                                                                            \
        if (recording && MPI_SUCCESS != (want)) {                                    \
            T_CHECK(h_class[h] == (want), "%s: handler %d saw class %d", #call, (h),  \
                    h_class[h]);                                                     \
        }                                                                            \
    } while (0)

/* Fake cudaStream_t values: two different streams. */
static char fake_streams[2];

static MPIX_Stream make_stream(void *cuda_stream)
{
    MPI_Info info;
    MPIX_Stream s = MPIX_STREAM_NULL;

    T_MPI(MPI_Info_create(&info));
    T_MPI(MPI_Info_set(info, "type", "cudaStream_t"));
    T_MPI(MPIX_Info_set_hex(info, "value", &cuda_stream, sizeof(cuda_stream)));
    T_MPI(MPIX_Stream_create(info, &s));
    T_MPI(MPI_Info_free(&info));
    T_CHECK(MPIX_STREAM_NULL != s, "MPIX_Stream_create gave MPIX_STREAM_NULL");
    return s;
}

/* MPIX_Stream_create of an info with "type" (NULL: none) and "value"
 * (NULL: none) as given. */
static int create_with(const char *type, const char *value, MPIX_Stream *s)
{
    MPI_Info info;
    int rc;

    T_MPI(MPI_Info_create(&info));
    if (NULL != type) T_MPI(MPI_Info_set(info, "type", type));
    if (NULL != value) T_MPI(MPI_Info_set(info, "value", value));
    rc = MPIX_Stream_create(info, s);
    T_MPI(MPI_Info_free(&info));
    return rc;
}

static void check_info_set_hex(void)
{
    const unsigned char bytes[] = {0x00, 0x0f, 0xa0, 0xff, 0x5c};
    char got[MPI_MAX_INFO_VAL + 1], want[2 * sizeof(void *) + 1];
    void *ptr = &fake_streams[1];
    const unsigned char *pb = (const unsigned char *) &ptr;
    int flag = 0, len = (int) sizeof(got);
    MPI_Info info;

    T_MPI(MPI_Info_create(&info));
    T_ERR(MPIX_Info_set_hex(info, "bytes", bytes, (int) sizeof(bytes)), MPI_SUCCESS, H_NOH);
    T_MPI(MPI_Info_get_string(info, "bytes", &len, got, &flag));
    T_CHECK(flag && 0 == strcmp(got, "000fa0ff5c"), "MPIX_Info_set_hex wrote \"%s\"", got);
    /* a pointer: its bytes in memory order */
    for (size_t i = 0; i < sizeof(ptr); ++i) snprintf(want + 2 * i, 3, "%02x", pb[i]);
    T_MPI(MPIX_Info_set_hex(info, "value", &ptr, (int) sizeof(ptr)));
    len = (int) sizeof(got);
    T_MPI(MPI_Info_get_string(info, "value", &len, got, &flag));
    T_CHECK(flag && 0 == strcmp(got, want), "pointer encoded as \"%s\", not \"%s\"", got, want);

    T_ERR(MPIX_Info_set_hex(MPI_INFO_NULL, "k", bytes, 1), MPI_ERR_INFO, H_NOH);
    T_ERR(MPIX_Info_set_hex(info, NULL, bytes, 1), MPI_ERR_INFO_KEY, H_NOH);
    T_ERR(MPIX_Info_set_hex(info, "", bytes, 1), MPI_ERR_INFO_KEY, H_NOH);
    char longkey[MPI_MAX_INFO_KEY + 2];
    memset(longkey, 'k', sizeof(longkey) - 1);
    longkey[sizeof(longkey) - 1] = '\0';
    T_ERR(MPIX_Info_set_hex(info, longkey, bytes, 1), MPI_ERR_INFO_KEY, H_NOH);
    T_ERR(MPIX_Info_set_hex(info, "k", NULL, 1), MPI_ERR_ARG, H_NOH);
    T_ERR(MPIX_Info_set_hex(info, "k", bytes, -1), MPI_ERR_ARG, H_NOH);
    T_ERR(MPIX_Info_set_hex(info, "k", bytes, 0), MPI_ERR_INFO_VALUE, H_NOH);
    static char big[MPI_MAX_INFO_VAL];
    T_ERR(MPIX_Info_set_hex(info, "k", big, MPI_MAX_INFO_VAL / 2), MPI_ERR_INFO_VALUE, H_NOH);
    T_MPI(MPI_Info_get_nkeys(info, &len));
    T_CHECK(2 == len, "failed calls left %d keys, not 2", len);
    T_MPI(MPI_Info_free(&info));
}

static void check_stream_create_free(void)
{
    MPIX_Stream s = MPIX_STREAM_NULL;
    char hex[2 * sizeof(void *) + 1], shorthex[2 * sizeof(void *) - 1];
    MPI_Info info;

    /* no accelerator stream: MPI_INFO_NULL, or an info without "type" */
    T_ERR(MPIX_Stream_create(MPI_INFO_NULL, &s), MPI_SUCCESS, H_NOH);
    T_ERR(MPIX_Stream_free(&s), MPI_SUCCESS, H_NOH);
    T_CHECK(MPIX_STREAM_NULL == s, "MPIX_Stream_free left the handle");
    T_ERR(create_with(NULL, "00", &s), MPI_SUCCESS, H_NOH);
    T_ERR(MPIX_Stream_free(&s), MPI_SUCCESS, H_NOH);

    /* a CUDA stream, the hex of the right size */
    memset(hex, '0', sizeof(hex) - 1);
    hex[sizeof(hex) - 1] = '\0';
    T_ERR(create_with("cudaStream_t", hex, &s), MPI_SUCCESS, H_NOH);
    T_ERR(MPIX_Stream_free(&s), MPI_SUCCESS, H_NOH);
    hex[3] = 'g';
    T_ERR(create_with("cudaStream_t", hex, &s), MPI_ERR_ARG, H_NOH);
    hex[3] = '0';
    hex[sizeof(hex) - 2] = '-';
    T_ERR(create_with("cudaStream_t", hex, &s), MPI_ERR_ARG, H_NOH);
    memset(shorthex, 'a', sizeof(shorthex) - 1);
    shorthex[sizeof(shorthex) - 1] = '\0';
    T_ERR(create_with("cudaStream_t", shorthex, &s), MPI_ERR_ARG, H_NOH);
    T_ERR(create_with("cudaStream_t", NULL, &s), MPI_ERR_ARG, H_NOH);
    T_ERR(create_with("hipStream_t", hex, &s), MPI_ERR_ARG, H_NOH);
    T_CHECK(MPIX_STREAM_NULL == s, "a failed MPIX_Stream_create set the handle");
    /* the value of another size, through MPIX_Info_set_hex */
    int small = 7;
    T_MPI(MPI_Info_create(&info));
    T_MPI(MPI_Info_set(info, "type", "cudaStream_t"));
    T_MPI(MPIX_Info_set_hex(info, "value", &small, (int) sizeof(small)));
    T_ERR(MPIX_Stream_create(info, &s), MPI_ERR_ARG, H_NOH);
    T_ERR(MPIX_Stream_create(info, NULL), MPI_ERR_ARG, H_NOH);
    T_MPI(MPI_Info_free(&info));

    T_ERR(MPIX_Stream_free(NULL), MPI_ERR_ARG, H_NOH);
    T_ERR(MPIX_Stream_free(&s), MPI_ERR_ARG, H_NOH); /* MPIX_STREAM_NULL */
    /* not a stream: zeroed memory where a stream's fields would be */
    static uint64_t zeros[16];
    MPIX_Stream bogus = (MPIX_Stream) (void *) zeros;
    T_ERR(MPIX_Stream_free(&bogus), MPI_ERR_ARG, H_NOH);
    T_CHECK((MPIX_Stream) (void *) zeros == bogus, "a failed free changed the handle");
}

/* `epochs` host epochs between rank and its neighbours on comm, every
 * element of every partition checked. */
static void host_epochs(MPI_Comm comm, int first_epoch, int epochs, MPI_Request req[2],
                        int32_t *sbuf, int32_t *rbuf)
{
    int rank, size;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int src = (rank - 1 + size) % size;
    for (int e = first_epoch; e < first_epoch + epochs; ++e) {
        T_MPI(MPI_Startall(2, req));
        for (int p = PARTS - 1; p >= 0; --p) {
            for (int i = 0; i < COUNT; ++i) sbuf[p * COUNT + i] = t_value(rank, e, p, i);
            T_MPI(MPI_Pready(p, req[0]));
        }
        T_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        for (int p = 0; p < PARTS; ++p) {
            for (int i = 0; i < COUNT; ++i) {
                int32_t want = t_value(src, e, p, i);
                T_CHECK(rbuf[p * COUNT + i] == want, "epoch %d partition %d element %d: %d, not %d",
                        e, p, i, rbuf[p * COUNT + i], want);
            }
        }
    }
}

static void init_pair(MPI_Comm comm, int32_t *sbuf, int32_t *rbuf, MPI_Request req[2])
{
    int rank, size;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    T_MPI(MPI_Psend_init(sbuf, PARTS, COUNT, MPI_INT32_T, (rank + 1) % size, 3, comm,
                         MPI_INFO_NULL, &req[0]));
    T_MPI(MPI_Precv_init(rbuf, PARTS, COUNT, MPI_INT32_T, (rank - 1 + size) % size, 3, comm,
                         MPI_INFO_NULL, &req[1]));
}

/* MPI_Psend_init (recv 0) or MPI_Precv_init (recv 1) from/to MPI_PROC_NULL. */
static int pinit(int recv, int32_t *buf, MPI_Comm comm, MPI_Info info, MPI_Request *r)
{
    return recv ? MPI_Precv_init(buf, PARTS, COUNT, MPI_INT32_T, MPI_PROC_NULL, 77, comm, info, r)
                : MPI_Psend_init(buf, PARTS, COUNT, MPI_INT32_T, MPI_PROC_NULL, 77, comm, info, r);
}

/* Info "mpix_stream_kernels" (part/ucx): a send or receive declared
 * stream-only never starts on the host (MPI_ERR_REQUEST, and the request
 * stays usable), and a value that is not a boolean is MPI_ERR_INFO_VALUE
 * at init. */
static void check_stream_kernels(MPI_Comm comm)
{
    int32_t buf[PARTS * COUNT] = {0};
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Info info;
    int flag = 0;

    T_MPI(MPI_Info_create(&info));
    for (int recv = 0; recv < 2; ++recv) {
        T_MPI(MPI_Info_set(info, "mpix_stream_kernels", "maybe"));
        T_EXPECT(pinit(recv, buf, comm, info, &r), MPI_ERR_INFO_VALUE);
        T_MPI(MPI_Info_set(info, "mpix_stream_kernels", "true"));
        /* MPI_Start reports it, and the request completes with it (Open
         * MPI's MPI_Wait then frees a request whose completion is an
         * error); MPI_Startall, which drops its callee's return code in
         * Open MPI, through the completion only */
        T_MPI(pinit(recv, buf, comm, info, &r));
        T_EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
        T_EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
        T_CHECK(MPI_REQUEST_NULL == r, "the failed request is still there (recv %d)", recv);
        T_MPI(pinit(recv, buf, comm, info, &r));
        (void) MPI_Startall(1, &r);
        T_EXPECT(MPI_Test(&r, &flag, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
        T_CHECK(flag && MPI_REQUEST_NULL == r,
                "a refused MPI_Startall did not complete with it (recv %d)", recv);
        /* not started at all: MPI_Request_free as for any inactive request */
        T_MPI(pinit(recv, buf, comm, info, &r));
        T_MPI(MPI_Request_free(&r));
        T_MPI(MPI_Info_set(info, "mpix_stream_kernels", "false"));
        T_MPI(pinit(recv, buf, comm, info, &r));
        T_MPI(MPI_Start(&r));
        T_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
        T_MPI(MPI_Request_free(&r));
    }
    /* a collective declared so: the same refusal (every rank calls it) */
    T_MPI(MPI_Info_set(info, "mpix_stream_kernels", "true"));
    T_MPI(MPIX_Pallreduce_init(MPI_IN_PLACE, buf, PARTS, COUNT, MPI_INT32_T, MPI_SUM, comm, info,
                               &r));
    T_EXPECT(MPI_Start(&r), MPI_ERR_REQUEST);
    T_EXPECT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
    T_CHECK(MPI_REQUEST_NULL == r, "the failed collective is still there");
    T_MPI(MPI_Info_free(&info));
}

int main(int argc, char **argv)
{
    int other = 0, unsupported = MPI_ERR_UNSUPPORTED_OPERATION;
    int32_t sbuf[6][PARTS * COUNT], rbuf[6][PARTS * COUNT];
    MPI_Comm plain, scomm, s2comm, s3comm, lcomm, ncomm, dupcomm;
    MPI_Request rq[6][2], preq, two[2], null = MPI_REQUEST_NULL;
    MPIX_Stream gstream, g2stream, g3stream, lstream = MPIX_STREAM_NULL;
    MPI_Errhandler eh[H_N];

    for (int i = 1; i < argc; ++i) other |= (0 == strcmp(argv[i], "-x"));
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* Streams and stream communicators (any part component). */
    check_info_set_hex();
    check_stream_create_free();
    T_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &plain));
    gstream = make_stream(&fake_streams[0]);
    g2stream = make_stream(&fake_streams[1]);
    g3stream = make_stream(&fake_streams[0]); /* another handle, the same CUDA stream */
    T_MPI(MPIX_Stream_create(MPI_INFO_NULL, &lstream));
    T_ERR(MPIX_Stream_comm_create(MPI_COMM_NULL, gstream, &scomm), MPI_ERR_COMM, H_NOH);
    T_ERR(MPIX_Stream_comm_create(plain, gstream, NULL), MPI_ERR_ARG, H_PLAIN);
    static uint64_t zeros[16];
    T_ERR(MPIX_Stream_comm_create(plain, (MPIX_Stream) (void *) zeros, &scomm), MPI_ERR_ARG,
          H_PLAIN);
    T_MPI(MPIX_Stream_comm_create(plain, gstream, &scomm));
    T_MPI(MPIX_Stream_comm_create(plain, g2stream, &s2comm));
    T_MPI(MPIX_Stream_comm_create(plain, g3stream, &s3comm));
    T_MPI(MPIX_Stream_comm_create(plain, lstream, &lcomm));
    T_MPI(MPIX_Stream_comm_create(plain, MPIX_STREAM_NULL, &ncomm));
    /* MPI_Comm_dup of a stream communicator: an ordinary communicator */
    T_MPI(MPI_Comm_dup(scomm, &dupcomm));
    int cmp;
    T_MPI(MPI_Comm_compare(plain, scomm, &cmp));
    T_CHECK(MPI_CONGRUENT == cmp, "a stream communicator is not congruent to its parent (%d)",
            cmp);
    /* the communicators keep their streams: the handles can go now */
    T_MPI(MPIX_Stream_free(&gstream));
    T_MPI(MPIX_Stream_free(&g2stream));
    T_MPI(MPIX_Stream_free(&g3stream));
    T_MPI(MPIX_Stream_free(&lstream));
    T_CHECK(MPIX_STREAM_NULL == gstream && MPIX_STREAM_NULL == lstream,
            "MPIX_Stream_free left a handle");

    /* Partitioned requests on each; host epochs work on all of them. */
    MPI_Comm comms[6] = {plain, scomm, s2comm, s3comm, lcomm, ncomm};
    for (int c = 0; c < 6; ++c) {
        init_pair(comms[c], sbuf[c], rbuf[c], rq[c]);
        host_epochs(comms[c], 0, EPOCHS, rq[c], sbuf[c], rbuf[c]);
    }
    if (!other) {
        check_stream_kernels(scomm);
    }
    int buf = 0;
    T_MPI(MPI_Send_init(&buf, 1, MPI_INT, 0, 9, scomm, &preq));
    /* a partitioned collective belongs to its communicator's stream too */
    MPI_Request coll = MPI_REQUEST_NULL;
    int one[PARTS], sum[PARTS], size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!other) {
        T_MPI(MPIX_Pallreduce_init(one, sum, PARTS, 1, MPI_INT, MPI_SUM, scomm, MPI_INFO_NULL,
                                   &coll));
    }

    T_MPI(MPI_Comm_create_errhandler(h_noh, &eh[H_NOH]));
    T_MPI(MPI_Comm_create_errhandler(h_plain, &eh[H_PLAIN]));
    T_MPI(MPI_Comm_create_errhandler(h_s, &eh[H_S]));
    T_MPI(MPI_Comm_create_errhandler(h_s2, &eh[H_S2]));
    T_MPI(MPI_Comm_create_errhandler(h_s3, &eh[H_S3]));
    T_MPI(MPI_Comm_create_errhandler(h_local, &eh[H_LOCAL]));
    T_MPI(MPI_Comm_create_errhandler(h_null, &eh[H_NULL]));
    T_MPI(MPI_Comm_create_errhandler(h_dup, &eh[H_DUP]));

    /* Errors: first with MPI_ERRORS_RETURN, then through the handlers. */
    for (recording = 0; recording < 2; ++recording) {
        if (recording) {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh[H_NOH]);
            MPI_Comm_set_errhandler(MPI_COMM_SELF, eh[H_NOH]);
            MPI_Comm_set_errhandler(plain, eh[H_PLAIN]);
            MPI_Comm_set_errhandler(scomm, eh[H_S]);
            MPI_Comm_set_errhandler(s2comm, eh[H_S2]);
            MPI_Comm_set_errhandler(s3comm, eh[H_S3]);
            MPI_Comm_set_errhandler(lcomm, eh[H_LOCAL]);
            MPI_Comm_set_errhandler(ncomm, eh[H_NULL]);
            MPI_Comm_set_errhandler(dupcomm, eh[H_DUP]);
            check_info_set_hex();
            check_stream_create_free();
        }
        MPI_Request *s = rq[1]; /* on scomm: send, receive */

        /* not a partitioned request: errors without a handle */
        T_ERR(MPIX_Start_enqueue(NULL), MPI_ERR_ARG, H_NOH);
        T_ERR(MPIX_Start_enqueue(&null), MPI_ERR_REQUEST, H_NOH);
        T_ERR(MPIX_Start_enqueue(&preq), MPI_ERR_REQUEST, H_NOH);
        T_ERR(MPIX_Wait_enqueue(NULL, MPI_STATUS_IGNORE), MPI_ERR_ARG, H_NOH);
        T_ERR(MPIX_Wait_enqueue(&null, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, H_NOH);
        T_ERR(MPIX_Wait_enqueue(&preq, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, H_NOH);
        T_ERR(MPIX_Startall_enqueue(-1, s), MPI_ERR_COUNT, H_NOH);
        T_ERR(MPIX_Waitall_enqueue(-1, s, MPI_STATUSES_IGNORE), MPI_ERR_COUNT, H_NOH);
        T_ERR(MPIX_Startall_enqueue(2, NULL), MPI_ERR_ARG, H_NOH);
        T_ERR(MPIX_Waitall_enqueue(2, NULL, MPI_STATUSES_IGNORE), MPI_ERR_ARG, H_NOH);
        two[0] = s[0];
        two[1] = MPI_REQUEST_NULL;
        T_ERR(MPIX_Startall_enqueue(2, two), MPI_ERR_REQUEST, H_NOH);
        two[1] = preq;
        T_ERR(MPIX_Waitall_enqueue(2, two, MPI_STATUSES_IGNORE), MPI_ERR_REQUEST, H_NOH);

        /* communicators without an accelerator stream: theirs */
        T_ERR(MPIX_Start_enqueue(&rq[0][0]), MPI_ERR_ARG, H_PLAIN);
        T_ERR(MPIX_Wait_enqueue(&rq[0][1], MPI_STATUS_IGNORE), MPI_ERR_ARG, H_PLAIN);
        T_ERR(MPIX_Startall_enqueue(2, rq[4]), MPI_ERR_ARG, H_LOCAL);
        T_ERR(MPIX_Waitall_enqueue(2, rq[4], MPI_STATUSES_IGNORE), MPI_ERR_ARG, H_LOCAL);
        T_ERR(MPIX_Start_enqueue(&rq[5][1]), MPI_ERR_ARG, H_NULL);
        T_ERR(MPIX_Wait_enqueue(&rq[5][0], MPI_STATUS_IGNORE), MPI_ERR_ARG, H_NULL);

        /* two streams in one call: the handler of the first request on
         * another one */
        two[0] = s[0];
        two[1] = rq[2][1];
        T_ERR(MPIX_Startall_enqueue(2, two), MPI_ERR_ARG, H_S2);
        T_ERR(MPIX_Waitall_enqueue(2, two, MPI_STATUSES_IGNORE), MPI_ERR_ARG, H_S2);
        two[0] = rq[0][0]; /* no stream first */
        two[1] = s[1];
        T_ERR(MPIX_Startall_enqueue(2, two), MPI_ERR_ARG, H_PLAIN);

        /* Every argument right: the component's answer, on the handler of
         * the (first) request. Two handles of one CUDA stream are one
         * stream. No work on an empty list (part/persist: no entry). */
        T_ERR(MPIX_Start_enqueue(&s[0]), unsupported, H_S);
        T_ERR(MPIX_Wait_enqueue(&s[1], MPI_STATUS_IGNORE), unsupported, H_S);
        T_ERR(MPIX_Startall_enqueue(2, s), unsupported, H_S);
        T_ERR(MPIX_Waitall_enqueue(2, s, MPI_STATUSES_IGNORE), unsupported, H_S);
        two[0] = rq[3][0];
        two[1] = s[1];
        T_ERR(MPIX_Startall_enqueue(2, two), unsupported, H_S3);
        T_ERR(MPIX_Waitall_enqueue(2, two, MPI_STATUSES_IGNORE), unsupported, H_S3);
        T_ERR(MPIX_Start_enqueue(&rq[2][1]), unsupported, H_S2);
        if (!other) {
            T_ERR(MPIX_Start_enqueue(&coll), unsupported, H_S);
            two[0] = coll;
            two[1] = s[0];
            T_ERR(MPIX_Waitall_enqueue(2, two, MPI_STATUSES_IGNORE), unsupported, H_S);
        }
        T_ERR(MPIX_Startall_enqueue(0, NULL), other ? unsupported : MPI_SUCCESS, H_NOH);
        T_ERR(MPIX_Waitall_enqueue(0, NULL, NULL), other ? unsupported : MPI_SUCCESS, H_NOH);
        /* a duplicate of a stream communicator has no stream */
        MPI_Request d[2];
        init_pair(dupcomm, sbuf[0], rbuf[0], d);
        T_ERR(MPIX_Start_enqueue(&d[0]), MPI_ERR_ARG, H_DUP);
        T_MPI(MPI_Request_free(&d[0]));
        T_MPI(MPI_Request_free(&d[1]));
        T_CHECK(MPI_REQUEST_NULL == null, "a failed call changed MPI_REQUEST_NULL");
    }

    /* The refused calls left the requests as they were. */
    for (int c = 0; c < 6; ++c) {
        host_epochs(comms[c], EPOCHS, 2, rq[c], sbuf[c], rbuf[c]);
        T_MPI(MPI_Request_free(&rq[c][0]));
        T_MPI(MPI_Request_free(&rq[c][1]));
    }
    T_MPI(MPI_Request_free(&preq));
    for (int e = 0; !other && e < 2; ++e) {
        T_MPI(MPI_Start(&coll));
        for (int p = 0; p < PARTS; ++p) {
            one[p] = e + p + 1;
            T_MPI(MPI_Pready(p, coll));
        }
        T_MPI(MPI_Wait(&coll, MPI_STATUS_IGNORE));
        for (int p = 0; p < PARTS; ++p) {
            T_CHECK(sum[p] == size * (e + p + 1), "allreduce epoch %d partition %d: %d", e, p,
                    sum[p]);
        }
    }
    if (!other) T_MPI(MPI_Request_free(&coll));

    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    for (int h = 0; h < H_N; ++h) MPI_Errhandler_free(&eh[h]);
    /* the last references of the streams go with their communicators */
    MPI_Comm_free(&dupcomm);
    MPI_Comm_free(&ncomm);
    MPI_Comm_free(&lcomm);
    MPI_Comm_free(&s3comm);
    MPI_Comm_free(&s2comm);
    MPI_Comm_free(&scomm);
    MPI_Comm_free(&plain);
    return t_finish(other ? "t_stream -x" : "t_stream");
}
