// Functions that need _GNU_SOURCE or expand macros Swift cannot call.
#define _GNU_SOURCE
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
