# Manual pages, generated at build time into build/man/ (tools/mangen/build.py says from what:
# --help through help2man, the headers' comments, the runtime's configuration table) and
# installed with the rest (cmake/install.cmake).
find_program(HELP2MAN help2man)
if(NOT HELP2MAN)
  message(FATAL_ERROR "help2man not found (scripts/deps.sh installs it: apt-get install help2man)")
endif()
file(GLOB_RECURSE TMKIT_MAN_DEPS CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/tools/tmkit_cli/*.py ${CMAKE_SOURCE_DIR}/tools/mangen/*.py
  ${CMAKE_SOURCE_DIR}/include/*.h)
set(TMKIT_MAN_DIR ${CMAKE_BINARY_DIR}/man)
add_custom_command(OUTPUT ${TMKIT_MAN_DIR}/stamp
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${TMKIT_MAN_DIR}
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/mangen/build.py
    --tmkit ${CMAKE_SOURCE_DIR}/bin/tmkit --info $<TARGET_FILE:tmkit-info>
    --include ${CMAKE_SOURCE_DIR}/include --version ${PROJECT_VERSION} --out ${TMKIT_MAN_DIR}
  COMMAND ${CMAKE_COMMAND} -E touch ${TMKIT_MAN_DIR}/stamp
  DEPENDS ${TMKIT_MAN_DEPS} tmkit-info
  COMMENT "Writing the manual pages (tools/mangen)" VERBATIM)
add_custom_target(man ALL DEPENDS ${TMKIT_MAN_DIR}/stamp)
install(DIRECTORY ${TMKIT_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR} PATTERN stamp EXCLUDE)
