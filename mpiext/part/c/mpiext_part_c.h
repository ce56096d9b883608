/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Partitioned communication extensions (OMPI_HAVE_MPI_EXT_PART in
 * <mpi-ext.h>). The selected part component implements them (part/ucx
 * does); with another one every call but those of MPIX_Stream objects
 * fails with MPI_ERR_UNSUPPORTED_OPERATION. Man pages: MPIX_Pbuf_prepare(3),
 * MPIX_Prequest_create(3), MPIX_Pallreduce_init(3) and the pages they name.
 */

/* Block until the receive buffer of the request's current epoch is ready
 * at the peer: after it returns, MPI_Pready (and GPU kernels) put at once.
 * The first call also completes the request's setup. The request must
 * have been started; on a receive request it makes sure the sender has
 * been told that the buffer is ready. */
OMPI_DECLSPEC int MPIX_Pbuf_prepare(MPI_Request *request);
OMPI_DECLSPEC int MPIX_Pbuf_prepareall(int count, MPI_Request requests[]);

/* A device-side request for CUDA kernels (mpix_part_device.h of part/ucx),
 * in GPU memory. Blocking; call it after MPI_Start of the first epoch. One
 * device request serves every later epoch of its MPI_Request.
 * MPIX_Prequest_free between epochs (in an active epoch: MPI_ERR_REQUEST;
 * a handle already freed: MPI_ERR_ARG).
 *
 * MPI_Info keys of MPI_Psend_init: "mpix_pready_threads", the number of
 * device MPIX_Pready calls that make one partition ready in an epoch
 * (default 1: one call, e.g. by one thread; where every thread of a
 * partition's blocks calls it, the number of those threads);
 * "mpix_pready_aggregate", "warp" (default) or "block" where every thread
 * of each block calls MPIX_Pready for one partition (one counter update
 * per block); "mpix_device_group_bytes", "0" to mix host MPI_Pready and
 * kernel MPIX_Pready on one request (in one epoch or in turns).
 *
 * Each epoch: MPI_Start, then kernels call MPIX_Pready exactly
 * "mpix_pready_threads" times per partition. More calls in an epoch, a
 * partition out of range, or a handle of the wrong kind (a receive's to
 * MPIX_Pready, a send's to MPIX_Parrived) write nothing outside the
 * request and fail it with MPI_ERR_ARG at its MPI_Wait (a send from then
 * on: its counts are lost).
 *
 * Kernel copy (a GPU receive buffer of the same node): a kernel stores a
 * partition into the receiver's buffer only once the receiver's
 * ready-to-receive of the epoch is visible on the GPU, which host progress
 * makes (MPIX_Pbuf_prepare before the launch, or any MPI call that
 * progresses while the kernel runs); a kernel that finds it missing never
 * waits for it, it leaves the partition to the host, which sends it at its
 * next progress. So "kernel; cudaStreamSynchronize; MPI_Wait" works without
 * MPIX_Pbuf_prepare, only without the kernel's copy.
 *
 * Kernels read the device request's fields inline, so a program is
 * compiled against one layout of it: MPIX_Prequest_create passes the
 * layout of the headers it was compiled with (MPIX_PREQUEST_LAYOUT), and
 * an Open MPI whose component has another one fails the call with
 * MPI_ERR_UNSUPPORTED_OPERATION instead of letting kernels read a request
 * they do not understand. */
typedef struct mpix_prequest_s *MPIX_Prequest;
#define MPIX_PREQUEST_LAYOUT 4
OMPI_DECLSPEC int MPIX_Prequest_create_layout(MPI_Request request, MPIX_Prequest *preq,
                                              int layout);
#define MPIX_Prequest_create(request, preq) \
    MPIX_Prequest_create_layout((request), (preq), MPIX_PREQUEST_LAYOUT)
OMPI_DECLSPEC int MPIX_Prequest_free(MPIX_Prequest *preq);

/* Partitioned collectives (signatures of the partitioned-collectives
 * proposal, Holmes et al., ExaMPI 2021): `partitions` partitions of `count`
 * elements each. Every rank marks its contribution with MPI_Pready;
 * MPI_Parrived on partition p is true once p's final result is in recvbuf
 * (the buffer for bcast); MPIX_Pbuf_prepare synchronises the participants;
 * MPI_Wait/MPI_Test complete the epoch. MPI_IN_PLACE as sendbuf is allowed.
 * Only the root calls MPI_Pready in MPIX_Pbcast_init. Reductions assume a
 * commutative op. Initialization is collective: a rank that passes an
 * invalid argument fails, and so do the others. */
OMPI_DECLSPEC int MPIX_Pallreduce_init(const void *sendbuf, void *recvbuf, int partitions,
                                       int count, MPI_Datatype datatype, MPI_Op op,
                                       MPI_Comm comm, MPI_Info info, MPI_Request *request);
OMPI_DECLSPEC int MPIX_Preduce_init(const void *sendbuf, void *recvbuf, int partitions,
                                    int count, MPI_Datatype datatype, MPI_Op op, int root,
                                    MPI_Comm comm, MPI_Info info, MPI_Request *request);
OMPI_DECLSPEC int MPIX_Pbcast_init(void *buffer, int partitions, int count,
                                   MPI_Datatype datatype, int root, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request);
/* Blocks are rank-major, each `partitions` x `count` elements; partition p
 * of the result has arrived once partition p of every block has (this
 * version: one count and type for send and receive; alltoall not in place). */
OMPI_DECLSPEC int MPIX_Pallgather_init(const void *sendbuf, void *recvbuf, int partitions,
                                       int count, MPI_Datatype datatype, MPI_Comm comm,
                                       MPI_Info info, MPI_Request *request);
OMPI_DECLSPEC int MPIX_Palltoall_init(const void *sendbuf, void *recvbuf, int partitions,
                                      int count, MPI_Datatype datatype, MPI_Comm comm,
                                      MPI_Info info, MPI_Request *request);

/* Stream-ordered epochs (MPICH's MPIX_Stream conventions). A stream
 * names a CUDA stream: info "type" "cudaStream_t" and "value" the
 * cudaStream_t, encoded by MPIX_Info_set_hex(info, "value", &s, sizeof(s));
 * MPI_INFO_NULL (or no "type") makes a stream without one, on which the
 * enqueue calls fail with MPI_ERR_ARG. MPIX_Stream_comm_create, collective
 * over comm, makes a duplicate of comm bound to the stream; MPIX_Stream_free
 * drops the handle, and the stream communicators made from the stream
 * keep it until they are freed.
 *
 * Partitioned requests (MPI_Psend_init, MPI_Precv_init, the collective
 * inits) on a stream communicator are started and waited for in the order
 * of its CUDA stream: the epoch starts when the stream reaches
 * MPIX_Start_enqueue, and work after MPIX_Wait_enqueue on the stream runs
 * once the epoch is complete on this side. The host enqueues any number of
 * epochs without waiting; kernels between a start and its wait call
 * MPIX_Pready / MPIX_Parrived on the request's device request. Statuses are
 * not written (pass MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE), and the
 * request handles stay valid. All requests of one *all call must be on the
 * same stream. Where the host path drives an epoch (no kernel copy: host
 * buffers, another node, "mpix_device_copy" "progress"), a progress thread
 * does it in stream order, which needs MPI_THREAD_MULTIPLE. Without a usable
 * GPU, or with another part component, the enqueue calls fail with
 * MPI_ERR_UNSUPPORTED_OPERATION. Man pages: MPIX_Stream_create(3),
 * MPIX_Start_enqueue(3), MPIX_Wait_enqueue(3). */
typedef struct ompi_mpix_stream_t *MPIX_Stream;
#define MPIX_STREAM_NULL ((MPIX_Stream) 0)
OMPI_DECLSPEC int MPIX_Info_set_hex(MPI_Info info, const char *key, const void *value,
                                    int value_size);
OMPI_DECLSPEC int MPIX_Stream_create(MPI_Info info, MPIX_Stream *stream);
OMPI_DECLSPEC int MPIX_Stream_free(MPIX_Stream *stream);
OMPI_DECLSPEC int MPIX_Stream_comm_create(MPI_Comm comm, MPIX_Stream stream, MPI_Comm *newcomm);
OMPI_DECLSPEC int MPIX_Start_enqueue(MPI_Request *request);
OMPI_DECLSPEC int MPIX_Startall_enqueue(int count, MPI_Request array_of_requests[]);
OMPI_DECLSPEC int MPIX_Wait_enqueue(MPI_Request *request, MPI_Status *status);
OMPI_DECLSPEC int MPIX_Waitall_enqueue(int count, MPI_Request array_of_requests[],
                                       MPI_Status array_of_statuses[]);

/* Profiling names. */
OMPI_DECLSPEC int PMPIX_Pbuf_prepare(MPI_Request *request);
OMPI_DECLSPEC int PMPIX_Pbuf_prepareall(int count, MPI_Request requests[]);
OMPI_DECLSPEC int PMPIX_Prequest_create_layout(MPI_Request request, MPIX_Prequest *preq,
                                               int layout);
#define PMPIX_Prequest_create(request, preq) \
    PMPIX_Prequest_create_layout((request), (preq), MPIX_PREQUEST_LAYOUT)
OMPI_DECLSPEC int PMPIX_Prequest_free(MPIX_Prequest *preq);
OMPI_DECLSPEC int PMPIX_Pallreduce_init(const void *sendbuf, void *recvbuf, int partitions,
                                        int count, MPI_Datatype datatype, MPI_Op op,
                                        MPI_Comm comm, MPI_Info info, MPI_Request *request);
OMPI_DECLSPEC int PMPIX_Preduce_init(const void *sendbuf, void *recvbuf, int partitions,
                                     int count, MPI_Datatype datatype, MPI_Op op, int root,
                                     MPI_Comm comm, MPI_Info info, MPI_Request *request);
OMPI_DECLSPEC int PMPIX_Pbcast_init(void *buffer, int partitions, int count,
                                    MPI_Datatype datatype, int root, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request);
OMPI_DECLSPEC int PMPIX_Pallgather_init(const void *sendbuf, void *recvbuf, int partitions,
                                        int count, MPI_Datatype datatype, MPI_Comm comm,
                                        MPI_Info info, MPI_Request *request);
OMPI_DECLSPEC int PMPIX_Palltoall_init(const void *sendbuf, void *recvbuf, int partitions,
                                       int count, MPI_Datatype datatype, MPI_Comm comm,
                                       MPI_Info info, MPI_Request *request);
OMPI_DECLSPEC int PMPIX_Info_set_hex(MPI_Info info, const char *key, const void *value,
                                     int value_size);
OMPI_DECLSPEC int PMPIX_Stream_create(MPI_Info info, MPIX_Stream *stream);
OMPI_DECLSPEC int PMPIX_Stream_free(MPIX_Stream *stream);
OMPI_DECLSPEC int PMPIX_Stream_comm_create(MPI_Comm comm, MPIX_Stream stream, MPI_Comm *newcomm);
OMPI_DECLSPEC int PMPIX_Start_enqueue(MPI_Request *request);
OMPI_DECLSPEC int PMPIX_Startall_enqueue(int count, MPI_Request array_of_requests[]);
OMPI_DECLSPEC int PMPIX_Wait_enqueue(MPI_Request *request, MPI_Status *status);
OMPI_DECLSPEC int PMPIX_Waitall_enqueue(int count, MPI_Request array_of_requests[],
                                        MPI_Status array_of_statuses[]);
