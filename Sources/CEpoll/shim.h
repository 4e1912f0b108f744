/* What Glibc's Swift module leaves out: epoll, eventfd and accept4 (behind _GNU_SOURCE). */
#ifndef RELAY_CEPOLL_SHIM_H
#define RELAY_CEPOLL_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

extern int accept4(int fd, struct sockaddr *addr, socklen_t *addrlen, int flags);
#endif
