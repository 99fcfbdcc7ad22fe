// replace_file.c: a file written under a temporary name and renamed into place (replace_file.h).
#define _GNU_SOURCE  // O_TMPFILE, syscall, realpath
#include "io/replace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int csu_danglingLinkTarget(const char* path, char* out, size_t size) {
  struct stat st;
  if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode) || stat(path, &st) == 0 || errno != ENOENT) {
    return 0;
  }
  char cur[PATH_MAX];
  int len = snprintf(cur, sizeof(cur), "%s", path);
  // the links followed one by one, at most 40 (the kernel's own limit, ELOOP)
  for (int hop = 0; len > 0 && (size_t)len < sizeof(cur) && hop <= 40; hop++) {
    if (lstat(cur, &st) != 0) {
      // the end of the chain
      int n = snprintf(out, size, "%s", cur);
      return errno == ENOENT && n > 0 && (size_t)n < size;
    }
    char target[PATH_MAX];
    ssize_t n = S_ISLNK(st.st_mode) ? readlink(cur, target, sizeof(target) - 1) : -1;
    if (n <= 0) {
      return 0;
    }
    target[n] = '\0';
    char next[PATH_MAX];
    const char* slash = strrchr(cur, '/');
    len = target[0] == '/' || !slash
              ? snprintf(next, sizeof(next), "%s", target)
              : snprintf(next, sizeof(next), "%.*s/%s", (int)(slash - cur), cur, target);
    if (len > 0 && (size_t)len < sizeof(cur)) {
      memcpy(cur, next, (size_t)len + 1);
    }
  }
  return 0;
}


// the file path stands for: the target of a symbolic link (a link to nothing yet: the name its
// chain ends at, which writing creates), else path. *inPlace is 1 for a link that leads nowhere
// it could be written whole (a loop, a name that does not fit): it is then opened in place, to
// fail as opening it fails. 0, or -1 when too long
static int destination(const char* path, char* dest, size_t size, int* inPlace) {
  struct stat st;
  int link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
  char* real = link ? realpath(path, NULL) : NULL;
  int n = snprintf(dest, size, "%s", real ? real : path);
  int dangling = link && !real;
  free(real);
  *inPlace = 0;
  if (dangling) {
    if (csu_danglingLinkTarget(path, dest, size)) {
      return 0;
    }
    *inPlace = 1;
    n = snprintf(dest, size, "%s", path);
  }
  return n > 0 && (size_t)n < size ? 0 : -1;
}


int csu_replaceTemporaryName(const char* path, char* buf, size_t size) {
  char dest[PATH_MAX];
  int inPlace;
  if (destination(path, dest, sizeof(dest), &inPlace) != 0) {
    return -1;
  }
  // the thread's id as well as the process's: threads writing the same path at once
  // (checkpoints of two simulations) each write their own temporary file. A process's first
  // thread has the process's id, so a one-threaded program's names stay predictable.
  char suffix[64];
  snprintf(suffix, sizeof(suffix), ".tmp%ld.%ld", (long)getpid(), (long)syscall(SYS_gettid));
  // a name of its own as long as the system takes (255 bytes) has no room for the suffix: the
  // temporary name keeps as much of it as fits (the suffix alone tells temporary files apart)
  const char* slash = strrchr(dest, '/');
  size_t base = strlen(slash ? slash + 1 : dest), room = NAME_MAX - strlen(suffix);
  int cut = base > room ? (int)(strlen(dest) - (base - room)) : (int)strlen(dest);
  int n = snprintf(buf, size, "%.*s%s", cut, dest, suffix);
  return n > 0 && (size_t)n < size ? 0 : -1;
}


// the directory path names a file in ("/" for /x, "." for a bare name), into out (size bytes):
// 0, or -1 when it does not fit
static int directoryOf(const char* path, char* out, size_t size) {
  const char* slash = strrchr(path, '/');
  int n = slash ? snprintf(out, size, "%.*s", slash == path ? 1 : (int)(slash - path), path)
                : snprintf(out, size, ".");
  return n > 0 && (size_t)n < size ? 0 : -1;
}


// The file opened without a name in the temporary name's directory (O_TMPFILE): a process
// killed before it is named (by csu_replaceClose) leaves nothing behind. It is named through
// /proc/self/fd, so only where that is mounted. A descriptor with r->unnamed set, or -1 with
// r->unnamed clear where the system or the file system offers no such file (the caller then
// creates the temporary name itself)
static int openUnnamed(csuReplace* r) {
  r->unnamed = 0;
#ifdef O_TMPFILE
  char dir[PATH_MAX + 32];
  if (directoryOf(r->tmp, dir, sizeof(dir)) != 0 || access("/proc/self/fd", X_OK) != 0) {
    return -1;
  }
  int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd >= 0) {
    r->unnamed = 1;
  }
  return fd;
#else
  return -1;
#endif
}


// the temporary file removed: a named one by its name (an unnamed one goes with its descriptor)
static void removeTemporary(const csuReplace* r) {
  if (!r->unnamed) {
    unlink(r->tmp);
  }
}


// an unnamed file given its temporary name (a stale file of that name, left by a process of the
// same id that was killed, replaced): 0, or -1 with errno set
static int nameUnnamed(const csuReplace* r, int fd) {
  char self[64];
  snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
  int ok = linkat(AT_FDCWD, self, AT_FDCWD, r->tmp, AT_SYMLINK_FOLLOW) == 0;
  if (!ok && errno == EEXIST && unlink(r->tmp) == 0) {
    ok = linkat(AT_FDCWD, self, AT_FDCWD, r->tmp, AT_SYMLINK_FOLLOW) == 0;
  }
  return ok ? 0 : -1;
}


int csu_replaceRefused(const char* path) {
  char dest[PATH_MAX], dir[PATH_MAX];
  int inPlace;
  struct stat st, dst;
  if (geteuid() == 0 || destination(path, dest, sizeof(dest), &inPlace) != 0 ||
      lstat(dest, &st) != 0) {
    return 0;
  }
  return directoryOf(dest, dir, sizeof(dir)) == 0 && stat(dir, &dst) == 0 &&
         (dst.st_mode & S_ISVTX) && st.st_uid != geteuid() && dst.st_uid != geteuid();
}


int csu_replaceOpen(csuReplace* r, const char* path) {
  memset(r, 0, sizeof(*r));
  if (!path[0]) {
    errno = ENOENT;  // no name, as open("") says: not one too long
    return -1;
  }
  int inPlace;
  if (destination(path, r->dest, sizeof(r->dest), &inPlace) != 0) {
    errno = ENAMETOOLONG;
    return -1;
  }
  struct stat st;
  int exists = stat(r->dest, &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    return -1;
  }
  if ((exists && !S_ISREG(st.st_mode)) || inPlace) {
    r->f = fopen(path, "w");
    return r->f ? 0 : -1;
  }
  // another user's file in a sticky directory (/tmp) may be written but not renamed over: in
  // place, without O_CREAT, which protected_regular refuses there even for a writable file
  if (exists && csu_replaceRefused(path)) {
    int fd = open(r->dest, O_WRONLY | O_TRUNC | O_CLOEXEC);
    r->f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!r->f && fd >= 0) {
      close(fd);
    }
    return r->f ? 0 : -1;
  }
  if (exists && access(r->dest, W_OK) != 0) {
    return -1;
  }
  if (csu_replaceTemporaryName(path, r->tmp, sizeof(r->tmp)) != 0) {
    errno = ENAMETOOLONG;
    return -1;
  }
  // an existing file keeps its mode; a new one gets 0666 less the umask, as fopen gives
  int fd = openUnnamed(r);
  if (fd < 0 && !r->unnamed) {
    fd = open(r->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  }
  if (fd >= 0 && exists && fchmod(fd, st.st_mode & 07777) != 0) {
    int saved = errno;
    close(fd);
    removeTemporary(r);
    errno = saved;
    return -1;
  }
  r->f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!r->f) {
    int saved = errno;
    if (fd >= 0) {
      close(fd);
      removeTemporary(r);
    }
    errno = saved;
    return -1;
  }
  return 0;
}


int csu_replaceClose(csuReplace* r, int sync) {
  errno = 0;
  int bad = fflush(r->f) != 0 || ferror(r->f) || (sync && r->tmp[0] && fsync(fileno(r->f)) != 0);
  // an unnamed file is named while its descriptor is open, then renamed as a named one is
  bad = bad || (r->unnamed && nameUnnamed(r, fileno(r->f)) != 0);
  int named = r->tmp[0] && (!r->unnamed || !bad);
  int saved = errno;
  bad |= fclose(r->f) != 0;
  r->f = NULL;
  if (!bad && r->tmp[0] && rename(r->tmp, r->dest) != 0) {
    saved = errno;
    bad = 1;
  }
  if (bad && named) {
    unlink(r->tmp);
  }
  // the first failure's reason; a stream error that left none is an I/O error
  errno = saved ? saved : EIO;
  return bad ? -1 : 0;
}
