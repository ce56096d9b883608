/* Partitioned ring exchange: every rank sends to rank+1 and receives from
 * rank-1, for many epochs, with data checked per partition (as it arrives,
 * through MPI_Parrived) and in full after MPI_Wait.
 *
 *   -p N   sender partitions          -q N   receiver partitions
 *   -c N   int32 elements per sender partition
 *   -e N   epochs                     -b     MPIX_Pbuf_prepare every epoch
 *   -s     MPI_Startall over both     -a     poll MPI_Parrived before MPI_Wait
 *   -m M   how partitions are made ready: order | random | range | list
 *   -l US  odd ranks progress (MPI_Iprobe) for US microseconds before each
 *          epoch, so that their predecessor's partitions are taken in before
 *          their MPI_Start (one epoch ahead, part_ucx_epoch_ahead_bytes: held until
 *          then, never written early)
 *   -V NAME=VALUE  MCA variable NAME set to VALUE in the odd ranks only
 */
#include "../tutil.h"
#include <mpix_part.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int sparts = 8, rparts = -1, count = 64, epochs = 20, prepare = 0, startall = 0,
        poll = 0, late = 0, opt, rank, size;
    const char *mode = "random";

    while ((opt = getopt(argc, argv, "p:q:c:e:bsam:l:V:")) != -1) {
        switch (opt) {
        case 'p': sparts = atoi(optarg); break;
        case 'q': rparts = atoi(optarg); break;
        case 'c': count = atoi(optarg); break;
        case 'e': epochs = atoi(optarg); break;
        case 'b': prepare = 1; break;
        case 's': startall = 1; break;
        case 'a': poll = 1; break;
        case 'm': mode = optarg; break;
        case 'l': late = atoi(optarg); break;
        case 'V': t_mca_odd_ranks(optarg); break;
        default: return 2;
        }
    }
    if (rparts < 0) {
        rparts = sparts;
    }
    long total = (long) sparts * count;
    if (total % rparts) {
        fprintf(stderr, "total %ld not divisible by %d receive partitions\n", total, rparts);
        return 2;
    }
    int rcount = (int) (total / rparts);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dst = (rank + 1) % size, src = (rank - 1 + size) % size;

    int32_t *sbuf = malloc((total ? total : 1) * sizeof(int32_t));
    int32_t *rbuf = malloc((total ? total : 1) * sizeof(int32_t));
    int *order = malloc(sparts * sizeof(int));
    char *seen = malloc(rparts);
    unsigned seed = 1234u + (unsigned) rank;
    MPI_Request req[2];

    T_MPI(MPI_Psend_init(sbuf, sparts, count, MPI_INT32_T, dst, 7, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req[0]));
    T_MPI(MPI_Precv_init(rbuf, rparts, rcount, MPI_INT32_T, src, 7, MPI_COMM_WORLD,
                         MPI_INFO_NULL, &req[1]));

    for (int e = 1; e <= epochs; ++e) {
        if (late > 0 && 1 == rank % 2) {
            /* rbuf is reset below: nothing may land in it before MPI_Start */
            double until = MPI_Wtime() + late * 1e-6;
            int flag;
            while (MPI_Wtime() < until) {
                T_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
            }
        }
        for (long j = 0; j < total; ++j) {
            sbuf[j] = t_value(rank, e, j / count, j);
            rbuf[j] = -1;
        }
        if (startall) {
            T_MPI(MPI_Startall(2, req));
        } else {
            T_MPI(MPI_Start(&req[1]));
            T_MPI(MPI_Start(&req[0]));
        }
        if (prepare) {
            T_MPI(MPIX_Pbuf_prepare(&req[0]));
        }
        for (int p = 0; p < sparts; ++p) {
            order[p] = p;
        }
        if (0 == strcmp(mode, "random")) {
            t_shuffle(order, sparts, &seed);
        }
        if (0 == strcmp(mode, "range")) {
            /* two ranges: the second half first */
            int half = sparts / 2;
            if (half < sparts) T_MPI(MPI_Pready_range(half, sparts - 1, req[0]));
            if (half > 0) T_MPI(MPI_Pready_range(0, half - 1, req[0]));
        } else if (0 == strcmp(mode, "list")) {
            t_shuffle(order, sparts, &seed);
            T_MPI(MPI_Pready_list(sparts, order, req[0]));
        } else {
            for (int p = 0; p < sparts; ++p) {
                T_MPI(MPI_Pready(order[p], req[0]));
            }
        }
        if (poll) {
            int left = rparts;
            memset(seen, 0, rparts);
            while (left > 0) {
                for (int q = 0; q < rparts; ++q) {
                    int flag = 0;
                    if (seen[q]) continue;
                    T_MPI(MPI_Parrived(req[1], q, &flag));
                    if (!flag) continue;
                    seen[q] = 1;
                    --left;
                    for (long j = (long) q * rcount; j < (long) (q + 1) * rcount; ++j) {
                        T_CHECK(rbuf[j] == t_value(src, e, j / count, j),
                                "epoch %d rpart %d elem %ld: %d != %d", e, q, j, rbuf[j],
                                t_value(src, e, j / count, j));
                    }
                }
            }
        }
        MPI_Status st[2];
        T_MPI(MPI_Waitall(2, req, st));
        int got = -1;
        MPI_Get_count(&st[1], MPI_INT32_T, &got);
        T_CHECK(st[1].MPI_SOURCE == src && st[1].MPI_TAG == 7 && got == total,
                "status source %d tag %d count %d", st[1].MPI_SOURCE, st[1].MPI_TAG, got);
        for (long j = 0; j < total; ++j) {
            if (rbuf[j] != t_value(src, e, j / count, j)) {
                T_CHECK(0, "epoch %d elem %ld: %d != %d", e, j, rbuf[j],
                        t_value(src, e, j / count, j));
                break;
            }
        }
        /* Inactive now: MPI_Parrived must report arrival. */
        int flag = 0;
        T_MPI(MPI_Parrived(req[1], 0, &flag));
        T_CHECK(flag, "MPI_Parrived on an inactive request gave 0");
    }
    T_MPI(MPI_Request_free(&req[0]));
    T_MPI(MPI_Request_free(&req[1]));
    free(sbuf); free(rbuf); free(order); free(seen);
    return t_finish("t_exchange");
}
