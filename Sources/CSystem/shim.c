// Functions that need _GNU_SOURCE or expand macros Swift cannot call.
#define _GNU_SOURCE
#include <poll.h>
#include <sched.h>
#include <sys/syscall.h>
#include "CSystem.h"

int csystem_available_cpus(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0) return -1;
    return CPU_COUNT(&set);
}

int csystem_set_thread_nice(int nice) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice);
}

int csystem_poll_nanoseconds(struct pollfd *fds, nfds_t count, long long nanoseconds) {
    if (nanoseconds < 0) return ppoll(fds, count, NULL, NULL);
    struct timespec timeout = {.tv_sec = nanoseconds / 1000000000LL, .tv_nsec = nanoseconds % 1000000000LL};
    return ppoll(fds, count, &timeout, NULL);
}
