/* MPIX_ calls of the MPI extension "part" before MPI_Init and after
 * MPI_Finalize raise an error on the initial error handler (MPI 4.1 §9.3)
 * and return without touching their arguments. Run with the initial
 * handler MPI_ERRORS_RETURN (-x OMPI_MCA_mpi_initial_errhandler=
 * mpi_errors_return): with the default, MPI_ERRORS_ARE_FATAL, the first
 * call ends the process. */
#include <mpi.h>
#include <mpi-ext.h>
#include <stdint.h>
#include <stdio.h>

static int failures;

/* No MPI call may report here: MPI is not initialized. */
#define EXPECT_ERR_ARG(call, when)                                                  \
    do {                                                                            \
        int _rc = (call);                                                           \
        if (MPI_ERR_ARG != _rc) {                                                   \
            fprintf(stderr, "%s %s: %d, expected MPI_ERR_ARG (%d)\n", #call, (when), \
                    _rc, MPI_ERR_ARG);                                              \
            ++failures;                                                             \
        }                                                                           \
    } while (0)

/* An address that faults if read (hidden from the compiler, which would
 * otherwise warn about it). */
static void *bad_address(void)
{
    volatile uintptr_t a = 8;
    return (void *) a;
}

/* Every binding, with arguments that would fault if they were read. */
static void calls(const char *when)
{
    MPI_Request *bad = bad_address();
    MPIX_Prequest *badp = bad_address();
    void *b = bad_address();

    EXPECT_ERR_ARG(MPIX_Pbuf_prepare(bad), when);
    EXPECT_ERR_ARG(MPIX_Pbuf_prepareall(2, bad), when);
    EXPECT_ERR_ARG(MPIX_Prequest_create((MPI_Request) b, badp), when);
    EXPECT_ERR_ARG(MPIX_Prequest_free(badp), when);
    EXPECT_ERR_ARG(MPIX_Pallreduce_init(b, b, 1, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                        MPI_INFO_NULL, bad), when);
    EXPECT_ERR_ARG(MPIX_Preduce_init(b, b, 1, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD,
                                     MPI_INFO_NULL, bad), when);
    EXPECT_ERR_ARG(MPIX_Pbcast_init(b, 1, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, bad),
                   when);
    EXPECT_ERR_ARG(MPIX_Pallgather_init(b, b, 1, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                        bad), when);
    EXPECT_ERR_ARG(MPIX_Palltoall_init(b, b, 1, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                       bad), when);
    EXPECT_ERR_ARG(MPIX_Info_set_hex((MPI_Info) b, b, b, 8), when);
    EXPECT_ERR_ARG(MPIX_Stream_create((MPI_Info) b, (MPIX_Stream *) bad), when);
    EXPECT_ERR_ARG(MPIX_Stream_free((MPIX_Stream *) bad), when);
    EXPECT_ERR_ARG(MPIX_Stream_comm_create((MPI_Comm) b, (MPIX_Stream) b, (MPI_Comm *) bad),
                   when);
    EXPECT_ERR_ARG(MPIX_Start_enqueue(bad), when);
    EXPECT_ERR_ARG(MPIX_Startall_enqueue(2, bad), when);
    EXPECT_ERR_ARG(MPIX_Wait_enqueue(bad, b), when);
    EXPECT_ERR_ARG(MPIX_Waitall_enqueue(2, bad, b), when);
}

int main(int argc, char **argv)
{
    int rc;

    calls("before MPI_Init");
    MPI_Init(&argc, &argv);
    /* initialized: the same binding succeeds (nothing to prepare) */
    rc = MPIX_Pbuf_prepareall(0, NULL);
    if (MPI_SUCCESS != rc) {
        fprintf(stderr, "MPIX_Pbuf_prepareall(0, NULL) after MPI_Init: %d\n", rc);
        ++failures;
    }
    rc = MPIX_Startall_enqueue(0, NULL);
    if (MPI_SUCCESS != rc) {
        fprintf(stderr, "MPIX_Startall_enqueue(0, NULL) after MPI_Init: %d\n", rc);
        ++failures;
    }
    MPI_Finalize();
    calls("after MPI_Finalize");
    if (0 == failures) {
        printf("t_mpiext_init: PASS\n");
    }
    return 0 == failures ? 0 : 1;
}
