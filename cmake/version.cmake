# Bakes the version and the git commit into build/generated/autoresearch/version.h
# at configure time ("-dirty" when tracked files differ from the commit). Only
# the files that print or need them include it, so a new commit recompiles two.
set(AR_GIT_COMMIT "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short=12 HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE ar_head
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE ar_head_rc)
  if(ar_head_rc EQUAL 0 AND ar_head)
    set(AR_GIT_COMMIT ${ar_head})
    execute_process(COMMAND ${GIT_EXECUTABLE} status --porcelain --untracked-files=no
                    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE ar_dirty ERROR_QUIET)
    if(ar_dirty)
      string(APPEND AR_GIT_COMMIT "-dirty")
    endif()
  endif()
endif()
# Where the shipped files lie relative to the installed executable (bin/).
set(AR_INSTALL_DATA_DIR share/autoresearch)
set(AR_DATA_FROM_BIN ../${AR_INSTALL_DATA_DIR})
configure_file(${PROJECT_SOURCE_DIR}/cmake/version.h.in ${PROJECT_BINARY_DIR}/generated/autoresearch/version.h @ONLY)
