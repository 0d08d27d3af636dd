/* Small C helpers the engine needs that Swift's Glibc module does not offer:
 * the CRC-32C of stored chunks (checksum.h), malloc_trim (malloc.h), a
 * prefetch hint and the file system type of a path (sys/vfs.h). */
#ifndef FIEF_SUPPORT_H
#define FIEF_SUPPORT_H
#include <malloc.h>
#include <sys/vfs.h>
#include "checksum.h"

/* The f_type of the file system `path` lies on (statfs), or 0 when it
 * cannot be read. */
static inline unsigned long fief_file_system_type(const char *path) {
    struct statfs info;
    return statfs(path, &info) == 0 ? (unsigned long)info.f_type : 0;
}

/* A hint that `p` will be read soon (for walks in an order memory is not in). */
static inline void fief_prefetch(const void *p) { __builtin_prefetch(p); }

/* Notifications (Notify/): an eventfd (non-blocking, close-on-exec), and
 * epoll, which the Glibc module does not offer either. */
#include <sys/epoll.h>
#include <sys/eventfd.h>
static inline int fief_eventfd_new(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }
static inline int fief_epoll_new(void) { return epoll_create1(EPOLL_CLOEXEC); }
/* Watch `fd` for input, edge-triggered when `edge` is nonzero. */
static inline int fief_epoll_watch(int epoll_fd, int fd, int edge) {
    struct epoll_event event = {0};
    event.events = EPOLLIN | (edge ? EPOLLET : 0);
    event.data.fd = fd;
    return epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
}
/* Wait for the watched descriptors; stores up to 4 ready ones in `out_fds`
 * and returns their number (-1 with errno on failure). */
static inline int fief_epoll_wait(int epoll_fd, int *out_fds, int timeout_ms) {
    struct epoll_event events[4];
    int n = epoll_wait(epoll_fd, events, 4, timeout_ms);
    for (int i = 0; i < n; i++) out_fds[i] = events[i].data.fd;
    return n;
}
#endif
