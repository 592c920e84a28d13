// The Linux system calls that `import Glibc` does not expose on this toolchain.
#ifndef SWITCHBOARD_CSYSTEM_H
#define SWITCHBOARD_CSYSTEM_H

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <pthread.h>
#include <unistd.h>

// Declared here without _GNU_SOURCE's transparent-union sockaddr argument.
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);

// GNU extension, declared here for the same reason.
extern int pthread_setname_np(pthread_t thread, const char *name);

// poll(2) with a deadline in nanoseconds (ppoll, a GNU extension); negative: none.
int csystem_poll_nanoseconds(struct pollfd *fds, nfds_t count, long long nanoseconds);

// CPUs this process may run on (sched_getaffinity), or -1.
int csystem_available_cpus(void);

static inline int csystem_errno(void) { return errno; }

// Lowers the calling thread's nice value (Linux: setpriority on its thread id). 0 or -1 with errno.
int csystem_set_thread_nice(int nice);

#endif
