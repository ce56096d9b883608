/* Partitioned point-to-point benchmarks, run with whichever part component
 * mpirun selects (so part/ucx and part/persist are compared with one
 * binary). Rank 0 sends, rank 1 receives. One CSV row per measurement:
 *   bench,component,param1,param2,value,unit
 *
 *   b_part latency   SIZES PARTS   half round trip of a partitioned message
 *   b_part bandwidth SIZES PARTS   one-way bandwidth of back-to-back epochs
 *   b_part parrived  PARTS         MPI_Parrived cost, one thread per partition
 *   b_part overhead                init, first and later MPIX_Pbuf_prepare
 *   b_part workers SIZES PARTS     bandwidth, labelled with $BENCH_WORKERS
 *   b_part sendrecv  SIZES         MPI_Send/MPI_Recv half round trip (baseline)
 * SIZES and PARTS are comma-separated lists. */
#include <mpi.h>
#include <mpix_part.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, wrong_data;
static const char *component;

/* Fresh tags for every measurement: requests of earlier ones never match. */
static int next_tag(void)
{
    static int tag = 10;
    return ++tag;
}

static int parse_list(const char *s, long *out, int max)
{
    int n = 0;
    char *copy = strdup(s), *tok, *save = NULL;
    for (tok = strtok_r(copy, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save)) {
        out[n++] = atol(tok);
    }
    free(copy);
    return n;
}

static int iters_for(long bytes)
{
    long it = (64L << 20) / (bytes + 4096);
    return (int) (it < 20 ? 20 : it > 2000 ? 2000 : it);
}

/* Pings go 0 -> 1 on one request pair, pongs 1 -> 0 on another. */
static double part_pingpong(long bytes, int parts, int iters)
{
    long count = bytes / parts;
    char *a = calloc(1, bytes + 1), *b = calloc(1, bytes + 1);
    MPI_Request ping, pong;
    int peer = 1 - rank;
    int t1 = next_tag(), t2 = next_tag();
    if (0 == rank) {
        MPI_Psend_init(a, parts, count, MPI_BYTE, peer, t1, MPI_COMM_WORLD, MPI_INFO_NULL, &ping);
        MPI_Precv_init(b, parts, count, MPI_BYTE, peer, t2, MPI_COMM_WORLD, MPI_INFO_NULL, &pong);
    } else {
        MPI_Precv_init(b, parts, count, MPI_BYTE, peer, t1, MPI_COMM_WORLD, MPI_INFO_NULL, &ping);
        MPI_Psend_init(a, parts, count, MPI_BYTE, peer, t2, MPI_COMM_WORLD, MPI_INFO_NULL, &pong);
    }
    double t0 = 0;
    for (int i = -5; i < iters; ++i) {
        if (0 == i) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        a[0] = (char) i;
        MPI_Start(&ping);
        MPI_Start(&pong);
        if (0 == rank) {
            MPI_Pready_range(0, parts - 1, ping);
            MPI_Wait(&ping, MPI_STATUS_IGNORE);
            MPI_Wait(&pong, MPI_STATUS_IGNORE);
        } else {
            MPI_Wait(&ping, MPI_STATUS_IGNORE);
            MPI_Pready_range(0, parts - 1, pong);
            MPI_Wait(&pong, MPI_STATUS_IGNORE);
        }
        if ((char) i != b[0]) {
            ++wrong_data;
        }
    }
    double t = (MPI_Wtime() - t0) / iters / 2;
    MPI_Allreduce(MPI_IN_PLACE, &wrong_data, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Request_free(&ping);
    MPI_Request_free(&pong);
    free(a);
    free(b);
    return t;
}

static double sendrecv_pingpong(long bytes, int iters)
{
    char *a = calloc(1, bytes + 1), *b = calloc(1, bytes + 1);
    int peer = 1 - rank;
    double t0 = 0;
    for (int i = -5; i < iters; ++i) {
        if (0 == i) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        a[0] = (char) i;
        if (0 == rank) {
            MPI_Send(a, (int) bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(b, (int) bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(b, (int) bytes, MPI_BYTE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(a, (int) bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
        }
        if (bytes > 0 && (char) i != b[0]) {
            ++wrong_data;
        }
    }
    double t = (MPI_Wtime() - t0) / iters / 2;
    free(a);
    free(b);
    return t;
}

/* One-way, epochs back to back: each epoch's puts wait for the receiver's
 * ready signal of that epoch, as an application's would. */
static double part_bandwidth(long bytes, int parts, int iters)
{
    long count = bytes / parts;
    char *a = calloc(1, bytes + 1);
    MPI_Request req;
    int tag = next_tag();
    if (0 == rank) {
        MPI_Psend_init(a, parts, count, MPI_BYTE, 1, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    } else {
        MPI_Precv_init(a, parts, count, MPI_BYTE, 0, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    }
    double t0 = 0;
    for (int i = -5; i < iters; ++i) { /* 5 untimed epochs: setup, wire-up */
        if (0 == i) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        MPI_Start(&req);
        if (0 == rank) {
            MPI_Pready_range(0, parts - 1, req);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    MPI_Request_free(&req);
    free(a);
    return (double) bytes * iters / t / 1e6; /* MB/s */
}

/* MPI_Parrived cost, one thread per partition (seed 004, Fig. 5). Miss:
 * the average time of a call while the partition has not arrived (the
 * sender waits 20 ms before MPI_Pready), which is what a polling consumer
 * pays. Hit: the time of a call once it has. */
typedef struct {
    MPI_Request req;
    int part;
    double miss_ns, hit_ns;
} poll_arg_t;

static void *poller(void *p)
{
    poll_arg_t *a = p;
    long calls = 0;
    int flag = 0;
    double t0 = MPI_Wtime();
    while (!flag) {
        MPI_Parrived(a->req, a->part, &flag);
        ++calls;
    }
    a->miss_ns = (MPI_Wtime() - t0) / calls * 1e9;
    t0 = MPI_Wtime();
    for (int i = 0; i < 20000; ++i) {
        MPI_Parrived(a->req, a->part, &flag);
    }
    a->hit_ns = (MPI_Wtime() - t0) / 20000 * 1e9;
    return NULL;
}

static void parrived_cost(int parts, double *miss, double *hit)
{
    char *buf = calloc(parts, 64);
    MPI_Request req;
    double r[2] = {0, 0};
    if (0 == rank) {
        MPI_Psend_init(buf, parts, 64, MPI_BYTE, 1, next_tag(), MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        MPI_Start(&req);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < 0.02) {
        }
        MPI_Pready_range(0, parts - 1, req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else {
        pthread_t *th = malloc(sizeof(pthread_t) * parts);
        poll_arg_t *args = calloc(parts, sizeof(poll_arg_t));
        MPI_Precv_init(buf, parts, 64, MPI_BYTE, 0, next_tag(), MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        MPI_Start(&req);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int p = 0; p < parts; ++p) {
            args[p].req = req;
            args[p].part = p;
            pthread_create(&th[p], NULL, poller, &args[p]);
        }
        for (int p = 0; p < parts; ++p) {
            pthread_join(th[p], NULL);
            r[0] += args[p].miss_ns / parts;
            r[1] += args[p].hit_ns / parts;
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        free(th);
        free(args);
    }
    MPI_Request_free(&req);
    free(buf);
    MPI_Bcast(r, 2, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    *miss = r[0];
    *hit = r[1];
}

/* Overheads (seed 000, Table I). first_contact: the first exchange of the
 * process pair, endpoint wire-up included. init: MPI_Psend_init or
 * MPI_Precv_init, averaged over 100. pbuf_prepare_first: the call that
 * completes a new request's setup, averaged over 20 fresh requests;
 * pbuf_prepare_later: average over 100 later epochs. */
static double prepare(MPI_Request *r, int *ok)
{
    double t = MPI_Wtime();
    if (MPI_SUCCESS != MPIX_Pbuf_prepare(r)) *ok = 0;
    return MPI_Wtime() - t;
}

static void overhead(void)
{
    enum { N = 100 };
    char buf[64];
    MPI_Request req[N], warm;
    int peer = 1 - rank, ok = 1;
    double t0, v[4] = {0, 0, 0, 0}, r[4];

    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (0 == rank) {
        MPI_Psend_init(buf, 1, 8, MPI_BYTE, peer, next_tag(), MPI_COMM_WORLD, MPI_INFO_NULL, &warm);
    } else {
        MPI_Precv_init(buf, 1, 8, MPI_BYTE, peer, next_tag(), MPI_COMM_WORLD, MPI_INFO_NULL, &warm);
    }
    MPI_Start(&warm);
    prepare(&warm, &ok);
    if (0 == rank) MPI_Pready(0, warm);
    MPI_Wait(&warm, MPI_STATUS_IGNORE);
    v[0] = (MPI_Wtime() - t0) * 1e6;
    MPI_Request_free(&warm);

    int tag0 = next_tag();
    for (int i = 1; i < N; ++i) next_tag();
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int i = 0; i < N; ++i) {
        if (0 == rank) {
            MPI_Psend_init(buf, 4, 16, MPI_BYTE, peer, tag0 + i, MPI_COMM_WORLD, MPI_INFO_NULL, &req[i]);
        } else {
            MPI_Precv_init(buf, 4, 16, MPI_BYTE, peer, tag0 + i, MPI_COMM_WORLD, MPI_INFO_NULL, &req[i]);
        }
    }
    v[1] = (MPI_Wtime() - t0) / N * 1e6;
    for (int e = 0; e <= N; ++e) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Start(&req[0]);
        double t = prepare(&req[0], &ok) * 1e6;
        if (0 < e) v[3] += t / N;
        if (0 == rank) MPI_Pready_range(0, 3, req[0]);
        MPI_Wait(&req[0], MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < N; ++i) {
        MPI_Request_free(&req[i]);
    }
    /* A fresh request each time: its init sends the setup record, and the
     * first MPIX_Pbuf_prepare waits for the whole setup round trip. */
    for (int i = 0; i < N / 5; ++i) {
        MPI_Request fresh;
        int tag = next_tag();
        MPI_Barrier(MPI_COMM_WORLD);
        if (0 == rank) {
            MPI_Psend_init(buf, 4, 16, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &fresh);
        } else {
            MPI_Precv_init(buf, 4, 16, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_INFO_NULL, &fresh);
        }
        MPI_Start(&fresh);
        v[2] += prepare(&fresh, &ok) * 1e6 / (N / 5);
        if (0 == rank) MPI_Pready_range(0, 3, fresh);
        MPI_Wait(&fresh, MPI_STATUS_IGNORE);
        MPI_Request_free(&fresh);
    }
    MPI_Reduce(v, r, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("overhead,%s,first_contact,-,%.3f,us\n", component, r[0]);
        printf("overhead,%s,init,-,%.3f,us\n", component, r[1]);
        if (ok) {
            printf("overhead,%s,pbuf_prepare_first,-,%.3f,us\n", component, r[2]);
            printf("overhead,%s,pbuf_prepare_later,-,%.3f,us\n", component, r[3]);
        }
    }
}

int main(int argc, char **argv)
{
    int provided;
    long sizes[64], parts[64];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    component = getenv("BENCH_COMPONENT") ? getenv("BENCH_COMPONENT") : "unknown";
    if (argc < 2 || size != 2) {
        if (0 == rank) fprintf(stderr, "usage: mpirun -np 2 b_part MODE ARGS\n");
        MPI_Finalize();
        return 2;
    }
    const char *mode = argv[1];
    if (0 == strcmp(mode, "latency") || 0 == strcmp(mode, "bandwidth")) {
        int ns = parse_list(argv[2], sizes, 64), np = parse_list(argv[3], parts, 64);
        for (int i = 0; i < ns; ++i) {
            for (int j = 0; j < np; ++j) {
                if (sizes[i] % parts[j]) continue;
                if (mode[0] == 'l') {
                    int before = wrong_data;
                    double t = part_pingpong(sizes[i], (int) parts[j], iters_for(sizes[i]));
                    /* A component that delivers wrong data gets no number. */
                    if (0 == rank && before == wrong_data) {
                        printf("latency,%s,%ld,%ld,%.3f,us\n", component, sizes[i], parts[j], t * 1e6);
                    } else if (0 == rank) {
                        fprintf(stderr, "latency,%s,%ld,%ld: WRONG DATA\n", component, sizes[i], parts[j]);
                    }
                } else {
                    double bw = part_bandwidth(sizes[i], (int) parts[j], iters_for(sizes[i]));
                    if (0 == rank) printf("bandwidth,%s,%ld,%ld,%.1f,MB/s\n", component, sizes[i], parts[j], bw);
                }
                fflush(stdout);
            }
        }
    } else if (0 == strcmp(mode, "workers")) {
        /* Bandwidth of one run's UCP worker count (BENCH_WORKERS, set to
         * what --mca part_ucx_num_workers says), for the workers sweep. */
        const char *w = getenv("BENCH_WORKERS") ? getenv("BENCH_WORKERS") : "1";
        int ns = parse_list(argv[2], sizes, 64), np = parse_list(argv[3], parts, 64);
        for (int i = 0; i < ns; ++i) {
            for (int j = 0; j < np; ++j) {
                if (sizes[i] % parts[j]) continue;
                double bw = part_bandwidth(sizes[i], (int) parts[j], iters_for(sizes[i]));
                if (0 == rank) printf("workers,%s,%s,%ld/%ld,%.1f,MB/s\n", component, w, sizes[i], parts[j], bw);
                fflush(stdout);
            }
        }
    } else if (0 == strcmp(mode, "sendrecv")) {
        int ns = parse_list(argv[2], sizes, 64);
        for (int i = 0; i < ns; ++i) {
            double t = sendrecv_pingpong(sizes[i], iters_for(sizes[i]));
            if (0 == rank) printf("latency,sendrecv,%ld,1,%.3f,us\n", sizes[i], t * 1e6);
            fflush(stdout);
        }
    } else if (0 == strcmp(mode, "parrived")) {
        int np = parse_list(argv[2], parts, 64);
        for (int j = 0; j < np; ++j) {
            double miss, hit;
            parrived_cost((int) parts[j], &miss, &hit);
            if (0 == rank) {
                printf("parrived,%s,%ld,miss,%.1f,ns\n", component, parts[j], miss);
                printf("parrived,%s,%ld,hit,%.1f,ns\n", component, parts[j], hit);
            }
            fflush(stdout);
        }
    } else if (0 == strcmp(mode, "overhead")) {
        overhead();
    }
    MPI_Finalize();
    return 0;
}
