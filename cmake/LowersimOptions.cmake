# Build options shared by every lowersim target.
option(LOWERSIM_WERROR "Treat compiler warnings as errors (CI turns this on)" OFF)
option(LOWERSIM_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)

add_library(lowersim_flags INTERFACE)
# C11 plus POSIX 2008 (strdup, fileno, isatty, clock_gettime).
target_compile_definitions(lowersim_flags INTERFACE _POSIX_C_SOURCE=200809L)
target_compile_options(lowersim_flags INTERFACE
  $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes>)
if(LOWERSIM_WERROR)
  target_compile_options(lowersim_flags INTERFACE $<$<COMPILE_LANGUAGE:C>:-Werror>)
endif()
if(LOWERSIM_SANITIZE)
  set(_lsim_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_compile_options(lowersim_flags INTERFACE ${_lsim_san})
  target_link_options(lowersim_flags INTERFACE ${_lsim_san})
endif()
