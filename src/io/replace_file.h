// replace_file.h: a file written whole (private to the library and its programs): checkpoints
// and replay pages. A reader, or a writing stopped half way, sees the old file or the new one,
// never a part.
#ifndef CONTACTSIM_IO_REPLACE_FILE_H
#define CONTACTSIM_IO_REPLACE_FILE_H

#include <limits.h>
#include <stdio.h>

typedef struct csuReplace {
  FILE* f;                 // open for writing
  char dest[PATH_MAX];     // the file replaced: the path, or the target of a symbolic link
  char tmp[PATH_MAX + 32]; // its temporary name; "" when written in place
  int unnamed;             // 1 while the temporary file has no name yet (given at the close)
} csuReplace;

// Open path to be written whole:
// - a regular file (or a new one) under a temporary name beside it, renamed over it by
//   csu_replaceClose, keeping an existing file's mode (a file that cannot be written now is
//   refused, as renaming over it would bypass its mode). Where the file system allows, the
//   file has no name until then (O_TMPFILE), so a process killed while writing (kill -9)
//   leaves nothing behind;
// - through a symbolic link, its target (renaming over the link would replace the link); a link
//   to nothing yet, the name its chain ends at, created by the rename;
// - a device, a pipe or a socket in place (renaming over it would replace the node itself);
// - another user's file in a directory with the sticky bit (csu_replaceRefused) in place.
// 0, or -1 with errno set and nothing left behind.
int csu_replaceOpen(csuReplace* r, const char* path);

// Close r (its data synced to the disk first when sync) and rename it into place; on failure
// the temporary file is removed. 0, or -1 with errno set.
int csu_replaceClose(csuReplace* r, int sync);

// The temporary name csu_replaceOpen gives path in the calling thread (PATH.tmpPID.TID, beside
// a link's target), into buf (size bytes): a program that removes temporary files on a signal
// registers it. 0, or -1 when it does not fit.
int csu_replaceTemporaryName(const char* path, char* buf, size_t size);

// 1 when the file path stands for exists in a directory whose sticky bit (such as /tmp's) keeps
// this process from renaming over it: the file and the directory belong to other users and the
// process is not root. Else 0.
int csu_replaceRefused(const char* path);

// The name a chain of symbolic links from path ends at when nothing has that name yet (a link
// to nothing: opening it for writing creates that file, as shell redirection and cp do): 1 with
// the name in out (a relative link read from its link's folder), else 0 (path is no link, its
// target exists, the chain loops or a name does not fit).
int csu_danglingLinkTarget(const char* path, char* out, size_t size);

#endif
