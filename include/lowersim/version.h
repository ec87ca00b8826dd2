/* lowersim/version.h: the version of lowersim these headers belong to, and
 * of the library a program runs with.
 *
 * The numbers below are the one place the version is written: CMake reads
 * them for project(VERSION), the shared library's SONAME, the CMake package
 * and the pkg-config files.  While the major version is 0, a new minor
 * version may change the ABI (the SONAME is liblowersim.so.0.MINOR). */
#ifndef LOWERSIM_VERSION_H
#define LOWERSIM_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

#define LOWERSIM_VERSION_MAJOR 0
#define LOWERSIM_VERSION_MINOR 1
#define LOWERSIM_VERSION_PATCH 0
#define LOWERSIM_VERSION_STRING "0.1.0"

/* True when these headers are version MAJOR.MINOR.PATCH or newer. */
#define LOWERSIM_VERSION_AT_LEAST(major, minor, patch)                                   \
  (LOWERSIM_VERSION_MAJOR > (major) ||                                                   \
   (LOWERSIM_VERSION_MAJOR == (major) &&                                                 \
    (LOWERSIM_VERSION_MINOR > (minor) ||                                                 \
     (LOWERSIM_VERSION_MINOR == (minor) && LOWERSIM_VERSION_PATCH >= (patch)))))

/* The version of the library linked at run time, "MAJOR.MINOR.PATCH"
 * (static); LOWERSIM_VERSION_STRING is the headers' compiled in. */
const char *lsim_version(void);

#ifdef __cplusplus
}
#endif

#endif /* LOWERSIM_VERSION_H */
