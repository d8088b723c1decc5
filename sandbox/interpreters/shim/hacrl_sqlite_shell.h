/* What shell.c calls that wasi-libc lacks: file modes and path resolution fail as unsupported. */
#include <errno.h>
#include <stddef.h>
#include <sys/types.h>
static inline int chmod(const char *path, mode_t mode) {
  (void)path; (void)mode; errno = ENOTSUP; return -1;
}
static inline char *realpath(const char *path, char *resolved) {
  (void)path; (void)resolved; errno = ENOTSUP; return NULL;
}
#include <stdlib.h>
int system(const char *command) {
  errno = ENOSYS;
  return command == NULL ? 0 : -1;
}
