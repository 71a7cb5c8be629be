# Installing tmkit like a system library (docs/install.md): `make install` (cmake --install with
# PREFIX and DESTDIR), `make deb` (packaging/debian, the same rules with prefix /usr).
#   LIBDIR/tmkit/        libitm.so.1 (tmkit's, never on the system's search path unless asked:
#                        `tmkit system-libitm enable`), libitm.so, tmkit-info, tmkit-shmdump,
#                        tmkit_inline.so (the GCC plugin, `tmkit plugin`)
#   INCLUDEDIR/          tmkit.h, tmkit/*.h
#   LIBDIR/pkgconfig/    tmkit.pc (written at install time: it names the prefix)
#   LIBDIR/cmake/tmkit/  tmkitConfig.cmake (relocatable), tmkitConfigVersion.cmake
#   bin/tmkit, lib/python3/dist-packages/tmkit_cli/ (+ .dist-info declaring its dependencies)
#   DATADIR/tmkit/       stats.schema.json (the profile's format)
#   MANDIR/man{1,3,7}/   cmake/man.cmake
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(TMKIT_PKGLIBDIR ${CMAKE_INSTALL_LIBDIR}/tmkit)
set(TMKIT_PYDIR lib/python3/dist-packages)
set(TMKIT_STAGE ${CMAKE_BINARY_DIR}/install-files)

install(TARGETS itm LIBRARY DESTINATION ${TMKIT_PKGLIBDIR})
install(TARGETS tmkit-info tmkit-shmdump RUNTIME DESTINATION ${TMKIT_PKGLIBDIR})
if(TARGET tmkit_inline)  # the GCC plugin (tools/gcc-plugin/), when it is built
  install(TARGETS tmkit_inline LIBRARY DESTINATION ${TMKIT_PKGLIBDIR})
endif()
install(FILES ${CMAKE_SOURCE_DIR}/include/tmkit.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/tmkit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_SOURCE_DIR}/docs/stats.schema.json DESTINATION ${CMAKE_INSTALL_DATADIR}/tmkit)

# pkg-config: the prefix is the one given at install time (cmake --install --prefix).
install(CODE "
  set(TMKIT_PKGLIBDIR \"${TMKIT_PKGLIBDIR}\")
  set(CMAKE_INSTALL_INCLUDEDIR \"${CMAKE_INSTALL_INCLUDEDIR}\")
  set(PROJECT_VERSION \"${PROJECT_VERSION}\")
  configure_file(\"${CMAKE_SOURCE_DIR}/cmake/tmkit.pc.in\" \"${TMKIT_STAGE}/tmkit.pc\" @ONLY)")
install(FILES ${TMKIT_STAGE}/tmkit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# CMake: find_package(tmkit) gives tmkit::tmkit; the file finds the prefix from its own place.
file(RELATIVE_PATH TMKIT_CONFIG_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/cmake/tmkit" "/p")
configure_file(cmake/tmkitConfig.cmake.in ${TMKIT_STAGE}/tmkitConfig.cmake @ONLY)
write_basic_package_version_file(${TMKIT_STAGE}/tmkitConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${TMKIT_STAGE}/tmkitConfig.cmake ${TMKIT_STAGE}/tmkitConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tmkit)

# The command: the package, its layout (installed.py), its metadata, the launcher.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/tools/tmkit_cli DESTINATION ${TMKIT_PYDIR}
  PATTERN __pycache__ EXCLUDE)
configure_file(cmake/installed.py.in ${TMKIT_STAGE}/installed.py @ONLY)
install(FILES ${TMKIT_STAGE}/installed.py DESTINATION ${TMKIT_PYDIR}/tmkit_cli)
execute_process(COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/cmake/dist_info.py
  ${CMAKE_SOURCE_DIR}/tools/pyproject.toml ${PROJECT_VERSION} ${TMKIT_STAGE}/dist-info
  RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "cmake/dist_info.py failed")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tools/pyproject.toml)
install(DIRECTORY ${TMKIT_STAGE}/dist-info/ DESTINATION ${TMKIT_PYDIR})
configure_file(cmake/tmkit.py.in ${TMKIT_STAGE}/tmkit @ONLY)
install(PROGRAMS ${TMKIT_STAGE}/tmkit DESTINATION ${CMAKE_INSTALL_BINDIR})
