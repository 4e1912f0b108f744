/* What Glibc's Swift module leaves out for spawning children safely (behind _GNU_SOURCE):
 * closing every inherited descriptor at spawn time, changing directory in the child, and
 * pipes created close-on-exec. */
#ifndef RELAY_CSPAWN_SHIM_H
#define RELAY_CSPAWN_SHIM_H
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *restrict actions,
                                                const char *restrict path);
extern int pipe2(int fds[2], int flags);
#endif
