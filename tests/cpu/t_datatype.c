/* Non-contiguous derived datatypes: a strided vector on the sender, a
 * different layout (contiguous pairs with gaps) on the receiver; both carry
 * the same type signature. Gaps must stay untouched. */
#include "../tutil.h"

int main(int argc, char **argv)
{
    int rank, size, parts = 6, count = 5, epochs = 10;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dst = (rank + 1) % size, src = (rank - 1 + size) % size;

    /* Sender: 4 ints taken every third int. Receiver: 2 blocks of 2 ints,
     * stride 5. Both: 4 ints per element. */
    MPI_Datatype stype, rtype, rtmp;
    MPI_Type_vector(4, 1, 3, MPI_INT32_T, &stype);
    MPI_Type_commit(&stype);
    MPI_Type_vector(2, 2, 5, MPI_INT32_T, &rtmp);
    MPI_Type_create_resized(rtmp, 0, 10 * sizeof(int32_t), &rtype);
    MPI_Type_commit(&rtype);
    MPI_Aint lb, sext, rext;
    MPI_Type_get_extent(stype, &lb, &sext);
    MPI_Type_get_extent(rtype, &lb, &rext);
    long n = (long) parts * count, sints = n * sext / 4, rints = n * rext / 4;
    int32_t *sbuf = malloc(sints * 4), *rbuf = malloc(rints * 4);
    MPI_Request req[2];
    T_MPI(MPI_Psend_init(sbuf, parts, count, stype, dst, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
    T_MPI(MPI_Precv_init(rbuf, parts, count, rtype, src, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
    for (int e = 1; e <= epochs; ++e) {
        /* Element k of the signature is the k-th int the sender's type picks. */
        for (long k = 0; k < n * 4; ++k) {
            long el = k / 4, w = k % 4;
            sbuf[el * (sext / 4) + w * 3] = t_value(rank, e, el / count, k);
        }
        for (long j = 0; j < rints; ++j) rbuf[j] = -5;
        T_MPI(MPI_Startall(2, req));
        for (int p = parts - 1; p >= 0; --p) T_MPI(MPI_Pready(p, req[0]));
        int left = parts;
        char seen[6] = {0};
        while (left) {
            for (int p = 0; p < parts; ++p) {
                int flag;
                if (seen[p]) continue;
                T_MPI(MPI_Parrived(req[1], p, &flag));
                if (flag) { seen[p] = 1; --left; }
            }
        }
        T_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
        for (long el = 0; el < n; ++el) {
            int32_t *r = rbuf + el * (rext / 4);
            int32_t got[4] = {r[0], r[1], r[5], r[6]};
            for (int w = 0; w < 4; ++w) {
                T_CHECK(got[w] == t_value(src, e, el / count, el * 4 + w),
                        "epoch %d element %ld word %d: %d", e, el, w, got[w]);
            }
            T_CHECK(r[2] == -5 && r[3] == -5 && r[4] == -5 && r[7] == -5,
                    "gap written at element %ld", el);
        }
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    MPI_Type_free(&stype); MPI_Type_free(&rtype); MPI_Type_free(&rtmp);
    free(sbuf); free(rbuf);
    return t_finish("t_datatype");
}
