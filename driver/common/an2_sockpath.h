/* an2_sockpath.h — where an2d's control socket is and how to reach it safely: the socket
 * paths, the checks of the directory that holds it (nobody else may plant files there) and of
 * the server at the other end (it runs as us or as root). liban2 connects with these; an2d
 * makes its directory by the same rules; an2stat finds the an2d it asks. */
#ifndef AN2_SOCKPATH_H
#define AN2_SOCKPATH_H

#include <stdbool.h>
#include <stddef.h>

/* The system an2d's directory unless $AN2_SYSTEM_DIR names another (tests). */
#define AN2_SYSTEM_DIR_DEFAULT "/run/an2d"
/* The system an2d's socket: ${AN2_SYSTEM_DIR:-/run/an2d}/an2d.sock. 0 or -ENAMETOOLONG. */
int an2_system_socket_path(char *buf, size_t len);
/* The socket a client uses: $AN2_SOCKET; else the system an2d's if something is at its path
 * (and PVM_VMID is not set: an isolated setup keeps its own an2d), *system then true; else
 * an2_socket_path's (an2.h). 0 or -ENAMETOOLONG. */
int an2_ctl_target(char *buf, size_t len, bool *system);
/* As an2_ctl_connect, for the system an2d: its directory must be root's and writable by
 * nobody else, and the server must run as root. */
int an2_ctl_connect_system(const char *path);
/* As an2_dir_check for the system an2d's directory (see an2_ctl_connect_system). */
int an2_dir_check_system(const char *dir);
/* A new connection to an2d's control socket at path, after checking its
 * directory (an2_dir_check) and, before anything is sent, that the server runs as us or as
 * root: fd, or -errno with the reason in an2_error_detail (-EPERM: not to be trusted). */
int an2_ctl_connect(const char *path);
/* The directory part of path into dir. 0 or -ENAMETOOLONG. */
int an2_dir_of(const char *path, char *dir, size_t len);
/* A directory fit for an2d's socket and files: no symlink, owned by us or root, not writable
 * by others unless sticky. 0, or -errno and the reason in an2_error_detail (-EPERM: another
 * user could plant files there). */
int an2_dir_check(const char *dir);
/* Whether the process at the other end of the connected socket fd runs as us or as root.
 * 0, or -EPERM/-errno and the reason in an2_error_detail; path is named in it. */
int an2_peer_check(int fd, const char *path);

#endif
