# The man page lowersim.1 and the bash completion, generated at build time
# from what the built command prints for --help (tools/gen_man.sh,
# tools/gen_completion.sh), so they follow its help texts; installed under
# share/man/man1 and share/bash-completion/completions.  Not when
# cross-compiling (the command cannot run on the build machine).
if(CMAKE_CROSSCOMPILING)
  return()
endif()
include(GNUInstallDirs)
find_program(LOWERSIM_BASH bash REQUIRED)
set(LOWERSIM_MAN_PAGE ${PROJECT_BINARY_DIR}/lowersim.1)
set(LOWERSIM_COMPLETION ${PROJECT_BINARY_DIR}/lowersim.bash)
set(_lsim_installed_schema ${CMAKE_INSTALL_FULL_DATADIR}/lowersim/scenario.rng)
add_custom_command(OUTPUT ${LOWERSIM_MAN_PAGE}
  COMMAND ${LOWERSIM_BASH} ${PROJECT_SOURCE_DIR}/tools/gen_man.sh $<TARGET_FILE:lowersim_cli>
          ${_lsim_installed_schema} > ${LOWERSIM_MAN_PAGE}.tmp
  COMMAND ${CMAKE_COMMAND} -E rename ${LOWERSIM_MAN_PAGE}.tmp ${LOWERSIM_MAN_PAGE}
  DEPENDS lowersim_cli ${PROJECT_SOURCE_DIR}/tools/gen_man.sh
  COMMENT "Generating lowersim.1 from lowersim --help"
  VERBATIM)
add_custom_command(OUTPUT ${LOWERSIM_COMPLETION}
  COMMAND ${LOWERSIM_BASH} ${PROJECT_SOURCE_DIR}/tools/gen_completion.sh $<TARGET_FILE:lowersim_cli>
          > ${LOWERSIM_COMPLETION}.tmp
  COMMAND ${CMAKE_COMMAND} -E rename ${LOWERSIM_COMPLETION}.tmp ${LOWERSIM_COMPLETION}
  DEPENDS lowersim_cli ${PROJECT_SOURCE_DIR}/tools/gen_completion.sh
  COMMENT "Generating the bash completion from lowersim --help"
  VERBATIM)
add_custom_target(lowersim_docs ALL DEPENDS ${LOWERSIM_MAN_PAGE} ${LOWERSIM_COMPLETION})
install(FILES ${LOWERSIM_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${LOWERSIM_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME lowersim)
