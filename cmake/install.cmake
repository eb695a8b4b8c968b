# Install rules: the library and its headers, the CMake package (find_package(weave)
# gives weave::weave), a pkg-config file, and the weave command if it is built.
include(CMakePackageConfigHelpers)

set(WEAVE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/weave)

install(TARGETS weave EXPORT weave-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/weave DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/include/weave/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/weave)
install(EXPORT weave-targets NAMESPACE weave:: FILE weave-targets.cmake DESTINATION ${WEAVE_CMAKE_DIR})

# fmt is private to the library's sources, but a static library's users link
# it too: then the package finds it for them.
get_target_property(weave_library_type weave TYPE)
if(weave_library_type STREQUAL "STATIC_LIBRARY")
  set(WEAVE_LINKS_FMT_STATICALLY ON)
  set(WEAVE_PC_FMT_FIELD "Requires")
else()
  set(WEAVE_LINKS_FMT_STATICALLY OFF)
  set(WEAVE_PC_FMT_FIELD "Requires.private")
endif()

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/weave-config.cmake.in
  ${PROJECT_BINARY_DIR}/weave-config.cmake INSTALL_DESTINATION ${WEAVE_CMAKE_DIR})
# 0.x: a minor version may break the interface.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/weave-config-version.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/weave-config.cmake ${PROJECT_BINARY_DIR}/weave-config-version.cmake
  DESTINATION ${WEAVE_CMAKE_DIR})

# weave.pc finds its prefix from where it is installed, so that
# `cmake --install --prefix P` gives a file that is right for P.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(WEAVE_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(WEAVE_PC_LIBDIR "${CMAKE_INSTALL_FULL_LIBDIR}")
  set(WEAVE_PC_INCLUDEDIR "${CMAKE_INSTALL_FULL_INCLUDEDIR}")
else()
  file(RELATIVE_PATH weave_pc_up /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
  string(REGEX REPLACE "/$" "" weave_pc_up "${weave_pc_up}")
  set(WEAVE_PC_PREFIX "\${pcfiledir}/${weave_pc_up}")
  set(WEAVE_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(WEAVE_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/weave.pc.in ${PROJECT_BINARY_DIR}/weave.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/weave.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CHANGELOG.md ${PROJECT_SOURCE_DIR}/README.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR})

if(WEAVE_BUILD_APP)
  install(TARGETS weave_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
