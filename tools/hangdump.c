/*
 * Copyright (c) 2026      The part/ucx developers. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */

/*
 * Backtraces of a hung process, for hangs under CUDA MPS, where cuda-gdb
 * cannot attach to a running process (and GPU nodes often lack gdb):
 *
 *   cc -shared -fPIC -O2 -o libhangdump.so tools/hangdump.c -lpthread -ldl
 *   TEST_WRAPPER="env LD_PRELOAD=$PWD/libhangdump.so HANGDUMP_AFTER=10" tools/test.sh ...
 *
 * If the process still runs HANGDUMP_AFTER seconds after it started, every
 * thread prints its backtrace to stderr ("hangdump PID tid TID:" then one
 * frame a line), and again every HANGDUMP_AFTER seconds. Frames are named
 * through the dynamic symbols: a static function shows as OBJECT(+OFFSET),
 * which `addr2line -f -e OBJECT OFFSET` names where the same object (for
 * instance the bundle's libmpi) is at hand. A process that ends earlier
 * prints nothing. The signal is SIGRTMIN + 3 (Open MPI, PRRTE and UCX use
 * SIGUSR1/2 and SIGALRM/SIGIO). Before the backtraces, where the process
 * has part/ucx, its requests' state (mca_part_ucx_dump, "part/ucx dump"
 * lines): what each active or stream-driven request waits on.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static void hangdump_frames(int sig)
{
    void *frames[64];
    char head[80];
    int n = backtrace(frames, 64), len;

    (void) sig;
    len = snprintf(head, sizeof(head), "hangdump %d tid %ld:\n", (int) getpid(),
                   (long) syscall(SYS_gettid));
    if (len > 0 && write(2, head, (size_t) len) < 0) {
        return;
    }
    backtrace_symbols_fd(frames, n, 2);
}

static void *hangdump_watch(void *arg)
{
    unsigned seconds = (unsigned) (uintptr_t) arg;
    long self = (long) syscall(SYS_gettid), tid;
    struct dirent *e;
    DIR *d;

    for (;;) {
        void (*state)(void);

        sleep(seconds);
        *(void **) &state = dlsym(RTLD_DEFAULT, "mca_part_ucx_dump");
        if (NULL != state) {
            state();
        }
        if (NULL == (d = opendir("/proc/self/task"))) {
            continue;
        }
        while (NULL != (e = readdir(d))) {
            tid = atol(e->d_name);
            if (tid > 0 && tid != self) {
                syscall(SYS_tgkill, (int) getpid(), (int) tid, SIGRTMIN + 3);
                usleep(100000); /* one thread's frames at a time */
            }
        }
        closedir(d);
    }
    return NULL;
}

__attribute__((constructor)) static void hangdump_init(void)
{
    const char *after = getenv("HANGDUMP_AFTER");
    struct sigaction sa = {0};
    pthread_attr_t attr;
    pthread_t t;
    void *warm[1];

    if (NULL == after || atoi(after) <= 0) {
        return;
    }
    (void) backtrace(warm, 1); /* loads libgcc's unwinder now, not in a handler */
    sa.sa_handler = hangdump_frames;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (0 != sigaction(SIGRTMIN + 3, &sa, NULL)) {
        return;
    }
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    (void) pthread_create(&t, &attr, hangdump_watch, (void *) (uintptr_t) atoi(after));
    pthread_attr_destroy(&attr);
}
