# Installs the headers and a CMake package so that consumers can `find_package(sluice)` and link
# `sluice::sluice`.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/sluice" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")
install(TARGETS sluice EXPORT sluiceTargets)
install(EXPORT sluiceTargets NAMESPACE sluice:: DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/sluice")

configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/sluiceConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/sluiceConfig.cmake"
  INSTALL_DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/sluice")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/sluiceConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/sluiceConfig.cmake" "${PROJECT_BINARY_DIR}/sluiceConfigVersion.cmake"
  DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/sluice")

# sluice::dist (built where NCCL is found) in an export set of its own, so that a consumer without NCCL
# still finds sluice::sluice: the package config loads it only where it finds NCCL too.
if(SLUICE_WITH_NCCL)
  install(TARGETS sluice_dist EXPORT sluiceDistTargets)
  install(EXPORT sluiceDistTargets NAMESPACE sluice:: DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/sluice")
  install(FILES "${PROJECT_SOURCE_DIR}/cmake/FindNCCL.cmake" DESTINATION "${CMAKE_INSTALL_LIBDIR}/cmake/sluice")
endif()
