/* stat(), lstat(), fstat() and fstatat() for the prebuilt glibc binaries, so they
 * load on the glibc Node itself needs (2.28) and not only on the 2.33+ they
 * are built with. glibc 2.33 turned the stat family into exported functions
 * (stat64@GLIBC_2.33, ...); before, the headers inlined calls to __xstat64,
 * __lxstat64 and __fxstat64, which every glibc still exports under their
 * first symbol version. These hidden definitions bind cprof's calls to
 * those, so the binary never imports a stat function at GLIBC_2.33.
 * binding.gyp compiles this only when cprof_glibc_compat=1
 * (scripts/prebuild.js, glibc targets); the source build calls the
 * system's stat functions directly. */
#include <limits.h> /* defines __GLIBC__ on glibc */

#if defined(CPROF_GLIBC_COMPAT) && defined(__GLIBC__)

struct stat64;

/* The layout version the old entry points take: _STAT_VER_LINUX on
 * x86-64, _STAT_VER_KERNEL on the generic ABI aarch64 uses. */
#if defined(__x86_64__)
#define CPROF__STAT_VER 1
__asm__(".symver __xstat64,__xstat64@GLIBC_2.2.5");
__asm__(".symver __lxstat64,__lxstat64@GLIBC_2.2.5");
__asm__(".symver __fxstat64,__fxstat64@GLIBC_2.2.5");
__asm__(".symver __fxstatat64,__fxstatat64@GLIBC_2.4");
#elif defined(__aarch64__)
#define CPROF__STAT_VER 0
__asm__(".symver __xstat64,__xstat64@GLIBC_2.17");
__asm__(".symver __lxstat64,__lxstat64@GLIBC_2.17");
__asm__(".symver __fxstat64,__fxstat64@GLIBC_2.17");
__asm__(".symver __fxstatat64,__fxstatat64@GLIBC_2.17");
#else
#error "cprof_glibc_compat: add this architecture's _STAT_VER and symbol version"
#endif

extern int __xstat64(int ver, const char *path, struct stat64 *buf);
extern int __lxstat64(int ver, const char *path, struct stat64 *buf);
extern int __fxstat64(int ver, int fd, struct stat64 *buf);
extern int __fxstatat64(int ver, int dirfd, const char *path, struct stat64 *buf, int flag);

__attribute__((visibility("hidden"))) int stat64(const char *path, struct stat64 *buf) {
  return __xstat64(CPROF__STAT_VER, path, buf);
}

__attribute__((visibility("hidden"))) int lstat64(const char *path, struct stat64 *buf) {
  return __lxstat64(CPROF__STAT_VER, path, buf);
}

__attribute__((visibility("hidden"))) int fstat64(int fd, struct stat64 *buf) {
  return __fxstat64(CPROF__STAT_VER, fd, buf);
}

__attribute__((visibility("hidden"))) int fstatat64(int dirfd, const char *path, struct stat64 *buf,
                                                    int flag) {
  return __fxstatat64(CPROF__STAT_VER, dirfd, path, buf, flag);
}

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int cprof__glibc_stat_unused;
#endif
